package replay

import (
	"math"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/internal/slowtest"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// gateModel is a model fitted to nothing but what the gate reads: the
// observed run's row and an engine fitted by busy windows.
func gateModel(v stats.Verdict, hit, sessions float64) *Fitted {
	return &Fitted{Run: "obs", Observed: stats.RunSummary{Verdict: v, EndHit: hit, EndSessions: sessions},
		Engine: &Engine{Method: MethodBusy, PoolFrom: "manifest"}, observedRun: schema.Run{PrefixCaching: true}}
}

// seedsEnding is an as-is replay whose seeds end as given, seed 1 first.
func seedsEnding(ends ...stats.RunSummary) *VariantResult {
	r := &VariantResult{Variant: Variant{Name: AsIs}}
	for i, s := range ends {
		r.Runs = append(r.Runs, RunResult{Seed: uint64(i + 1), Summary: s})
	}
	return r
}

func repeat(n int, s stats.RunSummary) []stats.RunSummary {
	out := make([]stats.RunSummary, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestGroundingCriterion checks the gate's rule on seeds of known ends: a
// seed reproduces the run only when its verdict, end hit ratio and end
// sessions all match; the run is not reproduced when the 95% upper bound
// of the share that reproduce it is below a quarter (0 of 11: 0.238), is
// when one of 11 does (0.36); fewer than 11 seeds cannot tell, and a run
// the gate refuses is not grounded whatever its seeds do.
func TestGroundingCriterion(t *testing.T) {
	collapsed := stats.RunSummary{Verdict: stats.VerdictPersistent, EndHit: 0.11, EndSessions: 118}
	healthy := stats.RunSummary{Verdict: stats.VerdictNeverDegraded, EndHit: 0.95, EndSessions: 8}
	slow := stats.RunSummary{Verdict: stats.VerdictPersistent, EndHit: 0.12, EndSessions: 40} // collapsed, but later: a third of the backlog
	for _, c := range []struct {
		name     string
		m        *Fitted
		seeds    []stats.RunSummary
		grounded bool
		k        int
		reason   string
	}{
		{"1 of 11 reproduce", gateModel(stats.VerdictPersistent, 0.11, 120), append([]stats.RunSummary{collapsed}, repeat(10, healthy)...), true, 1,
			"reproduced: 1 of 11 as-is seeds reproduce the run (95% upper bound 0.36 of the share, 0.25 wanted): 1 end persistent like it, 1 with an end hit ratio within 0.15 of its 0.11 (median 0.95), 1 with end sessions within ×1.5 or 5 of its 120.0 (median 8.0)"},
		{"0 of 11 reproduce", gateModel(stats.VerdictPersistent, 0.20, 10), repeat(11, healthy), false, 0,
			"not reproduced: 0 of 11 as-is seeds reproduce the run (95% upper bound 0.24 of the share, 0.25 wanted): 0 end persistent like it, 0 with an end hit ratio within 0.15 of its 0.20 (median 0.95), 11 with end sessions within ×1.5 or 5 of its 10.0 (median 8.0)"},
		{"the verdict alone is not enough", gateModel(stats.VerdictPersistent, 0.11, 120), repeat(11, slow), false, 0, "11 end persistent like it"},
		{"too few seeds", gateModel(stats.VerdictPersistent, 0.11, 120), repeat(10, collapsed), false, 10, "undecided: 10 as-is seeds are too few"},
		{"no hit ratio to compare", gateModel(stats.VerdictUncached, math.NaN(), 5), repeat(11, stats.RunSummary{Verdict: stats.VerdictUncached, EndHit: math.NaN(), EndSessions: 7}), true, 11, "11 end uncached like it, 11 with end sessions"},
	} {
		g := c.m.Ground(seedsEnding(c.seeds...))
		if g.Grounded != c.grounded || g.Reproduced.K != c.k || !strings.Contains(g.Reason(), c.reason) {
			t.Errorf("%s: grounded %v, %d reproduce: %s\nwant grounded %v, %d, %q", c.name, g.Grounded, g.Reproduced.K, g.Reason(), c.grounded, c.k, c.reason)
		}
	}
	m := gateModel(stats.VerdictPersistent, 0.11, 120)
	m.Engine.Method = MethodDefaults
	if g := m.Ground(seedsEnding(repeat(11, collapsed)...)); g.Grounded || !strings.HasPrefix(g.Reason(), "refused: too little to ground a replay in") {
		t.Errorf("engine not fitted: grounded %v: %s", g.Grounded, g.Reason())
	}
	if GateSeeds != 11 {
		t.Errorf("GateSeeds %d, want 11 (0.75^11 = 0.042 < 0.05 < 0.75^10 = 0.056)", GateSeeds)
	}
}

// TestGateRefusesWithoutEngineData checks the runs refused before any
// simulation: one that reports no cached tokens (its verdict is unknown),
// one without a KV pool, and one without turn timings.
func TestGateRefusesWithoutEngineData(t *testing.T) {
	for name, want := range map[string]string{
		"guidellm-0.6.1": "it reports no cached tokens",
		"aiperf-2025":    "it gives no KV pool size",
	} {
		if got := mustFit(t, readRun(t, fixture(name))).Refusal(); !strings.Contains(got, want) {
			t.Errorf("%s: refusal %q, want %q", name, got, want)
		}
	}
	if got := mustFit(t, readRun(t, fixture("vllm-0.10"))).Refusal(); got != "" {
		t.Errorf("vllm-0.10: refused: %s", got)
	}
	var specs []sessionSpec
	for i := range 6 {
		specs = append(specs, sessionSpec{name: string(rune('a' + i)), origin: "base", arrive: float64(20 * i), gap: 2, prompts: []int64{1000, 1300}, ended: true})
	}
	rd := fakeRunData(specs...)
	for i := range rd.Turns {
		rd.Turns[i].FirstTokenS = nil
	}
	if got := mustFit(t, rd).Refusal(); !strings.Contains(got, "no timings (first_token_s)") {
		t.Errorf("no turn timings: refusal %q", got)
	}
}

// TestGateNotReproduced replays a run the model cannot reproduce: a light
// load whose hit ratio is 0.2 throughout, as a gateway in front of an
// engine whose cache misses for some other reason would log it (its
// sessions' turns reuse their context; here the cached tokens are cut to
// a fifth). The model, with the pool and load the run had, never
// collapses: no seed ends persistent at a 0.2 hit ratio, and the gate
// says so.
func TestGateNotReproduced(t *testing.T) {
	slowtest.SkipUnderRace(t, "simulates whole runs")
	cfg := mustDefaults(t, schema.DesignPaired)
	cfg.Arms = cfg.Arms[1:] // no burst
	cfg.FirstSeed, cfg.DurationS, cfg.Lambda = 601, 1800, 0.02
	rd := simulated(t, cfg)[0]
	for i := range rd.Turns {
		rd.Turns[i].CachedTokens = rd.Turns[i].PromptTokens / 5 / blockTokens * blockTokens
	}
	m := mustFit(t, rd)
	if err := m.Correct(Options{Out: t.TempDir(), Read: readBack}); err != nil {
		t.Fatal(err)
	}
	res := replayed(t, m, GateSeeds, Variant{Name: AsIs})
	g := m.Ground(&res[0])
	t.Log(g.Reason())
	if g.Grounded || g.Observed.Verdict != stats.VerdictPersistent || g.Same != 0 || !(g.EndHit > 0.8) || !strings.HasPrefix(g.Reason(), "not reproduced: 0 of 11") {
		t.Errorf("observed %s at %.2f: grounded %v, %d of %d end %s, median end hit %.2f: %s", g.Observed.Verdict, g.Observed.EndHit,
			g.Grounded, g.Same, g.Reproduced.N, g.Observed.Verdict, g.EndHit, g.Reason())
	}
}

// TestGateGrounded replays a simulated run that collapsed after its burst:
// the model knows its mechanism, and the gate grounds it.
func TestGateGrounded(t *testing.T) {
	slowtest.SkipUnderRace(t, "simulates whole runs")
	cfg := mustDefaults(t, schema.DesignRecovery)
	cfg.Arms = cfg.Arms[:1]
	cfg.FirstSeed, cfg.DurationS = 503, 1800
	m := mustFit(t, simulated(t, cfg)[0])
	if err := m.Correct(Options{Out: t.TempDir(), Read: readBack}); err != nil {
		t.Fatal(err)
	}
	res := replayed(t, m, GateSeeds, Variant{Name: AsIs})
	g := m.Ground(&res[0])
	t.Log(g.Reason())
	if !g.Grounded || !Persistent(g.Observed.Verdict) {
		t.Errorf("observed %s: %s", g.Observed.Verdict, g.Reason())
	}
}
