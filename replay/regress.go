package replay

import (
	"math"
	"math/rand/v2"
	"slices"
)

// The regression behind the engine fit and its error bars: least squares
// through the origin of a window's busy time on the prefill and decode
// time the default costs give its work, and a moving-block bootstrap over
// the windows of each run for the standard errors.

// costWindow is one window of run run (an index into the runs fitted):
// the time the engine was busy in it, and the prefill and decode seconds
// the default costs give the work it did then.
type costWindow struct {
	len, prefill, decode float64
	run                  int
}

// fitKind says which factors a regression estimates; a factor it does not
// estimate is held at 1 (the default cost).
type fitKind int

const (
	fitBoth fitKind = iota
	fitPrefill
	fitDecode
)

// ols fits len = p·prefill + d·decode through the origin, the factors kind
// leaves out held at 1; ok is false when the windows do not determine the
// fit (a singular system).
func ols(ws []costWindow, kind fitKind) (p, d float64, ok bool) {
	var s11, s12, s22, b1, b2 float64
	for _, w := range ws {
		s11 += w.prefill * w.prefill
		s12 += w.prefill * w.decode
		s22 += w.decode * w.decode
		b1 += w.prefill * w.len
		b2 += w.decode * w.len
	}
	switch kind {
	case fitPrefill: // len − decode = p·prefill
		if !(s11 > 0) {
			return 0, 0, false
		}
		return (b1 - s12) / s11, 1, true
	case fitDecode:
		if !(s22 > 0) {
			return 0, 0, false
		}
		return 1, (b2 - s12) / s22, true
	}
	det := s11*s22 - s12*s12
	if !(det > 1e-12*s11*s22) {
		return 0, 0, false
	}
	return (s22*b1 - s12*b2) / det, (s11*b2 - s12*b1) / det, true
}

// r2 is the uncentred R² of the fit (p, d).
func r2(ws []costWindow, p, d float64) float64 {
	var rss, yy float64
	for _, w := range ws {
		r := w.len - p*w.prefill - d*w.decode
		rss += r * r
		yy += w.len * w.len
	}
	return 1 - rss/yy
}

// bootstrapReps is the number of bootstrap replicates; bootstrapSeed
// seeds them, so that a fit is reproducible.
const (
	bootstrapReps = 400
	bootstrapSeed = 0x6f75746c617374
)

// blockLen is the moving-block bootstrap's block length for a run of n
// windows: about n^(1/3) (Künsch's rate), at least 2 and at most n. The
// busy time of consecutive 2-minute windows is serially correlated (a
// load level, a collapse, last many windows), so resampling single
// windows would understate the error.
func blockLen(n int) int {
	l := int(math.Ceil(math.Cbrt(float64(n))))
	return max(min(l, n), min(2, n))
}

// bootstrap returns the covariance of (p, d) over moving-block bootstrap
// replicates of ws: each run's windows resampled in blocks of consecutive
// windows (circular, so each window is equally likely), the runs kept
// apart, and the regression of kind refitted. A factor kind holds fixed
// has variance 0. ok is false when fewer than half the replicates fit.
func bootstrap(ws []costWindow, kind fitKind) (vp, vd, cpd float64, ok bool) {
	var runs [][]costWindow
	for _, w := range ws {
		for w.run >= len(runs) {
			runs = append(runs, nil)
		}
		runs[w.run] = append(runs[w.run], w)
	}
	rng := rand.New(rand.NewPCG(bootstrapSeed, uint64(len(ws))))
	buf := make([]costWindow, 0, len(ws))
	var ps, ds []float64
	for range bootstrapReps {
		buf = buf[:0]
		for _, r := range runs {
			n := len(r)
			if n == 0 {
				continue
			}
			l := blockLen(n)
			for drawn := 0; drawn < n; {
				start := rng.IntN(n)
				for k := 0; k < l && drawn < n; k, drawn = k+1, drawn+1 {
					buf = append(buf, r[(start+k)%n])
				}
			}
		}
		p, d, fitted := ols(buf, kind)
		if !fitted {
			continue
		}
		ps, ds = append(ps, p), append(ds, d)
	}
	if 2*len(ps) < bootstrapReps {
		return math.NaN(), math.NaN(), math.NaN(), false
	}
	// The spread is taken from the replicates' central 68% (±1 SE of a
	// normal): a replicate that drew mostly windows of one kind (all
	// collapsed, say) pins one factor poorly, and a few such replicates
	// would dominate a variance.
	sp, sd := robustSD(ps), robustSD(ds)
	return sp * sp, sd * sd, sp * sd * correlation(ps, ds), true
}

// robustSD is half the width of the central 68.3% of v, the standard
// deviation of a normal.
func robustSD(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	q := func(p float64) float64 {
		h := p * float64(len(s)-1)
		i := int(h)
		if i+1 >= len(s) {
			return s[len(s)-1]
		}
		return s[i] + (h-float64(i))*(s[i+1]-s[i])
	}
	return (q(0.841345) - q(0.158655)) / 2
}

// correlation is the Pearson correlation of x and y, 0 when either is
// constant.
func correlation(x, y []float64) float64 {
	mx, my := mean(x), mean(y)
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if !(sxx > 0 && syy > 0) {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
