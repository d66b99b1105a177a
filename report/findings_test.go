package report

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// findingTexts returns the texts of the findings of sum, warnings marked.
func findingTexts(sum *Summary) []string {
	var out []string
	for _, f := range sum.Findings {
		s := f.Text
		if f.Warning {
			s = "! " + s
		}
		out = append(out, s)
	}
	return out
}

func checkTexts(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestFindingsPerDesign checks the sentence of every design on the
// hand-built dataset, whose numbers are known by construction
// (fixture_test.go):
//   - calibration: three windows fitted exactly, a = 1 s, b = 0.1 ms/token;
//     the shape 1000 + 100·k over 25 turns gives S = 25·1 + 1e-4·(25·1000 +
//     100·300) = 30.5 s and 1/S = 0.0328/s;
//   - drain: one run at λ = 0.005/s, degraded when the rate changed and
//     recovered 5 minutes later, whose W(t) is flat (undecided) and the
//     same 1/S;
//   - mix-shift: one run, not degraded at the end; the p90 of its two
//     first-turn waits, 0.5 min and 60 min (never served), is 0.5 + 0.9 ·
//     59.5 = 54.05 min;
//   - observe: one run never degraded;
//   - paired: seeds 1 and 2 degrade only the burst run, seed 3 neither:
//     two discordant pairs, p = 2·(1/2)² = 0.5; the burst runs' 40
//     sessions of 1000 tokens fill 0.40 of the 100,000-token pool, no
//     working set beyond it: a warning (so for prevention's and
//     recovery's persistent runs, at 0.08 and 0.20);
//   - prevention: the run without control degrades, the budgeter's not;
//   - recovery: three seeds collapsed in both arms, the budgeter recovers
//     all three in the first window (<5 min), no control none: McNemar p =
//     2·(1/2)³ = 0.25;
//   - latency (paired, recovery, observe): TTFT 0.5 s while the hit ratio
//     holds and 1.9 s while it is down, so a run degraded at its end has an
//     end TTFT p90 of 1.9 s; both within the default SLO's 2 s.
func TestFindingsPerDesign(t *testing.T) {
	_, sum := buildFixture(t, Options{})
	checkTexts(t, findingTexts(sum), []string{
		"cal-test: a cold turn of context L costs c(L) = 1.000 s + 0.1000 ms/token × L (R² 1.000, 3 windows); a session of shape 1000+100×k, 25 turns costs S = 30.5 engine-s when every turn misses, so the degraded regime drains only below λ = 1/S = 0.0328 sessions/s.",
		"cal-test: 1 run: uncached.",
		"drain-test: the remaining cold work W(t) did not grow up to λ = 0.005 sessions/s, the largest rate after the change; no rate made it grow (1 run degraded when the rate changed; a rate grows or drains when every run's 95% slope interval lies above or below 0); the model's bound is 1/S = 0.0328.",
		"drain-test: 1 run: recovered-alone.",
		"mix-test: no arm ended degraded after the shift; the runs that kept the cache made first-phase sessions wait up to 54.0 min at the 90th percentile (cap-10).",
		"mix-test: 1 run: never-degraded.",
		"observe-test: no run ended degraded.",
		"observe-test: TTFT p90 over the last 10 minutes: o1 (0.5 s, goodput 100%); goodput with TTFT ≤ 2s, TPOT ≤ 100ms.",
		"observe-test: 1 run: never-degraded.",
		"paired-test: bursts left 2 of 3 servers persistently degraded, their twins 0 (exact sign test p = 0.5, 3 pairs). At the end, the burst runs' median hit ratio was 0.10 against their twins' 0.95, with 40.0 sessions in the system against 8.0 (3 pairs: too few for a 95% interval of a median, which needs 6).",
		"paired-test: the burst runs' TTFT p90 over the last 10 minutes was 1.9 s (twins 0.5 s; medians of 3 runs each); goodput 100% (twins 100%) with TTFT ≤ 2s, TPOT ≤ 100ms.",
		"paired-test: 6 runs: 2 persistent, 4 never-degraded.",
		"! paired-test: 2 runs were persistent by the hit ratio, but without the mechanism of the degraded regime (D/C ≥ 1 over the last 5 minutes and at least 2× the sessions in the system of the healthy twin, else of the run before its trigger, §4): s1-burst (D/C 0.40, 40.0 sessions against 8.0 (twin)), s2-burst (D/C 0.40, 40.0 sessions against 8.0 (twin)). A low hit ratio without a working set beyond the pool and a backlog is not the metastable regime: check the workload's reuse and the cache counts.",
		"prevention-test: persistently degraded after the burst trigger: budgeter 0 of 1, none 1 of 1.",
		"prevention-test: 2 runs: 1 persistent, 1 never-degraded.",
		"! prevention-test: 1 run was persistent by the hit ratio, but without the mechanism of the degraded regime (D/C ≥ 1 over the last 5 minutes and at least 2× the sessions in the system of the healthy twin, else of the run before its trigger, §4): p-none (D/C 0.08, 8.0 sessions against 8.0 (pre-trigger)). A low hit ratio without a working set beyond the pool and a backlog is not the metastable regime: check the workload's reuse and the cache counts.",
		"recovery-test: budgeter recovered 3 of 3 collapsed runs within 5 minutes, no control 0 of 3.",
		"recovery-test: on the 3 seeds collapsed in every arm, budgeter recovered 3 and none 0 (exact paired test p = 0.25).",
		"recovery-test: TTFT p90 over the last 10 minutes (median of each arm's runs): no control 1.9 s, budgeter 0.5 s; goodput no control 100%, budgeter 100% with TTFT ≤ 2s, TPOT ≤ 100ms.",
		"recovery-test: 6 runs: 3 persistent, 3 recovered-under-control.",
		"! recovery-test: 3 runs were persistent by the hit ratio, but without the mechanism of the degraded regime (D/C ≥ 1 over the last 5 minutes and at least 2× the sessions in the system of the healthy twin, else of the run before its trigger, §4): r1-none (D/C 0.20, 20.0 sessions against 20.0 (pre-trigger)), r2-none (D/C 0.20, 20.0 sessions against 20.0 (pre-trigger)), r3-none (D/C 0.20, 20.0 sessions against 20.0 (pre-trigger)). A low hit ratio without a working set beyond the pool and a backlog is not the metastable regime: check the workload's reuse and the cache counts.",
	})
	f := find(t, "finding", sum.Findings, func(f SummaryFinding) string { return f.Kind }, "sign-test")
	if f.Experiment != "paired-test" || f.Design != "paired" || !same(f.Numbers["p"], 0.5) || !same(f.Numbers["burst_persistent"], 2) || !same(f.Numbers["pairs"], 3) {
		t.Errorf("sign-test finding = %+v", f)
	}
	doc, _ := buildFixture(t, Options{})
	if doc.Sections[0].ID != "findings" {
		t.Errorf("first section is %q, want the findings", doc.Sections[0].ID)
	}
}

// observeRun is a 60-minute observed run whose gateway sees a hit ratio of
// 0.95 for 20 minutes and 0.10 from then on (persistently degraded from
// the window [1200, 1500)), with the engine's own counters at engineHit.
func observeRun(name string, engineHit func(t float64) float64) *schema.RunData {
	rd := fakeRun{Name: name, Experiment: "obs", Design: "observe", Arm: "none", Seed: 1, Sessions: 8,
		DropS: 1200, RecoverS: inf, ControlStartS: math.NaN(), DurationS: 3600}.build()
	if engineHit != nil {
		withEngine(rd, engineHit)
	}
	return rd
}

// TestEngineGatewayDisagreement: the engine's counters say 0.6 throughout
// while the gateway sees 0.95 in the 4 windows before the drop at 1200 s
// and 0.10 in the 8 after it, so all 12 windows differ by more than 0.1:
// engine − gateway is −0.35 four times and +0.5 eight times, on average
// (4·(−0.35) + 8·0.5)/12 = 0.2166…. A run whose engine agrees is not
// flagged, nor one whose engine lags the drop by two windows.
func TestEngineGatewayDisagreement(t *testing.T) {
	agree := observeRun("agrees", func(t float64) float64 {
		if t >= 1200 {
			return 0.1
		}
		return 0.95
	})
	differ := observeRun("differs", func(float64) float64 { return 0.6 })
	brief := observeRun("brief", func(t float64) float64 {
		if t >= 1200 && t < 1800 {
			return 0.95 // the engine lags the drop by two windows
		}
		if t >= 1200 {
			return 0.1
		}
		return 0.95
	})
	_, sum, err := Build([]*schema.RunData{agree, differ, brief}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var flagged []string
	for _, f := range sum.Findings {
		if f.Kind == "engine-disagrees" {
			flagged = append(flagged, f.Runs...)
			if !f.Warning || !same(f.Numbers["differs.windows"], 12) || !same(f.Numbers["differs.differing"], 12) || !same(f.Numbers["differs.mean_diff"], (4*(-0.35)+8*0.5)/12) {
				t.Errorf("disagreement finding = %+v", f)
			}
			// The engine's ratio is above the gateway's on average: the
			// gateway received fewer cached tokens than the engine counted.
			if !strings.Contains(f.Text, "obs: the engine's hit ratio (from the metrics' prefix-cache counters) differs from the gateway's by more than 0.1 in several 5-minute windows: differs (12 of 12 windows, engine − gateway +0.22 on average). Likely cause: the gateway received fewer cached tokens") {
				t.Errorf("text = %q", f.Text)
			}
		}
	}
	if fmt.Sprint(flagged) != "[differs]" {
		t.Errorf("flagged %v, want only the run whose engine differs", flagged)
	}
	for _, r := range sum.Runs {
		a := r.EngineAgreement
		if a == nil || a.Windows != 12 {
			t.Fatalf("%s: agreement %+v, want 12 windows", r.Run, a)
		}
		// The verdicts stay the gateway's: disagreement is a warning.
		if r.Verdict != "persistent" {
			t.Errorf("%s: verdict %s, want persistent", r.Run, r.Verdict)
		}
	}
	if a := find(t, "run", sum.Runs, func(r SummaryRun) string { return r.Run }, "brief").EngineAgreement; a.Differing != 2 || a.Disagree {
		t.Errorf("brief: %+v, want 2 differing windows and no flag", a)
	}
}

// TestCachedTokensNotReported: runs.cache_reported false (as ingest
// records it) gives no hit-ratio verdict, and the run is flagged with the
// engine's own hit ratio. In a dataset written before that column, a run
// none of whose turns carried a cached-token count is treated the same,
// with an engine that shows hits (0.9) or without engine data; an engine
// that counts no hit either confirms the gateway, and the verdict stands.
func TestCachedTokensNotReported(t *testing.T) {
	hits := withoutCachedTokens(observeRun("engine-hits", func(float64) float64 { return 0.9 }))
	blind := withoutCachedTokens(observeRun("no-engine", nil))
	zero := withoutCachedTokens(observeRun("engine-zero", func(float64) float64 { return 0 }))
	recorded := observeRun("recorded", func(float64) float64 { return 0.9 })
	no := false
	recorded.Run.CacheReported = &no
	_, sum, err := Build([]*schema.RunData{hits, blind, zero, recorded}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Without counts a run has no hit ratio and no onset; with the
	// engine's zero confirmed, the first window is degraded: onset 0.
	nan := math.NaN()
	for _, tc := range []struct {
		run, verdict   string
		endHit, onsetS float64
	}{
		{"engine-hits", "cache-unreported", nan, nan},
		{"no-engine", "cache-unreported", nan, nan},
		{"engine-zero", "persistent", 0, 0},
		{"recorded", "cache-unreported", nan, nan},
	} {
		r := find(t, "run", sum.Runs, func(r SummaryRun) string { return r.Run }, tc.run)
		if r.Verdict != tc.verdict || !same(r.EndHitRatio, tc.endHit) || r.CacheReported == nil || *r.CacheReported || !same(r.OnsetS, tc.onsetS) {
			t.Errorf("%s: verdict %s, end hit %v, cache_reported %v, onset %v; want %s, %v, false, %v", r.Run, r.Verdict, r.EndHitRatio, r.CacheReported, r.OnsetS, tc.verdict, tc.endHit, tc.onsetS)
		}
	}
	var warned []string
	for _, f := range sum.Findings {
		switch f.Kind {
		case "cache-unreported":
			warned = f.Runs
			want := "obs: the gateway logs of engine-hits (engine hit ratio 0.90), no-engine (no engine hit count), recorded (engine hit ratio 0.90) hold no cached-token counts, so there is no gateway hit ratio and no hit-ratio verdict. An engine reports cached tokens to its clients only when asked (vLLM --enable-prompt-tokens-details, SGLang --enable-cache-report), and some load generators do not record them."
			if !f.Warning || f.Text != want || !same(f.Numbers["engine_shows_hits"], 2) {
				t.Errorf("finding = %+v\nwant text %q", f, want)
			}
		case "engine-disagrees":
			t.Errorf("a run without cached tokens is flagged once, as such, not as a disagreement: %+v", f)
		}
	}
	if fmt.Sprint(warned) != "[engine-hits no-engine recorded]" {
		t.Errorf("warned about %v", warned)
	}
}

// TestWarningFindings: lines rejected in lenient mode, an engine log that
// gave no sample (format drift) and a run whose gateway records stop 20
// minutes before its planned end are each told once, naming their runs.
func TestWarningFindings(t *testing.T) {
	rejected := observeRun("rejected", nil)
	rejected.Run.RejectedLines = 3
	drift := observeRun("drift", nil)
	drift.Run.EngineLogSHA256 = "e-drift" // a log was read, no sample came out of it
	cut := observeRun("cut", nil)
	kept := cut.Turns[:0]
	for _, tn := range cut.Turns {
		if tn.DoneS <= 2400 {
			kept = append(kept, tn)
		}
	}
	cut.Turns = kept
	for i := range cut.Sessions {
		end := 2400.0
		cut.Sessions[i].EndS, cut.Sessions[i].Status = &end, "aborted"
	}
	// Degraded from its first minute: never healthy anywhere, which a
	// workload that reuses little looks like as much as a collapse does.
	low := fakeRun{Name: "low", Experiment: "obs", Design: "observe", Arm: "none", Seed: 1, Sessions: 8,
		DropS: 0, RecoverS: inf, ControlStartS: math.NaN(), DurationS: 3600}.build()
	_, sum, err := Build([]*schema.RunData{rejected, drift, cut, low}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range sum.Findings {
		if f.Warning {
			got = append(got, f.Kind+" "+fmt.Sprint(f.Runs)+": "+f.Text)
		}
	}
	checkTexts(t, got, []string{
		"rejected-lines [rejected]: obs: 3 input lines were rejected in lenient mode: rejected (3 lines). The numbers leave them out (a rejected whole, such as a sampled GuideLLM benchmark read with --lenient, makes its run's numbers a sample's); the dataset's _rejects/ holds each with its reason.",
		"format-drift [drift]: obs: the engine log of drift gave no engine sample: its format may have drifted from what outlast reads (ingest warned), so the engine's view of that run is empty.",
		"low-peak-hit [low]: obs: the hit ratio of low (0.10) never reached 0.8 in any 5-minute window (highest in brackets): the verdicts' thresholds (degraded below 0.5, healthy from 0.8, §3) assume sessions that reuse their context, so a workload that reuses little (single-turn sessions, a small shared prefix) reads degraded without any collapse; compare that run with a twin of the same workload rather than with the thresholds.",
		"cut-short [cut]: obs: 1 run was cut short: the gateway's records end more than 5 minutes before the planned end (cut (minute 40 of 60)); the end-of-run measures describe an earlier time.",
		// The runs are persistent with 8 sessions of 1000 tokens against a
		// pool of 100,000; low is told by low-peak-hit, cut's end is none.
		"mechanism-absent [drift rejected]: obs: 2 runs were persistent by the hit ratio, but without the mechanism of the degraded regime (D/C ≥ 1 over the last 5 minutes and at least 2× the sessions in the system of the healthy twin, else of the run before its trigger, §4): drift (D/C 0.08, 8.0 sessions), rejected (D/C 0.08, 8.0 sessions). A low hit ratio without a working set beyond the pool and a backlog is not the metastable regime: check the workload's reuse and the cache counts.",
	})
}

// TestRecoveryTestTellsTheTellingPair builds a recovery experiment of one
// seed collapsed in every arm, where admission-cap and aimd do not recover
// and budgeter does: every pairwise p is 1, and the finding compares a
// pair that differs (budgeter against one that did not recover), not the
// first pair by name.
func TestRecoveryTestTellsTheTellingPair(t *testing.T) {
	var runs []*schema.RunData
	for _, arm := range []string{"admission-cap", "aimd", "budgeter"} {
		r := fakeRun{Name: "r1-" + arm, Experiment: "rec", Design: "recovery", Arm: arm, Seed: 1,
			Sessions: 20, DropS: 600, RecoverS: inf, TriggerKind: "burst", TriggerStartS: 300, TriggerEndS: 540,
			ControlKind: arm, ControlStartS: 1200, DurationS: 3600}
		if arm == "budgeter" {
			r.RecoverS = 1200
		}
		runs = append(runs, r.build())
	}
	_, sum, err := Build(runs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := find(t, "finding", sum.Findings, func(f SummaryFinding) string { return f.Kind }, "recovery-test")
	if !strings.Contains(f.Text, "admission-cap recovered 0 and budgeter 1") {
		t.Errorf("recovery-test finding %q, want budgeter against an arm that did not recover", f.Text)
	}
}

// TestNegativeInterceptIsWarned fits c(L) to windows of 4 s turns at
// 50,000 tokens, 2 s at 30,000 and 1 s at 20,000: c(L) = −1 s + 0.1
// ms/token × L, which gives no cost below 10,000 tokens. The finding says
// so, as a warning.
func TestNegativeInterceptIsWarned(t *testing.T) {
	_, sum, err := Build([]*schema.RunData{calibrationRunOf([3]calWindow{{30, 50000}, {60, 30000}, {120, 20000}})}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := find(t, "finding", sum.Findings, func(f SummaryFinding) string { return f.Kind }, "cost-fit")
	if !f.Warning || !math.IsNaN(float64(f.Numbers["S"])) || !strings.Contains(f.Text, "c(L) = -1.000 s + 0.1000 ms/token") || !strings.Contains(f.Text, "intercept a is negative, which no cost is: the line gives c(L) < 0 below L = 10000 tokens") || !strings.Contains(f.Text, "the fit gives no positive S, so no drain bound") {
		t.Errorf("cost-fit finding %+v", f)
	}
}

// TestSignTestNamesTheTrigger builds pairs whose burst arm ran a cache
// flush: the finding says flushes, not bursts; and pairs whose twins ran
// the same flush, which test nothing a trigger did: a warning says so.
func TestSignTestNamesTheTrigger(t *testing.T) {
	build := func(twinKind string) SummaryFinding {
		var runs []*schema.RunData
		for _, arm := range []string{"burst", "no-burst"} {
			kind := "flush"
			if arm == "no-burst" {
				kind = twinKind
			}
			r := fakeRun{Name: "s1-" + arm, Experiment: "p", Design: "paired", Arm: arm, Seed: 1,
				Sessions: 8, DropS: inf, RecoverS: inf, TriggerKind: kind, TriggerStartS: 900, TriggerEndS: 900,
				ControlStartS: math.NaN(), DurationS: 3600}
			runs = append(runs, r.build())
		}
		_, sum, err := Build(runs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return find(t, "finding", sum.Findings, func(f SummaryFinding) string { return f.Kind }, "sign-test")
	}
	if f := build("none"); f.Warning || !strings.HasPrefix(f.Text, "p: cache flushes left 0 of 1 servers") {
		t.Errorf("flush against a twin without one: %+v", f)
	}
	if f := build("flush"); !f.Warning || !strings.Contains(f.Text, `the "burst" arm and its twins ran the same trigger (flush), so the pairs test nothing a trigger did`) {
		t.Errorf("flush in both arms: %+v", f)
	}
}

// TestDrainWithoutFitIsTold: a drain experiment in a dataset with no c(L)
// fit (no calibration runs, no all-miss windows) had a warning in its
// section only; its findings said nothing of the drain bracket, the
// design's result. It is a drain-bracket warning, with the bracket unknown.
func TestDrainWithoutFitIsTold(t *testing.T) {
	var runs []*schema.RunData
	for _, r := range fixtureRuns() {
		if r.Run.Experiment == "drain-test" {
			runs = append(runs, r)
		}
	}
	_, sum, err := Build(runs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got *SummaryFinding
	for i, f := range sum.Findings {
		if f.Kind == "drain-bracket" {
			got = &sum.Findings[i]
		}
	}
	if got == nil {
		t.Fatalf("no drain-bracket finding: %q", findingTexts(sum))
	}
	want := "drain-test: no c(L) fit (neither caching-off calibration runs nor enough all-miss windows of persistently degraded runs), so W(t) cannot be computed and the drain bracket is unknown."
	if !got.Warning || got.Text != want {
		t.Errorf("finding %q (warning %v), want the warning %q", got.Text, got.Warning, want)
	}
	for _, k := range []string{"largest_not_growing", "smallest_growing", "largest_draining", "model_rate"} {
		if v, ok := got.Numbers[k]; !ok || !math.IsNaN(float64(v)) {
			t.Errorf("numbers[%s] = %v, want null", k, v)
		}
	}
}

// TestDrainBracketOutOfOrder: the bracket's sentence said W(t) "did not
// grow up to λ = 0.010" when it grew at 0.006 and drained at 0.010 (the
// largest rate not growing is 0.010, whatever grew below it). Rates whose
// verdicts do not order into a bracket are said to, as a warning, and the
// numbers carry the growing rate below.
func TestDrainBracketOutOfOrder(t *testing.T) {
	pts := make([]stats.DrainPoint, 11)
	drain := func(run string, rate, slope float64) stats.Drain {
		return stats.Drain{Run: run, RateAfter: rate, Points: pts, SlopePerHour: slope, SEPerHour: 10, Degraded: true, DegradedKnown: true}
	}
	br := stats.NewDrainBracket([]stats.Drain{drain("a", 0.006, 300), drain("b", 0.010, -300), drain("c", 0.018, 400)}, 0.0153)
	b := &builder{sum: &Summary{}}
	b.drainFinding(&experiment{name: "drain-x", label: "drain-x", design: schema.DesignDrain}, br)
	f := b.sum.Findings[0]
	want := "drain-x: the remaining cold work W(t) grew at λ = 0.006 sessions/s, below 0.01, at which it did not grow, so the rates do not bracket the drain condition; it grew from λ = 0.018 (3 runs degraded when the rate changed; a rate grows or drains when every run's 95% slope interval lies above or below 0); the model's bound is 1/S = 0.0153."
	if f.Text != want || !f.Warning {
		t.Errorf("finding %q (warning %v)\nwant the warning %q", f.Text, f.Warning, want)
	}
	if v := f.Numbers["grows_below"]; float64(v) != 0.006 {
		t.Errorf("grows_below = %v, want 0.006", v)
	}
}
