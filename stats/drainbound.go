package stats

import "math"

// DrainBoundSE is the drain bound 1/S of a workload shape under a cold-cost
// fit made from windows (DrainBound of CostFit.SessionCost), with its
// standard error by the delta method: se(1/S) = se(S)/S², where
// var(S) = σ̂²·gᵀ(XᵀX)⁻¹g, g = (T, ΣL_k) over the shape's T turns, X has a
// row (n_w, ΣL_w) per window, and σ̂² is recovered from fit.SEB. The
// standard error is NaN when XᵀX is singular.
func DrainBoundSE(fit CostFit, windows []CostWindow, shape []int64) (bound, se float64) {
	s := fit.SessionCost(shape)
	var sumL float64
	for _, l := range shape {
		sumL += float64(l)
	}
	g0, g1 := float64(len(shape)), sumL
	// (XᵀX) over the windows: rows (n_w, ΣL_w).
	var s00, s01, s11 float64
	for _, w := range windows {
		n, l := float64(w.Turns), float64(w.PromptTokens)
		s00 += n * n
		s01 += n * l
		s11 += l * l
	}
	det := s00*s11 - s01*s01
	if !(det > 0) {
		return DrainBound(s), math.NaN()
	}
	i00, i01, i11 := s11/det, -s01/det, s00/det
	sigma2 := fit.SEB * fit.SEB / i11
	varS := sigma2 * (g0*g0*i00 + 2*g0*g1*i01 + g1*g1*i11)
	return DrainBound(s), math.Sqrt(varS) / (s * s)
}
