package stats

import "math"

// Degraded reports whether a window is degraded: its token-weighted hit
// ratio is below DegradedHit, 0.5 (§3). A window without completed turns
// (NaN) is not degraded.
func Degraded(w TurnWindow) bool { return w.HitRatio < DegradedHit }

// Regime classifies a run's 5-minute analysis windows (§3).
type Regime struct {
	// ReferenceS is the time after which degradation counts: the trigger's
	// end_s (for a twin without a trigger of its own, the slot its pair's
	// trigger occupied, which the manifest gives), else Run.AlignS (the
	// control start, else 0).
	ReferenceS float64
	// Windows are the analysis windows starting at or after ReferenceS.
	Windows []TurnWindow
	// FirstDegradedS is the start of the first degraded window at or after
	// ReferenceS; NaN when there is none.
	FirstDegradedS float64
	// Persistent: every window from the first degraded one to the end of
	// the run is degraded (§3, "persistently degraded"). Windows without
	// completed turns carry no hit ratio and are skipped.
	Persistent bool
	// EndHit is the hit ratio over the last 10 minutes of the run (Table 2);
	// NaN when no turn completed then.
	EndHit float64
	// Partial: not persistent, but EndHit is below RecoveredHit, 0.8 (§3,
	// "partially degraded").
	Partial bool
}

// HasData reports whether some analysis window at or after ReferenceS has
// a completed turn, so that the run's persistence can be judged at all.
func (r Regime) HasData() bool {
	for _, w := range r.Windows {
		if !math.IsNaN(w.HitRatio) {
			return true
		}
	}
	return false
}

// ReferenceS is the time after which a run's degradation counts; see
// Regime.ReferenceS.
func (x *RunIndex) ReferenceS() float64 {
	if t := x.Data.Run.TriggerEndS; t != nil {
		return *t
	}
	return x.Data.Run.AlignS
}

// EndWindow is the last span seconds of the run, [End − span, End), cut at 0.
func (x *RunIndex) EndWindow(span float64) Window {
	return Window{Start: math.Max(0, x.End-span), End: x.End}
}

// Regime classifies the run (§3).
func (x *RunIndex) Regime() Regime {
	ref := x.ReferenceS()
	r := Regime{ReferenceS: ref, FirstDegradedS: math.NaN()}
	for _, w := range AnalysisWindows(x.Data) {
		if w.Start >= ref-1e-9 {
			r.Windows = append(r.Windows, x.Turns.Window(w))
		}
	}
	first := -1
	for k, w := range r.Windows {
		if Degraded(w) {
			first = k
			break
		}
	}
	if first >= 0 {
		r.FirstDegradedS = r.Windows[first].Start
		r.Persistent = true
		for _, w := range r.Windows[first:] {
			if !math.IsNaN(w.HitRatio) && !Degraded(w) {
				r.Persistent = false
				break
			}
		}
	}
	r.EndHit = x.Turns.HitRatio(x.EndWindow(EndHitS))
	r.Partial = !r.Persistent && r.EndHit < RecoveredHit
	return r
}

// CollapsedAt reports whether the run is collapsed at time t: the 5-minute
// window ending at t, [t − 300 s, t), is degraded (§6). ok is false when no
// turn completed in that window, so there is no evidence either way.
func (x *RunIndex) CollapsedAt(t float64) (collapsed, ok bool) {
	w := x.Turns.Window(Window{Start: t - AnalysisWindowS, End: t})
	if math.IsNaN(w.HitRatio) {
		return false, false
	}
	return Degraded(w), true
}

// NStar is N* = C / L̄ (§4): how many sessions of mean context L̄ the KV
// pool of C tokens holds. NaN when either is unknown or not positive.
func NStar(kvPoolTokens, meanContext float64) float64 {
	if !(kvPoolTokens > 0) || !(meanContext > 0) {
		return math.NaN()
	}
	return kvPoolTokens / meanContext
}

// OnsetS is the start of the first degraded window of ws (hit ratio below
// DegradedHit, §3), in seconds; NaN when none is. Given a run's analysis
// windows from t = 0 it is when degradation began anywhere in the run,
// the trigger included, whereas Regime.FirstDegradedS counts only from the
// reference time (the trigger's end) for the §3 verdict: when both are
// set, OnsetS ≤ FirstDegradedS.
func OnsetS(ws []TurnWindow) float64 {
	for _, w := range ws {
		if Degraded(w) {
			return w.Start
		}
	}
	return math.NaN()
}
