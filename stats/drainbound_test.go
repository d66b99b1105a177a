package stats

import (
	"math"
	"testing"
)

// TestDrainBoundSE checks the delta method against var(S) = σ̂²·gᵀ(XᵀX)⁻¹g
// computed here from the residuals and the normal equations, on windows
// from c(L) = 0.5 + 1e-4·L with known residuals and a shape of 2 turns,
// ΣL = 30000.
func TestDrainBoundSE(t *testing.T) {
	ws := []CostWindow{
		{Window: Window{Start: 0, End: 120}, Run: "r", Turns: 10, PromptTokens: 1150000},
		{Window: Window{Start: 120, End: 240}, Run: "r", Turns: 20, PromptTokens: 1100000},
		{Window: Window{Start: 240, End: 360}, Run: "r", Turns: 30, PromptTokens: 1000000},
		{Window: Window{Start: 360, End: 480}, Run: "r", Turns: 40, PromptTokens: 1050000},
	}
	fit, err := FitColdCost(ws)
	if err != nil {
		t.Fatal(err)
	}
	v, se := DrainBoundSE(fit, ws, []int64{10000, 20000})
	// Normal equations: XᵀX = [[Σn², ΣnL], [ΣnL, ΣL²]].
	var s00, s01, s11, rss float64
	for _, w := range ws {
		n, l := float64(w.Turns), float64(w.PromptTokens)
		s00, s01, s11 = s00+n*n, s01+n*l, s11+l*l
		r := w.Len() - fit.A*n - fit.B*l
		rss += r * r
	}
	det := s00*s11 - s01*s01
	sigma2 := rss / float64(len(ws)-2)
	g0, g1 := 2.0, 30000.0
	varS := sigma2 * (g0*g0*s11 - 2*g0*g1*s01 + g1*g1*s00) / det
	S := 2*fit.A + 30000*fit.B
	checkNear(t, "1/S", v, 1/S, 1e-9/S)
	checkNear(t, "se(1/S)", se, math.Sqrt(varS)/(S*S), 1e-9*se)

	// One window: XᵀX is singular, no standard error.
	if _, se := DrainBoundSE(fit, ws[:1], []int64{10000}); !math.IsNaN(se) {
		t.Errorf("singular XᵀX: se %v, want NaN", se)
	}
}
