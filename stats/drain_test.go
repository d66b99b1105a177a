package stats

import (
	"math"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

func drainRun() *schema.RunData {
	rd := &schema.RunData{Run: schema.Run{Run: "dr", DurationS: 1801, TriggerKind: "rate-change", TriggerStartS: new(float64(600)),
		TriggerRateAfter: new(float64(0.01)), OutputTokens: new(int64(300)), ToolTokens: new(int64(1024)), Turns: new(int64(2))}}
	rd.Sessions = []schema.Session{
		{Session: "s4", ArriveS: 100, EndS: new(float64(650)), Status: "done", ContextTokens: new(int64(500))},
		{Session: "s1", ArriveS: 600, Status: "open", ContextTokens: new(int64(1000))},
		{Session: "s2", ArriveS: 1200, Status: "open", ContextTokens: new(int64(1000))},
		{Session: "s3", ArriveS: 1700, Status: "open", TurnsPlanned: new(int64(3))},
	}
	rd.Turns = []schema.Turn{
		turn("s2", 0, 1300, 1000, 0),
		turn("s3", 0, 1790, 2000, 0),
		turn("s3", 1, 1795, 3324, 0),
	}
	return rd
}

func TestRemainingColdWork(t *testing.T) {
	// c(L) = 0.5 s + 1 ms·L, growth 300 + 1024 = 1324 tokens per turn.
	// t=600:  s1 (L 1000, 2324) 4.324 + s4 (L 500, 1824) 3.324 = 7.648
	// t=1200: s1 4.324 + s2 (no turn done yet) 4.324 = 8.648
	// t=1800: s1 4.324 + s2 (turn 1 left, L 2324) 2.824
	//         + s3 (3 planned, 2 done, latest prompt 3324 → L 4648) 5.148 = 12.296
	// OLS on hours (1/6, 1/3, 1/2): slope 13.944/h, SE 4.58647 (exact
	// rational arithmetic).
	fit := CostFit{A: 0.5, B: 0.001}
	for _, rd := range []*schema.RunData{drainRun(), shuffled(drainRun(), 3)} {
		d, err := NewRunIndex(rd).RemainingColdWork(fit)
		if err != nil {
			t.Fatal(err)
		}
		want := []DrainPoint{{600, 7.648, 2, 0}, {1200, 8.648, 2, 0}, {1800, 12.296, 3, 0}}
		if len(d.Points) != len(want) {
			t.Fatalf("points %+v", d.Points)
		}
		for k, p := range d.Points {
			if p.T != want[k].T || p.Sessions != want[k].Sessions || !near(p.ColdWorkS, want[k].ColdWorkS, 1e-9) {
				t.Errorf("point %d = %+v, want %+v", k, p, want[k])
			}
		}
		checkNear(t, "slope", d.SlopePerHour, 13.944, 1e-9)
		checkNear(t, "se", d.SEPerHour, 4.586470538442387, 1e-9)
		checkNear(t, "rate", d.RateAfter, 0.01, 0)
	}
}

// TestRemainingColdWorkEndSample checks that the sample at the run's end is
// in the fit (the paper fits over the whole post-change interval) and that
// the sessions still open then are in the system, while one that ended at
// that moment is not. The run of TestRemainingColdWork ending at 1800 s
// instead of 1801 s: the same three samples, now the last at the end.
//
//	W = 7.648, 8.648, 12.296 at t = 1/6, 1/3, 1/2 h (see above).
//	x̄ = 1/3, Sxx = 2·(1/6)² = 1/18, Sxy = (1/6)·(12.296 − 7.648) = 0.774667,
//	slope = Sxy/Sxx = 13.944 /h; ȳ = 9.530667, residuals 0.441333,
//	−0.882667, 0.441333, RSS = 1.168651, SE = √(RSS/(3−2)·18) = 4.58647.
//
// Without the end sample the fit had two points: (8.648 − 7.648)·6 =
// 6 /h, and no SE.
func TestRemainingColdWorkEndSample(t *testing.T) {
	rd := drainRun()
	rd.Run.DurationS = 1800
	rd.Sessions = append(rd.Sessions, schema.Session{Session: "s5", ArriveS: 1750, EndS: new(float64(1800)), Status: "done", ContextTokens: new(int64(800))})
	d, err := NewRunIndex(rd).RemainingColdWork(CostFit{A: 0.5, B: 0.001})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Points) != 3 || d.Points[2].T != 1800 || d.Points[2].Sessions != 3 || !near(d.Points[2].ColdWorkS, 12.296, 1e-9) {
		t.Fatalf("points %+v, want the end sample at 1800 s with s1, s2, s3 (W 12.296)", d.Points)
	}
	checkNear(t, "slope", d.SlopePerHour, 13.944, 1e-9)
	checkNear(t, "se", d.SEPerHour, math.Sqrt(1.1686506666666667*18), 1e-9)
}

func TestRemainingColdWorkMissing(t *testing.T) {
	rd := drainRun()
	rd.Run.TriggerStartS = nil
	if _, err := NewRunIndex(rd).RemainingColdWork(CostFit{}); err != ErrNoRateChange {
		t.Errorf("err %v", err)
	}
	rd = drainRun()
	rd.Run.ToolTokens = nil
	if _, err := NewRunIndex(rd).RemainingColdWork(CostFit{}); err != ErrNoGrowth {
		t.Errorf("err %v", err)
	}
	rd = drainRun()
	rd.Run.Turns = nil // only s3 has turns_planned
	d, _ := NewRunIndex(rd).RemainingColdWork(CostFit{A: 0.5, B: 0.001})
	if d.Points[2].Skipped != 2 || !near(d.Points[2].ColdWorkS, 5.148, 1e-9) {
		t.Errorf("%+v", d.Points[2])
	}
}

// drainOf is a drain fit of run at rate with n samples, degraded when
// the rate changed or not.
func drainOf(run string, rate, slope, se float64, n int, degraded bool) Drain {
	return Drain{Run: run, RateAfter: rate, SlopePerHour: slope, SEPerHour: se, Points: make([]DrainPoint, n), Degraded: degraded, DegradedKnown: true}
}

func TestDrainBracket(t *testing.T) {
	// §4: −900/h at 0.006; −67 to +132/h at 0.010; +604, +663 at 0.014;
	// growing at 0.018 → bracket 0.010–0.014 around 1/S = 0.013. With 12
	// samples (2 hours every 10 minutes), t(10, 0.975) = 2.2281388520 (scipy
	// stats.t.ppf): ±100 is ±222.8.
	ds := []Drain{
		drainOf("a", 0.014, 604, 100, 12, true), drainOf("b", 0.010, -67, 100, 12, true),
		drainOf("c", 0.006, -900, 100, 12, true), drainOf("d", 0.010, 132, 100, 12, true),
		drainOf("e", 0.018, 300, 100, 12, true), drainOf("f", 0.014, 663, 100, 12, true),
		drainOf("g", 0.010, 20, 100, 12, true), drainOf("h", math.NaN(), 1, 100, 12, true),
	}
	b := NewDrainBracket(ds, 0.0127)
	checkNear(t, "largest draining", b.LargestDraining, 0.006, 0)
	checkNear(t, "largest not growing", b.LargestNotGrowing, 0.010, 0)
	checkNear(t, "smallest growing", b.SmallestGrowing, 0.014, 0)
	if len(b.Rates) != 4 || b.Rates[1].Verdict != DrainUndecided || b.Rates[1].Slopes[0] != -67 || len(b.Rates[1].Runs) != 3 {
		t.Errorf("%+v", b.Rates)
	}
	checkNear(t, "CI low", b.Rates[0].Runs[0].Lo, -900-2.2281388519649385*100, 1e-7)
	checkNear(t, "CI high", b.Rates[0].Runs[0].Hi, -900+2.2281388519649385*100, 1e-7)
	if len(b.LeftOut) != 1 || b.LeftOut[0].Run != "h" {
		t.Errorf("left out %+v", b.LeftOut)
	}
	empty := NewDrainBracket(nil, math.NaN())
	if !math.IsNaN(empty.SmallestGrowing) || !math.IsNaN(empty.LargestDraining) {
		t.Errorf("%+v", empty)
	}
}

// TestDrainBracketAfterCollapse: §4 measures drain after a collapse. A
// seed that never degraded drains at any rate (−204 ± 107/h at 0.018)
// and, pooled, moved the bracket to "did not grow up to 0.018"; left out,
// the collapsed seed alone gives [0.014, 0.018]. A slope of −190 ± 122
// with 11 samples (t(9, 0.975) = 2.2621571627: −466 to +86) is undecided, not
// draining.
func TestDrainBracketAfterCollapse(t *testing.T) {
	ds := []Drain{
		drainOf("s501-0.014", 0.014, -810, 122, 11, true), drainOf("s501-0.018", 0.018, 1067, 116, 11, true),
		drainOf("s502-0.014", 0.014, -176, 113, 11, false), drainOf("s502-0.018", 0.018, -204, 107, 11, false),
	}
	b := NewDrainBracket(ds, 0.0153)
	checkNear(t, "largest not growing", b.LargestNotGrowing, 0.014, 0)
	checkNear(t, "smallest growing", b.SmallestGrowing, 0.018, 0)
	if len(b.Rates) != 2 || len(b.Rates[1].Runs) != 1 || b.Rates[1].Runs[0].Run != "s501-0.018" || len(b.Rates[1].LeftOut) != 1 ||
		b.Rates[1].LeftOut[0].Run != "s502-0.018" || !strings.Contains(b.Rates[1].LeftOut[0].Reason, "not degraded when the rate changed") {
		t.Errorf("rates %+v", b.Rates)
	}
	d := drainOf("x", 0.010, -190, 122, 11, true)
	lo, hi := d.SlopeCI()
	checkNear(t, "CI low", lo, -190-2.2621571627409915*122, 1e-7)
	checkNear(t, "CI high", hi, -190+2.2621571627409915*122, 1e-7)
	if v := d.Verdict(); v != DrainUndecided {
		t.Errorf("−190 ± 122: %s, want undecided", v)
	}
	if v := drainOf("y", 0.010, -190, 122, 2, true).Verdict(); v != "" {
		t.Errorf("two samples: verdict %q, want none", v)
	}
}
