package stats

import "math"

// The agreement check between the engine's and the gateway's hit ratio.
const (
	// AgreementTolerance is how far the two ratios may differ in a window
	// before the window counts as differing: 0.1.
	AgreementTolerance = 0.1
	// AgreementMinWindows and AgreementMinShare say when differing windows
	// make a run disagree: at least 3 of them, and at least a quarter of
	// the compared windows, so that the lag of a regime change (the engine
	// counts a prompt when it is prefilled, the gateway when its turn
	// completes) does not flag a long run.
	AgreementMinWindows = 3
	AgreementMinShare   = 0.25
)

// Agreement compares the engine's hit ratio with the gateway's, window by
// window (§3's token-weighted ratio against the engine's own count).
type Agreement struct {
	// Windows is the number of windows where both ratios exist, Differing
	// how many of them differ by more than AgreementTolerance.
	Windows   int
	Differing int
	// MeanDiff is the mean of engine − gateway over the compared windows
	// and MaxAbsDiff the largest |engine − gateway|; NaN without a compared
	// window.
	MeanDiff   float64
	MaxAbsDiff float64
	// Disagree is Differing ≥ AgreementMinWindows and Differing ≥
	// AgreementMinShare · Windows.
	Disagree bool
}

// HitAgreement compares engine[i] with gateway[i] for every window i that
// both have (a NaN on either side leaves the window out).
func HitAgreement(gateway, engine []float64) Agreement {
	a := Agreement{MeanDiff: math.NaN(), MaxAbsDiff: math.NaN()}
	var sum float64
	for i := range min(len(gateway), len(engine)) {
		g, e := gateway[i], engine[i]
		if math.IsNaN(g) || math.IsNaN(e) {
			continue
		}
		d := e - g
		a.Windows++
		sum += d
		if math.Abs(d) > AgreementTolerance {
			a.Differing++
		}
		if !(math.Abs(d) <= a.MaxAbsDiff) {
			a.MaxAbsDiff = math.Abs(d)
		}
	}
	if a.Windows > 0 {
		a.MeanDiff = sum / float64(a.Windows)
	}
	a.Disagree = a.Differing >= AgreementMinWindows && float64(a.Differing) >= AgreementMinShare*float64(a.Windows)
	return a
}
