package stats

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// equalNaN is reflect.DeepEqual with NaN equal to NaN.
func equalNaN(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case reflect.Float64, reflect.Float32:
		x, y := a.Float(), b.Float()
		return x == y || (math.IsNaN(x) && math.IsNaN(y))
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return equalNaN(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !equalNaN(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !equalNaN(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

func TestVerdict(t *testing.T) {
	collapseThen := func(after float64) func(float64) float64 {
		return func(t float64) float64 {
			switch {
			case t < 600:
				return 0.95
			case t < 1200:
				return 0.1
			}
			return after
		}
	}
	nan := math.NaN()
	tests := []struct {
		name      string
		h         func(float64) float64
		kind      string
		control   *float64
		verdict   Verdict
		collapsed bool
		recMin    float64
		// from and at are DegradedFromS and RecoveredAtS.
		from, at float64
	}{
		{"recovered under control", collapseThen(0.95), "budgeter", new(float64(1200)), VerdictRecoveredUnderControl, true, 0, 600, 1200},
		{"persistent under control", collapseThen(0.1), "budgeter", new(float64(1200)), VerdictPersistent, true, nan, 600, nan},
		{"collapsed at control without a controller, recovered", collapseThen(0.95), "none", new(float64(1200)), VerdictRecoveredAlone, true, 0, 600, 1200},
		{"persistent without control", collapseThen(0.1), "", nil, VerdictPersistent, false, nan, 600, nan},
		{"degraded after the trigger, recovered alone", collapseThen(0.95), "", nil, VerdictRecoveredAlone, false, nan, 600, 1200},
		{"control after the recovery: alone", collapseThen(0.95), "budgeter", new(float64(2400)), VerdictRecoveredAlone, false, nan, 600, 1200},
		{"never degraded", func(float64) float64 { return 0.95 }, "", nil, VerdictNeverDegraded, false, nan, nan, nan},
		{"hovering 0.72–0.89 after control, 0.82 overall: recovered", func(t float64) float64 {
			switch {
			case t < 600:
				return 0.95
			case t < 1200:
				return 0.1
			case int(t/300)%2 == 0:
				return 0.89
			}
			return 0.76
		}, "aimd", new(float64(1200)), VerdictRecoveredUnderControl, true, 0, 600, 1200},
		{"back above 0.5 but 0.7 overall: partial", collapseThen(0.7), "budgeter", new(float64(1200)), VerdictPartial, true, nan, 600, nan},
		{"never degraded, end below 0.8: partial", func(t float64) float64 {
			if t > 3000 {
				return 0.6
			}
			return 0.95
		}, "", nil, VerdictPartial, false, nan, nan, nan},
		{"a relapse, then back for the last 11 minutes: recovered from there", func(t float64) float64 {
			if t > 1200 && t < 2700 {
				return 0.95
			}
			if t >= 2700 && t < 3000 {
				return 0.2
			}
			if t >= 600 && t <= 1200 {
				return 0.1
			}
			return 0.95
		}, "", nil, VerdictRecoveredAlone, false, nan, 600, 2940},
		{"control before any collapse: by regime", func(float64) float64 { return 0.95 }, "budgeter", new(float64(1200)), VerdictNeverDegraded, false, nan, nan, nan},
		{"no turn in the last 10 minutes: unknown", func(t float64) float64 {
			if t > 2900 {
				return math.NaN()
			}
			return 0.95
		}, "", nil, VerdictUnknown, false, nan, nan, nan},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rd := hitRun(3600, 600, tc.h)
			rd.Run.TriggerEndS = new(float64(600))
			rd.Run.ControlKind, rd.Run.ControlStartS = tc.kind, tc.control
			s := NewRunIndex(rd).Summarize()
			if s.Verdict != tc.verdict || s.CollapsedAtControl != tc.collapsed || !near(s.RecoveryMin, tc.recMin, 0) ||
				!near(s.DegradedFromS, tc.from, 0) || !near(s.RecoveredAtS, tc.at, 0) {
				t.Errorf("got verdict %s collapsed %v recovery %v degraded %v–%v (%+v); want %s %v %v %v–%v",
					s.Verdict, s.CollapsedAtControl, s.RecoveryMin, s.DegradedFromS, s.RecoveredAtS, s.Recovery, tc.verdict, tc.collapsed, tc.recMin, tc.from, tc.at)
			}
		})
	}
}

// TestVerdictCohort: a run whose hit ratio came back after control but
// which served less than half of the cohort arriving in the 20 minutes
// after control began did not recover: partial, and the reason says so.
func TestVerdictCohort(t *testing.T) {
	for _, tc := range []struct {
		done    int
		verdict Verdict
	}{{4, VerdictRecoveredUnderControl}, {5, VerdictRecoveredUnderControl}, {3, VerdictPartial}} {
		rd := hitRun(3600, 600, func(t float64) float64 {
			if t >= 600 && t < 1200 {
				return 0.1
			}
			return 0.95
		})
		rd.Run.TriggerEndS = new(float64(600))
		rd.Run.ControlKind, rd.Run.ControlStartS = "budgeter", new(float64(1200))
		// 8 sessions arrive in [1200, 2400); done of them finish.
		for i := range 8 {
			s := schema.Session{Session: fmt.Sprintf("c%d", i), ArriveS: 1200 + float64(i)*100, Status: "open"}
			if i < tc.done {
				s.Status, s.EndS = "done", new(s.ArriveS+50)
			}
			rd.Sessions = append(rd.Sessions, s)
		}
		s := NewRunIndex(rd).Summarize()
		if s.Verdict != tc.verdict || s.Recovery == nil || s.Recovery.Cohort != NewProportion(tc.done, 8) {
			t.Errorf("%d of 8 done: verdict %s, recovery %+v; want %s", tc.done, s.Verdict, s.Recovery, tc.verdict)
		}
		if tc.verdict == VerdictPartial && !strings.Contains(s.RecoveryReason, "3 of the 8 sessions") {
			t.Errorf("reason %q does not name the cohort", s.RecoveryReason)
		}
	}
}

// TestVerdictShortRun: a run shorter than the 10-minute end window gets no
// verdict from its end figures (they are its cold start): unknown, not
// partial, and not judged.
func TestVerdictShortRun(t *testing.T) {
	rd := hitRun(240, 0, func(t float64) float64 { return t / 300 })
	s := NewRunIndex(rd).Summarize()
	if !s.Short || s.Verdict != VerdictUnknown || s.Judged() {
		t.Errorf("short %v verdict %s judged %v; want true, unknown, false", s.Short, s.Verdict, s.Judged())
	}
}

// TestNoTurns summarizes a run whose gateway log held nothing: its verdict
// says so, and its end sessions and peak D/C are unknown, not 0.
func TestNoTurns(t *testing.T) {
	rd := demandRun()
	rd.Turns, rd.Sessions = nil, nil
	rd.Run.CacheReported = new(bool)
	s := NewRunIndex(rd).Summarize()
	if s.Verdict != VerdictNoTurns || !math.IsNaN(s.EndSessions) || !math.IsNaN(s.PeakDemandRatio) || !math.IsNaN(s.EndHit) || s.Judged() {
		t.Errorf("verdict %s, end sessions %v, peak D/C %v, end hit %v, judged %v; want no-turns, NaN, NaN, NaN, false",
			s.Verdict, s.EndSessions, s.PeakDemandRatio, s.EndHit, s.Judged())
	}
	if len(s.Warnings) == 0 || !strings.Contains(s.Warnings[0], "no turn") {
		t.Errorf("warnings %q, want one about no turn first", s.Warnings)
	}
	// Sessions that started and logged no turn: how many were in the
	// system is known, their context (so D) is not.
	rd = demandRun()
	rd.Turns = nil
	s = NewRunIndex(rd).Summarize()
	if s.Verdict != VerdictNoTurns || math.IsNaN(s.EndSessions) || !math.IsNaN(s.PeakDemandRatio) {
		t.Errorf("sessions without turns: verdict %s, end sessions %v, peak D/C %v; want no-turns, a number, NaN", s.Verdict, s.EndSessions, s.PeakDemandRatio)
	}
}

// TestTriggerAfterEnd summarizes a burst run shorter than its trigger's
// start: the burst never ran, and the run is not judged.
func TestTriggerAfterEnd(t *testing.T) {
	rd := hitRun(120, 60, func(float64) float64 { return 0.95 })
	rd.Run.TriggerStartS, rd.Run.TriggerEndS = new(float64(900)), new(float64(1200))
	s := NewRunIndex(rd).Summarize()
	if !s.TriggerAfterEnd || s.Judged() || s.Verdict != VerdictUnknown || !strings.Contains(strings.Join(s.Warnings, "\n"), "at or after the run's end (120 s): it never ran") {
		t.Errorf("trigger after end %v, judged %v, warnings %q", s.TriggerAfterEnd, s.Judged(), s.Warnings)
	}
	rd.Run.TriggerStartS = new(float64(60))
	if s := NewRunIndex(rd).Summarize(); s.TriggerAfterEnd {
		t.Errorf("trigger within the run: after end %v", s.TriggerAfterEnd)
	}
}

// TestTriggerEndsAtRunEnd summarizes a run whose burst fills its last five
// minutes: its end hit ratio is the burst's own, and no window after the
// trigger is left to judge persistence by, so the run is unknown and not
// judged (not "partial", not counted as a run the burst left healthy). A
// trigger that ends five minutes earlier leaves one window: judged.
func TestTriggerEndsAtRunEnd(t *testing.T) {
	rd := hitRun(3600, 3600, func(t float64) float64 {
		if t >= 3300 {
			return 0.2
		}
		return 0.95
	})
	rd.Run.TriggerStartS, rd.Run.TriggerEndS = new(float64(3300)), new(float64(3600))
	s := NewRunIndex(rd).Summarize()
	if !s.NoWindowAfter || s.Judged() || s.Verdict != VerdictUnknown || !strings.Contains(strings.Join(s.Warnings, "\n"), "after the trigger's end (3600 s)") {
		t.Errorf("no window after %v, judged %v, verdict %s, warnings %q; want true, false, unknown", s.NoWindowAfter, s.Judged(), s.Verdict, s.Warnings)
	}
	rd.Run.TriggerStartS, rd.Run.TriggerEndS, rd.Run.AlignS = new(float64(3000)), new(float64(3300)), 3300
	s = NewRunIndex(rd).Summarize()
	if s.NoWindowAfter || !s.Judged() || s.Verdict != VerdictPersistent {
		t.Errorf("one window after: no window after %v, judged %v, verdict %s; want false, true, persistent", s.NoWindowAfter, s.Judged(), s.Verdict)
	}
	// Cached tokens unreported: every window's hit ratio is unknown by
	// design, which says nothing of the windows after the trigger.
	rd.Run.CacheReported = new(bool)
	s = NewRunIndex(rd).Summarize()
	if s.NoWindowAfter || s.Verdict != VerdictCacheUnreported {
		t.Errorf("cache unreported: no window after %v, verdict %s; want false, cache-unreported", s.NoWindowAfter, s.Verdict)
	}
}

func TestSummaryValues(t *testing.T) {
	rd := demandRun()
	rd.Run.DurationS = 200
	s := NewRunIndex(rd).Summarize()
	// Last 5 minutes of a 200-s run: the whole run, mean N 1.3.
	checkNear(t, "end sessions", s.EndSessions, 1.3, 1e-12)
	// Turns (ok) 6144, 7468, 5000, 8792 → L̄ 6851; N* = 100000/6851.
	checkNear(t, "mean context", s.MeanContext, 6851, 0)
	checkNear(t, "N*", s.NStar, 100000.0/6851, 1e-12)
	// Peak 1-minute mean of D: [0,60) = (6444·50 + 11744·10)/60; [60,120) =
	// (13068·20 + 12968·20 + 5200·20)/60.
	m0 := (6444.0*50 + 11744*10) / 60
	m1 := (13068.0*20 + 12968*20 + 5200*20) / 60
	checkNear(t, "peak D/C", s.PeakDemandRatio, math.Max(m0, m1)/100000, 1e-12)
}

func summary(run, arm string, seed int64, persistent bool, endHit float64) RunSummary {
	v := VerdictNeverDegraded
	switch {
	case persistent:
		v = VerdictPersistent
	case math.IsNaN(endHit):
		v = VerdictUnknown
	}
	return RunSummary{Run: run, Experiment: "paired-8b", Arm: arm, Seed: new(seed), Verdict: v, Persistent: persistent, EndHit: endHit,
		EndSessions: 10, ControlStartS: math.NaN(), RecoveryMin: math.NaN(), FirstDegradedS: math.NaN()}
}

func TestTable2(t *testing.T) {
	// §3, Table 2: twins 507 and 510 degraded; every burst run but 505.
	var ss []RunSummary
	for seed := int64(501); seed <= 512; seed++ {
		twinP := seed == 507 || seed == 510
		ss = append(ss, summary("twin", "no-burst", seed, twinP, 0.95), summary("burst", "burst", seed, seed != 505, 0.12))
	}
	ss = append(ss, summary("lonely", "burst", 600, true, 0.1))    // no twin: left out
	ss = append(ss, summary("a-dup", "no-burst", 501, false, 0.9)) // duplicate: warned
	for i := range ss {
		ss[i].Run = ss[i].Run + "-" + string(rune('a'+int(*ss[i].Seed%26)))
	}
	tab := NewTable2(ss, "no-burst", "burst")
	if len(tab.Rows) != 12 || tab.BurstOnly != 9 || tab.TwinOnly != 0 || tab.Both != 2 || tab.Neither != 1 {
		t.Errorf("rows %d counts %d %d %d %d", len(tab.Rows), tab.BurstOnly, tab.TwinOnly, tab.Both, tab.Neither)
	}
	checkNear(t, "sign p", tab.SignP, 0.00390625, 1e-12)
	if tab.Rows[0].Seed != 501 || tab.Rows[11].Seed != 512 || len(tab.Warnings) != 2 ||
		tab.Warnings[1] != `1 run(s) without a "no-burst"/"burst" partner of the same seed, left out: lonely-c` {
		t.Errorf("order/warnings: %v %v %v", tab.Rows[0].Seed, tab.Rows[11].Seed, tab.Warnings)
	}
	rev := append([]RunSummary(nil), ss...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	if !equalNaN(reflect.ValueOf(NewTable2(rev, "no-burst", "burst")), reflect.ValueOf(tab)) {
		t.Error("row order changed Table 2")
	}
}

// TestTable2LeavesOutUnjudged pairs runs whose persistence is unknown: a
// pair with such a run is shown but neither counted nor tested, and said
// so; a run stuck at the end (no turn in the last 10 minutes) after a
// persistent collapse is judged persistent.
func TestTable2LeavesOutUnjudged(t *testing.T) {
	nan := math.NaN()
	ss := []RunSummary{
		summary("t1", "no-burst", 1, false, 0.95), summary("b1", "burst", 1, true, 0.1),
		summary("t2", "no-burst", 2, false, 0.95), summary("b2", "burst", 2, false, nan),
		summary("t3", "no-burst", 3, false, nan), summary("b3", "burst", 3, true, 0.1),
		summary("t4", "no-burst", 4, false, 0.95), summary("b4", "burst", 4, true, nan),
	}
	ss[3].Verdict = VerdictCacheUnreported
	ss[4].Verdict = VerdictNoTurns
	for k, want := range []bool{true, true, true, false, false, true, true, true} {
		if got := ss[k].Judged(); got != want {
			t.Errorf("%s: Judged %v, want %v", ss[k].Run, got, want)
		}
	}
	tab := NewTable2(ss, "no-burst", "burst")
	if len(tab.Rows) != 4 || tab.BurstOnly != 2 || tab.TwinOnly != 0 || tab.Both != 0 || tab.Neither != 0 || tab.Unjudged != 2 {
		t.Errorf("rows %d counts %d %d %d %d, unjudged %d; want 4 rows, 2 burst only, 2 unjudged", len(tab.Rows), tab.BurstOnly, tab.TwinOnly, tab.Both, tab.Neither, tab.Unjudged)
	}
	checkNear(t, "sign p", tab.SignP, 0.5, 1e-12)
	want := []string{
		`experiment "paired-8b" seed 2: persistence unknown for b2 (cached tokens unreported); the pair is left out of the counts and the sign test`,
		`experiment "paired-8b" seed 3: persistence unknown for t3 (no turn); the pair is left out of the counts and the sign test`,
	}
	if !reflect.DeepEqual(tab.Warnings, want) {
		t.Errorf("warnings %q, want %q", tab.Warnings, want)
	}
}

func recoverySummary(arm string, seed int64, collapsed bool, minutes float64, endHit, cohort float64) RunSummary {
	s := RunSummary{Run: arm + "-" + string(rune('0'+seed)), Experiment: "recovery-8b", Arm: arm, Seed: new(seed),
		ControlStartS: 1200, CollapsedAtControl: collapsed, EndHit: endHit, RecoveryMin: math.NaN(),
		CohortDone: Proportion{Fraction: cohort}}
	if collapsed {
		r := Recovery{FromS: 1200, Status: NotRecovered, Minutes: math.NaN()}
		if !math.IsNaN(minutes) {
			r.Status, r.Minutes = Recovered, minutes
		}
		s.Recovery, s.RecoveryMin = &r, r.Minutes
	}
	return s
}

func TestTable3(t *testing.T) {
	nan := math.NaN()
	ss := []RunSummary{
		recoverySummary("budgeter", 1, true, 0, 0.95, 1),
		recoverySummary("budgeter", 2, true, 0, 0.93, 1),
		recoverySummary("budgeter", 3, true, 0, 0.94, 1),
		recoverySummary("budgeter", 4, false, nan, 0.95, 1),
		recoverySummary("admission-cap", 1, true, 21, 0.93, 0.92),
		recoverySummary("admission-cap", 2, true, nan, 0.07, 0),
		recoverySummary("admission-cap", 3, true, nan, 0.08, 0.1),
		recoverySummary("admission-cap", 4, true, 23, 0.90, 0.5),
		recoverySummary("session-cap", 1, true, 0, 0.95, 1),
		recoverySummary("session-cap", 2, true, 6, 0.95, 1),
		recoverySummary("session-cap", 3, true, 3, 0.95, 1),
		recoverySummary("session-cap", 4, true, 0, 0.95, 1),
	}
	tab := NewTable3(ss)
	if !reflect.DeepEqual(tab.MatchedSeeds, []int64{1, 2, 3}) {
		t.Fatalf("matched seeds %v", tab.MatchedSeeds)
	}
	type row struct {
		arm          string
		n, rec       int
		recLo, recHi float64
		hitLo, hitHi float64
		cohLo, cohHi float64
	}
	check := func(name string, got []Table3Row, want []row) {
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows", name, len(got))
		}
		for i, w := range want {
			g := got[i]
			if g.Arm != w.arm || g.Collapsed() != w.n || g.Recovered != w.rec || g.RecoverMin != w.recLo || g.RecoverMax != w.recHi ||
				g.EndHitMin != w.hitLo || g.EndHitMax != w.hitHi || g.CohortDoneMin != w.cohLo || g.CohortDoneMax != w.cohHi {
				t.Errorf("%s row %d = %+v, want %+v", name, i, g, w)
			}
		}
	}
	check("all", tab.All, []row{
		{"admission-cap", 4, 2, 21, 23, 0.07, 0.93, 0, 0.92},
		{"budgeter", 3, 3, 0, 0, 0.93, 0.95, 1, 1},
		{"session-cap", 4, 4, 0, 6, 0.95, 0.95, 1, 1},
	})
	check("matched", tab.Matched, []row{
		{"admission-cap", 3, 1, 21, 21, 0.07, 0.93, 0, 0.92},
		{"budgeter", 3, 3, 0, 0, 0.93, 0.95, 1, 1},
		{"session-cap", 3, 3, 0, 6, 0.95, 0.95, 1, 1},
	})
	pr := PairedRecovery(ss, "budgeter", "admission-cap", tab.MatchedSeeds)
	if pr != (Paired2x2{Both: 1, AOnly: 2}) {
		t.Errorf("paired %+v", pr)
	}
	checkNear(t, "McNemar", McNemarExact(pr), 0.5, 1e-12)
	rev := append([]RunSummary(nil), ss...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	if !equalNaN(reflect.ValueOf(NewTable3(rev)), reflect.ValueOf(tab)) {
		t.Error("row order changed Table 3")
	}
}

func TestAnalyzeRowOrderIndependent(t *testing.T) {
	rd := syntheticRun(42, 150)
	a := Analyze(NewRunIndex(rd))
	b := Analyze(NewRunIndex(shuffled(rd, 8)))
	if !equalNaN(reflect.ValueOf(a), reflect.ValueOf(b)) {
		t.Error("row order changed the analysis")
	}
	// Windows aligned to 840 within [0, 5400): [240, 540) ... [5040, 5340).
	if len(a.Minutes) != 90 || len(a.Windows) != 17 || a.Summary.Verdict == "" {
		t.Errorf("minutes %d windows %d verdict %q", len(a.Minutes), len(a.Windows), a.Summary.Verdict)
	}
	for _, p := range a.Minutes {
		if p.Turns > 0 && !(p.HitRatio >= 0 && p.HitRatio <= 1) {
			t.Fatalf("hit %v", p.HitRatio)
		}
		if !(p.Engine.HitRatio >= 0 && p.Engine.HitRatio <= 1) {
			t.Fatalf("engine hit %v", p.Engine.HitRatio)
		}
	}
}

func TestHealthySide(t *testing.T) {
	// λ = 0.035/s, T = 25, Z = 5 s, R₀ = 1 s: N = 5.25 sessions; L̄ = 22,032
	// → 115,668 tokens, 0.28917 of a 400K pool.
	h := NewHealthySide(0.035, 25, 5, 1, 22032, 400000)
	checkNear(t, "population", h.Population, 5.25, 1e-12)
	checkNear(t, "demand", h.DemandTokens, 115668, 1e-6)
	checkNear(t, "ratio", h.Ratio, 0.28917, 1e-12)
	if !h.Fits {
		t.Error("should fit")
	}
	u := NewHealthySide(0.035, 25, 5, 1, 22032, math.NaN())
	if !math.IsNaN(u.Ratio) || u.Fits {
		t.Errorf("unknown C: %+v", u)
	}
}

func TestLittlesLaw(t *testing.T) {
	rd := &schema.RunData{Run: schema.Run{DurationS: 1000, Turns: new(int64(2)), ThinkMeanS: new(float64(5))}}
	rd.Sessions = []schema.Session{
		{Session: "a", ArriveS: 0, EndS: new(float64(50)), Status: "done"},
		{Session: "b", ArriveS: 50, EndS: new(float64(100)), Status: "done"},
	}
	t1 := turn("a", 0, 10, 100, 0)
	t1.ReadyS = new(float64(0))
	t2 := turn("b", 0, 80, 100, 0)
	t2.SentS = new(float64(50)) // no ready_s: from sent_s
	rd.Turns = []schema.Turn{t1, t2}
	l := NewRunIndex(rd).LittlesLaw(Window{0, 100})
	// λ = 2/100, R = (10 + 30)/2 = 20, predicted 0.02·2·(5+20) = 1; observed
	// mean N = (50 + 50)/100 = 1.
	checkNear(t, "lambda", l.Lambda, 0.02, 1e-15)
	checkNear(t, "R", l.ResponseS, 20, 0)
	checkNear(t, "predicted", l.Predicted, 1, 1e-12)
	checkNear(t, "observed", l.Observed, 1, 1e-12)
}

func TestVerdictUncachedAndControlFromStart(t *testing.T) {
	// Every turn misses: with caching on this is persistent degradation.
	cold := func(float64) float64 { return 0.0 }
	on := hitRun(3600, 0, cold)
	if v := NewRunIndex(on).Summarize().Verdict; v != VerdictPersistent {
		t.Fatalf("all-miss run with caching on: verdict %q, want persistent", v)
	}
	// The same run with caching off has no regime to classify.
	off := hitRun(3600, 0, cold)
	off.Run.PrefixCaching = false
	if v := NewRunIndex(off).Summarize().Verdict; v != VerdictUncached {
		t.Errorf("caching off: verdict %q, want uncached", v)
	}
	// A controller on from t=0 (prevention) cannot have found the run
	// collapsed: no recovery, no "collapse unknown" warning.
	prev := hitRun(3600, 0, func(float64) float64 { return 0.95 })
	prev.Run.ControlKind, prev.Run.ControlStartS = "budgeter", new(float64(0))
	s := NewRunIndex(prev).Summarize()
	if s.Verdict != VerdictNeverDegraded || s.Recovery != nil || len(s.Warnings) != 1 {
		t.Errorf("control from t=0: verdict %q recovery %v warnings %q; want never-degraded, none, only the unknown-C warning", s.Verdict, s.Recovery, s.Warnings)
	}
}

// TestVerdictCacheUnreported checks a run whose engine reported no cached
// tokens: not a hit ratio of 0 (which would read as persistent from the
// first window), but no hit ratio, and a verdict that says why; null
// (datasets before the column) reads as reported.
func TestVerdictCacheUnreported(t *testing.T) {
	cold := func(float64) float64 { return 0.0 }
	no := false
	rd := hitRun(3600, 0, cold)
	rd.Run.CacheReported = &no
	rd.Run.ControlKind, rd.Run.ControlStartS = "budgeter", new(float64(1200))
	x := NewRunIndex(rd)
	s := x.Summarize()
	if s.Verdict != VerdictCacheUnreported || s.Persistent || !math.IsNaN(s.EndHit) || s.Recovery != nil {
		t.Errorf("verdict %q persistent %v end hit %v recovery %v; want cache-unreported, no regime, NaN, none",
			s.Verdict, s.Persistent, s.EndHit, s.Recovery)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "--enable-prompt-tokens-details") {
		t.Errorf("warnings %q do not say why", s.Warnings)
	}
	for _, w := range Analyze(x).Windows {
		if w.Turns > 0 && (!math.IsNaN(w.HitRatio) || !math.IsNaN(w.LowCacheShare) || !math.IsNaN(w.RecomputedTokensPerS)) {
			t.Fatalf("window %+v has cache measures", w.TurnWindow)
		}
	}
	rd.Run.CacheReported = nil
	if v := NewRunIndex(rd).Summarize().Verdict; v != VerdictPersistent {
		t.Errorf("cache_reported null: verdict %q, want persistent (all-miss, under control)", v)
	}
}
