package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

func TestSessionCostPaper(t *testing.T) {
	// §4: c(L) = −0.06 s + 0.146 ms·L over the synthetic shape (6,144
	// tokens growing by 1,324 per turn, 25 turns; ΣL = 25·6144 + 1324·300 =
	// 550,800): S = −1.5 + 80.4168 = 78.9168 s ≈ 78, 1/S ≈ 0.013.
	shape := SyntheticShape(6144, 1324, 25)
	if len(shape) != 25 || shape[0] != 6144 || shape[24] != 37920 {
		t.Fatalf("shape %v", shape)
	}
	fit := CostFit{A: -0.06, B: 0.146e-3}
	s := fit.SessionCost(shape)
	checkNear(t, "S", s, 78.9168, 1e-9)
	checkNear(t, "1/S", DrainBound(s), 0.013, 0.0005)
	// The alternative fit −0.71 s + 0.187 ms·L: S = −17.75 + 102.9996.
	alt := CostFit{A: -0.71, B: 0.187e-3}
	checkNear(t, "alt S", alt.SessionCost(shape), 85.2496, 1e-9)
	checkNear(t, "alt 1/S", DrainBound(alt.SessionCost(shape)), 0.012, 0.0005)
	if !math.IsNaN(DrainBound(0)) || !math.IsNaN(DrainBound(-3)) {
		t.Error("1/S of a non-positive S should be NaN")
	}
	// The manifest's shape is the same.
	rd := &schema.RunData{Run: schema.Run{SystemTokens: new(int64(2048)), TaskTokens: new(int64(4096)), OutputTokens: new(int64(300)), ToolTokens: new(int64(1024)), Turns: new(int64(25))}}
	ws, ok := NewRunIndex(rd).WorkloadShape()
	if !ok || len(ws) != 25 || ws[24] != 37920 {
		t.Errorf("workload shape %v %v", ws, ok)
	}
	rd.Run.ToolTokens = nil
	if _, ok := NewRunIndex(rd).WorkloadShape(); ok {
		t.Error("shape without tool_tokens should not be ok")
	}
}

func costWindow(turns int, prompt int64, length float64) CostWindow {
	return CostWindow{Window: Window{0, length}, Turns: turns, PromptTokens: prompt}
}

func TestFitColdCostExact(t *testing.T) {
	// len = −0.06·n + 1.46e-4·ΣL exactly.
	ws := []CostWindow{
		costWindow(10, 200000, 28.6),
		costWindow(20, 300000, 42.6),
		costWindow(15, 500000, 72.1),
		costWindow(30, 400000, 56.6),
	}
	fit, err := FitColdCost(ws)
	if err != nil {
		t.Fatal(err)
	}
	checkNear(t, "a", fit.A, -0.06, 1e-9)
	checkNear(t, "b", fit.B, 1.46e-4, 1e-12)
	checkNear(t, "R2", fit.R2, 1, 1e-12)
	if fit.N != 4 || !(fit.SEA < 1e-9) || !(fit.SEB < 1e-12) {
		t.Errorf("%+v", fit)
	}
	rev := []CostWindow{ws[3], ws[1], ws[2], ws[0]}
	if fit2, _ := FitColdCost(rev); fit2 != fit {
		t.Errorf("order changed the fit: %+v vs %+v", fit2, fit)
	}
	if _, err := FitColdCost(ws[:2]); err != ErrTooFewWindows {
		t.Errorf("2 windows: %v", err)
	}
}

func TestFitColdCostStandardErrors(t *testing.T) {
	// y = a·n + b·S on (1,0,1), (0,1,2), (1,1,4): XᵀX = [[2,1],[1,2]],
	// Xᵀy = (5,6) → a = 4/3, b = 7/3; residuals −1/3, −1/3, 1/3, RSS = 1/3
	// with 1 degree of freedom; (XᵀX)⁻¹ diagonal 2/3 → SE = √(2/9);
	// uncentred R² = 1 − (1/3)/21.
	fit, err := FitColdCost([]CostWindow{costWindow(1, 0, 1), costWindow(0, 1, 2), costWindow(1, 1, 4)})
	if err != nil {
		t.Fatal(err)
	}
	checkNear(t, "a", fit.A, 4.0/3, 1e-12)
	checkNear(t, "b", fit.B, 7.0/3, 1e-12)
	checkNear(t, "se a", fit.SEA, math.Sqrt(2.0/9), 1e-12)
	checkNear(t, "se b", fit.SEB, math.Sqrt(2.0/9), 1e-12)
	checkNear(t, "R2", fit.R2, 1-1.0/63, 1e-12)
	checkNear(t, "predicted", fit.Predicted(costWindow(1, 1, 4)), 11.0/3, 1e-12)
}

// calibrationRun simulates a cache-disabled engine that serves cold turns
// back to back, each costing c(L)·(1+ε) with c(L) = a + b·L and ε ~ N(0,
// 0.05²); the mean context changes every 2 minutes so that turn count and
// prompt total are not collinear. Running is sampled at 8 every 10 s.
func calibrationRun(seed uint64, a, b float64, windows int) *schema.RunData {
	rng := rand.New(rand.NewPCG(seed, 11))
	dur := float64(windows) * CalibrationWindowS
	rd := &schema.RunData{Run: schema.Run{Run: "cal", DurationS: dur, PrefixCaching: false}}
	now := 0.0
	for k := 0; now < dur; k++ {
		mean := 3000 + 34000*rng.Float64()
		for seg := float64(int(now/CalibrationWindowS)+1) * CalibrationWindowS; now < seg && now < dur; {
			l := int64(mean - 2000 + 4000*rng.Float64())
			now += (a + b*float64(l)) * (1 + 0.05*rng.NormFloat64())
			rd.Turns = append(rd.Turns, schema.Turn{Session: "s", Turn: int32(len(rd.Turns)), DoneS: now, PromptTokens: l, Status: "ok"})
		}
	}
	for t := 0.0; t < dur; t += 10 {
		rd.Engine = append(rd.Engine, schema.EngineSample{TS: t, Source: "metrics", Running: new(float64(8))})
	}
	return rd
}

func TestFitColdCostRecoversModel(t *testing.T) {
	const a, b = -0.06, 0.146e-3
	runs := []*RunIndex{
		NewRunIndex(calibrationRun(1, a, b, 200)),
		NewRunIndex(calibrationRun(2, a, b, 200)),
	}
	ws := CalibrationWindows(runs, ColdCostOptions{})
	if len(ws) < 390 {
		t.Fatalf("only %d windows", len(ws))
	}
	for _, w := range ws {
		if w.RunningFrom != RunningFromEngine || w.MinRunning != 8 {
			t.Fatalf("window %+v", w)
		}
	}
	fit, err := FitColdCost(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fit a=%.4f±%.4f s b=%.5f±%.5f ms R²=%.5f n=%d", fit.A, fit.SEA, fit.B*1e3, fit.SEB*1e3, fit.R2, fit.N)
	// Turns straddling window edges make the residuals slightly
	// correlated, so the tolerance is absolute rather than in standard
	// errors: 0.05 s on a (a cold turn costs 1–5 s) and 1% on b.
	if math.Abs(fit.A-a) > 0.05 || math.Abs(fit.B/b-1) > 0.01 {
		t.Errorf("fit %+v does not recover a=%v b=%v", fit, a, b)
	}
	if !(fit.SEA > 0 && fit.SEB > 0 && fit.R2 > 0.99) {
		t.Errorf("fit %+v: want positive standard errors and R² > 0.99", fit)
	}
	// Cache-enabled runs are not calibration runs.
	runs[0].Data.Run.PrefixCaching = true
	if n := len(CalibrationWindows(runs[:1], ColdCostOptions{})); n != 0 {
		t.Errorf("cache-enabled run gave %d calibration windows", n)
	}
}

func TestColdCostWindowsGatewayFallback(t *testing.T) {
	// No engine samples: in-flight turns from sent_s/done_s. Three
	// background turns span the run; a fourth ends at 130, so only the
	// first window has ≥ 4 in flight throughout.
	rd := &schema.RunData{Run: schema.Run{Run: "g", DurationS: 360}}
	bg := func(id string, done float64) schema.Turn {
		tt := turn(id, 0, done, 1000, 0)
		tt.SentS = new(float64(0))
		return tt
	}
	a := turn("a", 0, 60, 5000, 0)
	a.SentS = new(float64(10))
	bb := turn("b", 0, 200, 5000, 0)
	bb.SentS = new(float64(150))
	rd.Turns = []schema.Turn{bg("x", 359), bg("y", 359), bg("z", 359), bg("w", 130), a, bb}
	ws := NewRunIndex(rd).ColdCostWindows(ColdCostOptions{})
	if len(ws) != 1 || ws[0].Start != 0 || ws[0].Turns != 1 || ws[0].PromptTokens != 5000 || ws[0].RunningFrom != RunningFromGateway || ws[0].MinRunning != 4 {
		t.Errorf("got %+v", ws)
	}
}

func TestAllMissWindows(t *testing.T) {
	// A persistently degraded cache-enabled run: every turn misses after
	// minute 20, except one window [2400, 2520) with half its turns warm.
	rd := hitRun(3600, 1200, func(t float64) float64 {
		switch {
		case t < 1200:
			return 0.95
		case t >= 2400 && t < 2520 && int(t)%20 == 5:
			return 0.9
		}
		return 0.1
	})
	for t := 0.0; t < 3600; t += 10 {
		rd.Engine = append(rd.Engine, schema.EngineSample{TS: t, Running: new(float64(16))})
	}
	x := NewRunIndex(rd)
	ws := AllMissWindows([]*RunIndex{x}, ColdCostOptions{})
	// 2-minute windows from 1200 to 3600 = 20, minus the mixed one.
	if len(ws) != 19 {
		t.Errorf("%d all-miss windows, want 19", len(ws))
	}
	for _, w := range ws {
		if w.LowCacheShare != 1 || w.Start < 1200 || w.Start == 2400 {
			t.Errorf("window %+v", w)
		}
	}
	rd.Run.PrefixCaching = false
	if n := len(AllMissWindows([]*RunIndex{NewRunIndex(rd)}, ColdCostOptions{})); n != 0 {
		t.Errorf("cache-disabled run gave %d all-miss windows", n)
	}
}
