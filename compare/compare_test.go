package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// fakeRun is a run with the outcomes the tests set by hand, so that the
// statistics can be checked against values computed by hand.
type fakeRun struct {
	name       string
	seed       int64 // 0: no seed
	arm        string
	persistent bool
	endHit     float64
	sessions   float64
	turnsPerS  float64
	model      string
	// cachingOff makes a run without a prefix cache: every turn is cold,
	// so its hit ratio is low from the start and the regime test calls it
	// persistent, but its verdict is uncached.
	cachingOff bool
	// ttft is every latency percentile of the run, goodput its goodput;
	// 0: the run has no latency (NaN).
	ttft, goodput float64
}

func (f fakeRun) facts() *runFacts {
	lambda, pool := 0.035, int64(400000)
	start, end := 900.0, 1200.0
	r := schema.Run{Run: f.name, Design: "paired", Arm: f.arm, PrefixCaching: true,
		ArrivalRate: &lambda, KVPoolTokens: &pool, TriggerKind: "none", TriggerStartS: &start, TriggerEndS: &end,
		ControlKind: "none", EngineModel: f.model}
	if f.arm == "burst" {
		r.TriggerKind = "burst"
	}
	s := stats.RunSummary{Run: f.name, Arm: f.arm, Persistent: f.persistent, EndHit: f.endHit, EndSessions: f.sessions,
		Verdict: stats.VerdictNeverDegraded, RecoveryMin: math.NaN()}
	if f.seed != 0 {
		seed := f.seed
		r.Seed, s.Seed = &seed, &seed
	}
	if f.persistent {
		s.Verdict = stats.VerdictPersistent
	}
	if f.cachingOff {
		r.PrefixCaching = false
		s.Persistent, s.Verdict = true, stats.VerdictUncached
	}
	nan := math.NaN()
	p := stats.Percentiles{P50: nan, P90: nan, P99: nan}
	l := stats.TurnLatency{TTFT: p, EndTTFT: p, TPOT: p, E2E: p, Queue: p, Goodput: stats.NewProportion(0, 0)}
	if f.ttft != 0 {
		p = stats.Percentiles{N: 100, P50: f.ttft, P90: f.ttft, P99: f.ttft}
		l.TTFT, l.EndTTFT, l.TPOT, l.E2E = p, p, p, p
		l.Goodput = stats.Proportion{K: int(100 * f.goodput), N: 100, Fraction: f.goodput}
	}
	return &runFacts{run: r, summary: s, endTurnsPerS: f.turnsPerS, latency: l}
}

func facts(runs ...fakeRun) []*runFacts {
	out := make([]*runFacts, len(runs))
	for i, r := range runs {
		out[i] = r.facts()
	}
	return out
}

// seeds returns n runs of arm with seeds from first; collapsed says which
// (by index) degraded persistently, and hit gives each its end hit ratio.
func seeds(prefix string, first int64, n int, arm string, collapsed func(i int) bool, hit func(i int) float64) []fakeRun {
	var out []fakeRun
	for i := 0; i < n; i++ {
		out = append(out, fakeRun{name: prefix + string(rune('a'+i)), seed: first + int64(i), arm: arm,
			persistent: collapsed(i), endHit: hit(i), sessions: 10 + float64(i), turnsPerS: 1})
	}
	return out
}

func never(int) bool    { return false }
func always(int) bool   { return true }
func hit95(int) float64 { return 0.95 }
func mustCompare(t *testing.T, labels []string, cols [][]*runFacts, o Options) *Result {
	t.Helper()
	res, err := compareFacts(labels, cols, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func table(t *testing.T, res *Result, id string) *Table {
	t.Helper()
	for _, tb := range res.Tables {
		if tb.Measure.ID == id {
			return tb
		}
	}
	t.Fatalf("no table %s", id)
	return nil
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestCollapsePairedMcNemar(t *testing.T) {
	// 6 seeds: none collapses in A, all in B: 6 discordant pairs, all one
	// way, exact McNemar p = 2·2⁻⁶ = 0.03125.
	a := facts(seeds("a", 1, 6, "no-burst", never, hit95)...)
	b := facts(seeds("b", 1, 6, "no-burst", always, hit95)...)
	res := mustCompare(t, []string{"A", "B"}, [][]*runFacts{a, b}, Options{})
	tb := table(t, res, MeasureCollapseRate)
	if len(tb.Rows) != 1 {
		t.Fatalf("rows = %d, want 1", len(tb.Rows))
	}
	c := tb.Rows[0].Cells[1]
	d := c.Vs
	if d.Test != TestMcNemar || !d.Paired || d.Pairs != 6 {
		t.Fatalf("test %s paired %v pairs %d, want mcnemar on 6 pairs", d.Test, d.Paired, d.Pairs)
	}
	if !near(float64(d.P), 0.03125) || !near(float64(d.PAdjusted), 0.03125) || !d.Significant {
		t.Errorf("p = %v adjusted %v significant %v, want 0.03125, 0.03125, true", d.P, d.PAdjusted, d.Significant)
	}
	if !near(float64(d.Diff), 1) || !d.Higher {
		t.Errorf("diff = %v, want +1 (100 points)", d.Diff)
	}
	if got, want := tb.Measure.DeltaText(d), "+100 pp (p=0.031 n=6 pairs)"; got != want {
		t.Errorf("delta text %q, want %q", got, want)
	}
	if got := tb.Measure.CellText(c); got != "6/6" {
		t.Errorf("cell %q, want 6/6", got)
	}
	if len(c.Footnotes) != 0 {
		t.Errorf("unexpected footnotes %v", tb.Footnotes)
	}
	// Wilson 95% interval of 0/6: [0, z²/(6+z²)] = [0, 0.39034].
	if lo, hi := float64(tb.Rows[0].Cells[0].Lo), float64(tb.Rows[0].Cells[0].Hi); lo != 0 || math.Abs(hi-0.390338) > 1e-5 {
		t.Errorf("Wilson interval of 0/6 = [%v, %v], want [0, 0.390338]", lo, hi)
	}
}

func TestCollapseIndependentFisher(t *testing.T) {
	// Different seeds: independent. 0/6 against 6/6: Fisher two-sided
	// p = 2/C(12,6) = 2/924.
	a := facts(seeds("a", 1, 6, "burst", never, hit95)...)
	b := facts(seeds("b", 101, 6, "burst", always, hit95)...)
	res := mustCompare(t, []string{"A", "B"}, [][]*runFacts{a, b}, Options{})
	d := table(t, res, MeasureCollapseRate).Rows[0].Cells[1].Vs
	if d.Test != TestFisher || d.Paired {
		t.Fatalf("test %s paired %v, want independent fisher", d.Test, d.Paired)
	}
	if !near(float64(d.P), 2.0/924) {
		t.Errorf("p = %v, want %v", d.P, 2.0/924)
	}
	if !near(float64(d.MinP), 2.0/924) {
		t.Errorf("min p = %v, want %v", d.MinP, 2.0/924)
	}
}

func TestHolmAcrossRows(t *testing.T) {
	// Row burst: 6 discordant pairs one way, p = 0.03125; row no-burst:
	// no discordant pair, p = 1. Holm over 2 rows: 2·0.03125 = 0.0625 > α,
	// so the burst row is "~"; the no-burst row stays 1.
	a := facts(append(seeds("a", 1, 6, "burst", never, hit95), seeds("c", 1, 6, "no-burst", never, hit95)...)...)
	b := facts(append(seeds("b", 1, 6, "burst", always, hit95), seeds("d", 1, 6, "no-burst", never, hit95)...)...)
	res := mustCompare(t, []string{"A", "B"}, [][]*runFacts{a, b}, Options{})
	tb := table(t, res, MeasureCollapseRate)
	if len(tb.Rows) != 2 || tb.Rows[0].Config != "arm=burst" || tb.Rows[1].Config != "arm=no-burst" {
		t.Fatalf("rows %v", tb.Rows)
	}
	d0, d1 := tb.Rows[0].Cells[1].Vs, tb.Rows[1].Cells[1].Vs
	if !near(float64(d0.P), 0.03125) || !near(float64(d0.PAdjusted), 0.0625) || d0.Significant {
		t.Errorf("burst: p %v adjusted %v significant %v, want 0.03125, 0.0625, false", d0.P, d0.PAdjusted, d0.Significant)
	}
	if !near(float64(d1.PAdjusted), 1) {
		t.Errorf("no-burst adjusted p = %v, want 1", d1.PAdjusted)
	}
	// 0.0625 prints as 0.062 or 0.063 depending on the last bit.
	if got := tb.Measure.DeltaText(d0); !strings.HasPrefix(got, "~ (p=0.06") || !strings.HasSuffix(got, " n=6 pairs)") {
		t.Errorf("delta text %q", got)
	}
	if !strings.Contains(tb.Method, "Holm-adjusted across 2 rows") {
		t.Errorf("method %q does not state Holm", tb.Method)
	}
	// Without Holm the raw p decides.
	res = mustCompare(t, []string{"A", "B"}, [][]*runFacts{a, b}, Options{NoHolm: true})
	if d := table(t, res, MeasureCollapseRate).Rows[0].Cells[1].Vs; !d.Significant || !near(float64(d.PAdjusted), 0.03125) {
		t.Errorf("no Holm: adjusted %v significant %v", d.PAdjusted, d.Significant)
	}
	// The trigger follows from the arm, so the labels leave it out.
	if got := res.Tables[0].Rows[0].Key; len(got) != 2 || got[1].Name != FieldTrigger {
		t.Errorf("row key %v, want arm and trigger", got)
	}
}

func TestHitRatioMannWhitney(t *testing.T) {
	// Independent 3 against 3, every B value above every A value: exact
	// Mann-Whitney p = 2·1/C(6,3) = 0.1, which is also the smallest p
	// possible, above α: a footnote says so. Median A 0.90, B 0.95.
	ha := []float64{0.89, 0.90, 0.91}
	hb := []float64{0.94, 0.95, 0.96}
	a := facts(seeds("a", 1, 3, "burst", never, func(i int) float64 { return ha[i] })...)
	b := facts(seeds("b", 11, 3, "burst", never, func(i int) float64 { return hb[i] })...)
	res := mustCompare(t, []string{"A", "B"}, [][]*runFacts{a, b}, Options{})
	tb := table(t, res, MeasureEndHit)
	c := tb.Rows[0].Cells[1]
	d := c.Vs
	if d.Test != TestMannWhitney || !near(float64(d.P), 0.1) || !near(float64(d.MinP), 0.1) || d.Significant {
		t.Fatalf("test %s p %v min p %v significant %v", d.Test, d.P, d.MinP, d.Significant)
	}
	if !near(float64(d.Diff), 0.05) {
		t.Errorf("diff = %v, want 0.05", d.Diff)
	}
	if len(c.Footnotes) != 1 || !strings.Contains(tb.Footnotes[0], "smallest possible p is 0.100") {
		t.Errorf("footnotes %v", tb.Footnotes)
	}
	// 3 runs are too few for a 95% interval: it is not there, not ∞.
	if got := tb.Measure.CellText(tb.Rows[0].Cells[0]); got != "0.900 ± n/a (3 runs)" {
		t.Errorf("cell %q, want 0.900 ± n/a (3 runs)", got)
	}
}

func TestHitRatioPairedSignAndHealthyOnly(t *testing.T) {
	// 7 seeds; seed 7 collapsed in B, so only 6 pairs count (healthy runs
	// only), and B is lower on all 6: sign test p = 2·2⁻⁶ = 0.03125; the
	// median paired difference is −0.05. Unpaired runs: seed 7 of A.
	a := facts(seeds("a", 1, 7, "no-burst", never, func(i int) float64 { return 0.95 })...)
	b := facts(seeds("b", 1, 7, "no-burst", func(i int) bool { return i == 6 }, func(i int) float64 { return 0.90 })...)
	res := mustCompare(t, []string{"A", "B"}, [][]*runFacts{a, b}, Options{})
	tb := table(t, res, MeasureEndHit)
	c := tb.Rows[0].Cells[1]
	d := c.Vs
	if c.Runs != 6 || d.Test != TestSign || d.Pairs != 6 {
		t.Fatalf("runs %d test %s pairs %d, want 6 healthy runs, sign test on 6 pairs", c.Runs, d.Test, d.Pairs)
	}
	if !near(float64(d.P), 0.03125) || !d.Significant || d.Higher {
		t.Errorf("p %v significant %v higher %v", d.P, d.Significant, d.Higher)
	}
	if !near(float64(d.Diff), -0.05) {
		t.Errorf("diff %v, want -0.05", d.Diff)
	}
	if got := tb.Measure.DeltaText(d); got != "-0.050 (p=0.031 n=6 pairs)" {
		t.Errorf("delta %q", got)
	}
	if len(c.Footnotes) != 1 || !strings.Contains(tb.Footnotes[0], "1 run(s) without a partner seed") {
		t.Errorf("footnotes %v", tb.Footnotes)
	}
}

func TestUnmatchedAndHidden(t *testing.T) {
	a := facts(
		fakeRun{name: "a1", seed: 1, arm: "burst", endHit: 0.9, model: "m1"},
		fakeRun{name: "a2", seed: 1, arm: "no-burst", endHit: 0.9, model: "m2"},
	)
	b := facts(fakeRun{name: "b1", seed: 1, arm: "burst", endHit: 0.9, model: "m1"})
	res := mustCompare(t, []string{"A", "B"}, [][]*runFacts{a, b}, Options{})
	tb := table(t, res, MeasureCollapseRate)
	if len(tb.Rows) != 2 {
		t.Fatalf("rows %d", len(tb.Rows))
	}
	miss := tb.Rows[1].Cells[1]
	if miss.Runs != 0 || miss.Vs != nil || len(miss.Footnotes) != 1 || tb.Footnotes[miss.Footnotes[0]-1] != "configuration not in B" {
		t.Errorf("missing cell %+v, footnotes %v", miss, tb.Footnotes)
	}
	// Each arm's cell has one model: no hidden difference.
	for _, f := range tb.Footnotes {
		if strings.Contains(f, "hides") {
			t.Errorf("footnote %q: nothing is hidden", f)
		}
	}
	a = append(a, fakeRun{name: "a3", seed: 2, arm: "burst", endHit: 0.9, model: "m2"}.facts())
	res = mustCompare(t, []string{"A", "B"}, [][]*runFacts{a, b}, Options{})
	tb = table(t, res, MeasureCollapseRate)
	c := tb.Rows[0].Cells[0]
	if len(c.Footnotes) != 1 || tb.Footnotes[c.Footnotes[0]-1] != "runs of A differ in engine_model (m1, m2), which the grouping hides" {
		t.Errorf("cell footnotes %v of %q", c.Footnotes, tb.Footnotes)
	}
}

func TestIgnoreAndErrors(t *testing.T) {
	a := facts(fakeRun{name: "a", seed: 1, arm: "burst"})
	b := facts(fakeRun{name: "b", seed: 1, arm: "no-burst"})
	res := mustCompare(t, []string{"A", "B"}, [][]*runFacts{a, b}, Options{Ignore: []string{"arm", "trigger_kind"}})
	if tb := table(t, res, MeasureCollapseRate); len(tb.Rows) != 1 || tb.Rows[0].Config != "all" || tb.Rows[0].Cells[1].Vs == nil {
		t.Errorf("ignoring arm and trigger should match the two runs: %+v", tb.Rows)
	}
	if _, err := compareFacts([]string{"A", "B"}, [][]*runFacts{a, b}, Options{Ignore: []string{"engine_version"}}); err == nil {
		t.Error("ignoring a column outside the key: no error")
	}
	if _, err := compareFacts([]string{"A", "A"}, [][]*runFacts{a, b}, Options{}); err == nil {
		t.Error("duplicate labels: no error")
	}
	if _, err := compareFacts([]string{"A"}, [][]*runFacts{a}, Options{}); err == nil {
		t.Error("one column: no error")
	}
	if _, err := compareFacts([]string{"A", "B"}, [][]*runFacts{a, b}, Options{Measures: []string{"nope"}}); err == nil {
		t.Error("unknown measure: no error")
	}
}

func TestRecoveryNotRecoveredTies(t *testing.T) {
	// A median and an interval end that are runs not recovered (+∞, which
	// stats.Median ranks last) print as n.r.
	m, _ := MeasureByID(MeasureRecovery)
	c := &Cell{Runs: 2, Value: Float(math.NaN()), valueInf: true, Lo: 3, Hi: Float(math.NaN()), hiInf: true}
	if got := m.CellText(c); got != "n.r. [3, n.r.]" {
		t.Errorf("cell %q", got)
	}
}

func TestRecoveryWithinFirstWindow(t *testing.T) {
	// A recovery of 0 minutes is one within the first 5-minute window: the
	// report prints it "<5", as the paper does, and so does compare; other
	// measures print 0 as a number.
	rec, _ := MeasureByID(MeasureRecovery)
	ses, _ := MeasureByID(MeasureEndSessions)
	for _, tc := range []struct {
		m    Measure
		c    *Cell
		want string
	}{
		{rec, &Cell{Runs: 1, Value: 0, Lo: Float(math.NaN()), Hi: Float(math.NaN())}, "<5 ± n/a (one run)"},
		{rec, &Cell{Runs: 6, Value: 0, Lo: 0, Hi: 12}, "<5 [<5, 12]"},
		{rec, &Cell{Runs: 6, Value: 7, Lo: 0, Hi: 12}, "7 [<5, 12]"},
		{rec, &Cell{Runs: 6, Value: 8, Lo: 6, Hi: 12}, "8 ± 50%"},
		{ses, &Cell{Runs: 8, Value: 7.7, Lo: 5.9, Hi: 22}, "7.7 [5.9, 22.0]"},
		{ses, &Cell{Runs: 6, Value: 0, Lo: 0, Hi: 2}, "0.0 [0.0, 2.0]"},
	} {
		if got := tc.m.CellText(tc.c); got != tc.want {
			t.Errorf("%s %+v: %q, want %q", tc.m.ID, *tc.c, got, tc.want)
		}
	}
}

func TestFitDelta(t *testing.T) {
	// a = 1 ± 0.3, b = 2 ± 0.4: difference 1 with se 0.5, z = 2,
	// p = erfc(2/√2) = 0.0455002638963584, interval 1 ± 1.959964·0.5.
	d := fitDelta(1, 0.3, 2, 0.4, 0.95, columnFit{}, columnFit{})
	if !near(float64(d.P), 0.0455002638963584) || !near(float64(d.Diff), 1) || !near(float64(d.Percent), 100) {
		t.Errorf("p %v diff %v percent %v", d.P, d.Diff, d.Percent)
	}
	if !near(float64(d.DiffLo), 1-0.979981992270027) || !near(float64(d.DiffHi), 1+0.979981992270027) {
		t.Errorf("interval [%v, %v]", d.DiffLo, d.DiffHi)
	}
}

func TestSortValues(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0.28.0 0.10.1 0.4.4 0.8.2 0.5.15", "0.4.4 0.5.15 0.8.2 0.10.1 0.28.0"},
		{"400000 null 200000 1e5", "1e5 200000 400000 null"},
		{"vllm sglang", "sglang vllm"},
		{"v1.2rc1 v1.2 v1.10", "v1.2 v1.2rc1 v1.10"},
	} {
		vals := strings.Fields(tc.in)
		sortValues(vals)
		if got := strings.Join(vals, " "); got != tc.want {
			t.Errorf("sortValues(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestRunsColumn(t *testing.T) {
	seed, pool := int64(7), int64(400000)
	r := &schema.Run{Run: "r", EngineVersion: "0.8.2", Seed: &seed, KVPoolTokens: &pool, Labels: `{"gpu":"mi300x","n":2}`}
	for col, want := range map[string]string{
		"engine_version": "0.8.2", "seed": "7", "kv_pool_tokens": "400000", "arrival_rate": "null",
		"prefix_caching": "false", "label.gpu": "mi300x", "label.n": "2", "label.none": "null", "run": "r",
	} {
		if got, err := RunsColumn(r, col); err != nil || got != want {
			t.Errorf("RunsColumn(%s) = %q, %v; want %q", col, got, err, want)
		}
	}
	if _, err := RunsColumn(r, "nope"); err == nil {
		t.Error("unknown column: no error")
	}
}

// TestCollapseLeavesOutCachingOff checks that runs without a prefix cache,
// which the regime test finds degraded from the start and the report calls
// uncached, are not counted as collapsed: their own configuration keeps an
// empty row with a footnote, and when the caching field is ignored they
// leave the k/n of the caching-on runs unchanged, with the footnote.
func TestCollapseLeavesOutCachingOff(t *testing.T) {
	off := func(prefix string, seed int64) fakeRun {
		return fakeRun{name: prefix, seed: seed, arm: "no-burst", cachingOff: true, endHit: 0.02}
	}
	a := facts(append(seeds("a", 1, 3, "no-burst", never, hit95), off("ax", 11), off("ay", 12))...)
	b := facts(append(seeds("b", 1, 3, "no-burst", never, hit95), off("bx", 11), off("by", 12))...)
	const note = "2 run(s) left out: prefix caching off (no second regime to collapse into; the report's verdict: uncached), or persistence unknown (no turn, cached tokens unreported, no turn in the last 10 minutes, a trigger that never ran or left no 5-minute window after it)"

	// Only the collapse rate: the fits of caching-off runs need whole runs.
	only := []string{MeasureCollapseRate}
	res := mustCompare(t, []string{"A", "B"}, [][]*runFacts{a, b}, Options{Measures: only})
	tb := table(t, res, MeasureCollapseRate)
	if len(tb.Rows) != 2 || tb.Rows[0].Config != "caching=on" || tb.Rows[1].Config != "caching=off" {
		t.Fatalf("rows %+v, want caching=on and caching=off", tb.Rows)
	}
	for j, c := range tb.Rows[1].Cells {
		if c.Runs != 0 || c.Count != 0 || !math.IsNaN(float64(c.Value)) || c.Vs != nil {
			t.Errorf("caching=off, column %d: %d/%d value %v vs %v; want no runs counted, no test", j, c.Count, c.Runs, c.Value, c.Vs)
		}
		if len(c.Footnotes) != 1 || tb.Footnotes[c.Footnotes[0]-1] != note {
			t.Errorf("caching=off, column %d: footnotes %v of %q, want %q", j, c.Footnotes, tb.Footnotes, note)
		}
	}
	if got := tb.Measure.CellText(tb.Rows[0].Cells[1]); got != "0/3" {
		t.Errorf("caching=on cell %q, want 0/3", got)
	}

	res = mustCompare(t, []string{"A", "B"}, [][]*runFacts{a, b}, Options{Ignore: []string{"caching"}, Measures: only})
	tb = table(t, res, MeasureCollapseRate)
	if len(tb.Rows) != 1 {
		t.Fatalf("rows %d, want 1", len(tb.Rows))
	}
	for j, c := range tb.Rows[0].Cells {
		if got := tb.Measure.CellText(c); got != "0/3" || len(c.Footnotes) != 1 || tb.Footnotes[c.Footnotes[0]-1] != note {
			t.Errorf("column %d: %q with footnotes %v of %q; want 0/3 and %q", j, got, c.Footnotes, tb.Footnotes, note)
		}
	}
	// Three caching-on pairs, all tied (none collapsed): p = 1 with no
	// "too few runs" note: the seeds agree.
	if d := tb.Rows[0].Cells[1].Vs; d == nil || d.Test != TestMcNemar || !near(float64(d.P), 1) || d.Pairs != 3 {
		t.Errorf("test %+v, want exact McNemar on the 3 caching-on pairs, p = 1", d)
	}
}

// TestTooFewRunsCountsUntiedPairs checks the smallest possible p of the
// paired tests against the exact sign test of the untied pairs, by hand:
// 8 seed pairs of which 5 tie leave 3 that can move p, and the most
// extreme split of 3, 0 against 3, has p = 2·(1/2)³ = 0.25 > α = 0.05, so
// no difference could be detected and the footnote says so. Counting the
// 8 pairs gave 2·(1/2)⁸ = 0.0078 and no footnote.
func TestTooFewRunsCountsUntiedPairs(t *testing.T) {
	a := facts(seeds("a", 1, 8, "burst", func(i int) bool { return i < 5 }, hit95)...)
	b := facts(seeds("b", 1, 8, "burst", always, hit95)...)
	res := mustCompare(t, []string{"A", "B"}, [][]*runFacts{a, b}, Options{})
	tb := table(t, res, MeasureCollapseRate)
	c := tb.Rows[0].Cells[1]
	d := c.Vs
	if d.Test != TestMcNemar || d.Pairs != 8 || !near(float64(d.P), 0.25) || !near(float64(d.MinP), 0.25) {
		t.Fatalf("test %s pairs %d p %v min p %v; want mcnemar, 8 pairs, p = min p = 0.25", d.Test, d.Pairs, d.P, d.MinP)
	}
	want := "too few runs to detect a difference at α = 0.05: 5 of 8 pairs tie, and with 3 untied the smallest possible p is 0.250"
	if len(c.Footnotes) != 1 || tb.Footnotes[c.Footnotes[0]-1] != want {
		t.Errorf("footnotes %v of %q, want %q", c.Footnotes, tb.Footnotes, want)
	}

	// The sign test likewise: 8 pairs of end hit ratios, 6 equal and 2
	// higher in B: 2 untied, smallest p 2·(1/2)² = 0.5, also the p.
	hb := []float64{0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.97, 0.98}
	a = facts(seeds("a", 1, 8, "burst", never, hit95)...)
	b = facts(seeds("b", 1, 8, "burst", never, func(i int) float64 { return hb[i] })...)
	res = mustCompare(t, []string{"A", "B"}, [][]*runFacts{a, b}, Options{})
	tb = table(t, res, MeasureEndHit)
	c = tb.Rows[0].Cells[1]
	if d := c.Vs; d.Test != TestSign || !near(float64(d.P), 0.5) || !near(float64(d.MinP), 0.5) {
		t.Fatalf("test %s p %v min p %v; want the sign test, p = min p = 0.5", d.Test, d.P, d.MinP)
	}
	want = "too few runs to detect a difference at α = 0.05: 6 of 8 pairs tie, and with 2 untied the smallest possible p is 0.500"
	if len(c.Footnotes) != 1 || tb.Footnotes[c.Footnotes[0]-1] != want {
		t.Errorf("footnotes %v of %q, want %q", c.Footnotes, tb.Footnotes, want)
	}

	// Without ties the footnote is as before: 3 pairs, 2·(1/2)³ = 0.25.
	a = facts(seeds("a", 1, 3, "burst", never, hit95)...)
	b = facts(seeds("b", 1, 3, "burst", always, hit95)...)
	tb = table(t, mustCompare(t, []string{"A", "B"}, [][]*runFacts{a, b}, Options{}), MeasureCollapseRate)
	if got := tb.Footnotes; len(got) != 1 || got[0] != "too few runs to detect a difference at α = 0.05: the smallest possible p is 0.250" {
		t.Errorf("footnotes %q", got)
	}
}

// TestLatencyRegressionFlagged: latency is better lower, goodput higher;
// a significant change the other way is flagged worse, one the right way
// is not. 6 seed pairs all one way: sign test p = 2·2⁻⁶ = 0.03125.
func TestLatencyRegressionFlagged(t *testing.T) {
	base := seeds("a", 1, 6, "burst", never, hit95)
	slow := seeds("b", 1, 6, "burst", never, hit95)
	for i := range base {
		base[i].ttft, base[i].goodput = 0.2+0.01*float64(i), 0.99
		slow[i].ttft, slow[i].goodput = 5+float64(i), 0.5
	}
	res := mustCompare(t, []string{"A", "B"}, [][]*runFacts{facts(base...), facts(slow...)}, Options{})
	for _, id := range []string{MeasureTTFTP90, MeasureEndTTFTP90, MeasureTPOTP90, MeasureE2EP90, MeasureGoodput} {
		tb := table(t, res, id)
		d := tb.Rows[0].Cells[1].Vs
		if d.Test != TestSign || !near(float64(d.P), 0.03125) || !d.Significant || !d.Worse {
			t.Errorf("%s: %+v, want a significant regression", id, d)
		}
		if txt := tb.Measure.DeltaText(d); !strings.Contains(txt, " worse (p=0.031 n=6 pairs)") {
			t.Errorf("%s: %q does not flag the regression", id, txt)
		}
		if !strings.Contains(tb.Method, "is better (worse: a significant regression)") {
			t.Errorf("%s: method %q", id, tb.Method)
		}
	}
	if tb := table(t, res, MeasureTTFTP90); !near(float64(tb.Rows[0].Cells[1].Value), 7.5) {
		t.Errorf("median TTFT p90 of B = %v, want 7.5 (the mean of 7 and 8)", tb.Rows[0].Cells[1].Value)
	}
	// The other way round: faster, with more goodput, is no regression.
	res = mustCompare(t, []string{"B", "A"}, [][]*runFacts{facts(slow...), facts(base...)}, Options{})
	for _, id := range []string{MeasureTTFTP90, MeasureGoodput} {
		d := table(t, res, id).Rows[0].Cells[1].Vs
		if !d.Significant || d.Worse || strings.Contains(table(t, res, id).Measure.DeltaText(d), "worse") {
			t.Errorf("%s: improvement flagged: %+v", id, d)
		}
	}
	// Runs without latency leave the tables out; other measures are not
	// flagged either way.
	res = mustCompare(t, []string{"A", "B"}, [][]*runFacts{facts(seeds("a", 1, 6, "burst", never, hit95)...), facts(seeds("b", 1, 6, "burst", always, hit95)...)}, Options{})
	for _, tb := range res.Tables {
		if tb.Measure.Better != "" {
			t.Errorf("table %s without latency data", tb.Measure.ID)
		}
		for _, row := range tb.Rows {
			if vs := row.Cells[1].Vs; vs != nil && vs.Worse {
				t.Errorf("%s flagged worse: its direction is not judged", tb.Measure.ID)
			}
		}
	}
}
