package replay

import (
	"fmt"
	"math"
	"testing"

	"github.com/outlast-dev/outlast/internal/slowtest"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
	"github.com/outlast-dev/outlast/stats"
)

// The validations of replay on simulated runs, where the truth is known:
// reduced in the default test run, full scale with -full (go test -run
// Validation -full -v ./replay prints the numbers).

// TestValidationCoverage measures how often the engine fit's ±2 SE
// intervals contain the simulator's true factors, on fixed-seed simulated
// runs: the paper's designs at the default costs (true factors exactly 1),
// an SGLang engine, trace shapes, and engines slower or faster than the
// default; with -full also runs whose cached tokens are withheld (fitted
// with the engine's hit ratio). At least 90% of the intervals must cover.
func TestValidationCoverage(t *testing.T) {
	slowtest.SkipUnderRace(t, "simulates whole runs")
	type truth struct {
		name            string
		cfg             sim.Config
		prefill, decode float64
		hideCached      bool
	}
	var cases []truth
	add := func(name, design string, seeds int, dur float64, f func(*sim.Config), p, d float64, hide bool) {
		c := mustDefaults(t, design)
		c.Arms = c.Arms[:1]
		c.FirstSeed, c.Seeds, c.DurationS = 501, seeds, dur
		if f != nil {
			f(&c)
		}
		c.Cost = c.Cost.Scaled(p, d)
		cases = append(cases, truth{name, c, p, d, hide})
	}
	both := func(c *sim.Config) { d, _ := sim.Defaults(c.Design); c.Arms = d.Arms }
	if !*full {
		add("paired", schema.DesignPaired, 2, 1800, both, 1, 1, false)
		add("recovery", schema.DesignRecovery, 2, 1800, nil, 1, 1, false)
	} else {
		add("paired", schema.DesignPaired, 8, 2700, both, 1, 1, false)
		add("recovery", schema.DesignRecovery, 8, 2400, nil, 1, 1, false)
		add("flush", schema.DesignFlush, 4, 2400, nil, 1, 1, false)
		add("mix-shift", schema.DesignMixShift, 2, 3000, nil, 1, 1, false)
		add("prevention", schema.DesignPrevention, 2, 2400, nil, 1, 1, false)
		add("sglang", schema.DesignPaired, 4, 2400, func(c *sim.Config) { c.Engine, c.Lambda = schema.EngineSGLang, 0.04 }, 1, 1, false)
		add("trace shapes", schema.DesignPaired, 2, 2400, func(c *sim.Config) { c.Shapes, c.Lambda, c.PoolTokens = sim.TraceShapes(), 0.025, 365000 }, 1, 1, false)
		add("slow prefill", schema.DesignPaired, 4, 2400, nil, 2, 0.5, false)
		add("slow decode", schema.DesignRecovery, 4, 2400, nil, 0.6, 1.5, false)
		add("paired, cached withheld", schema.DesignPaired, 4, 2400, both, 1, 1, true)
		add("recovery, cached withheld", schema.DesignRecovery, 4, 2400, nil, 1, 1, true)
	}
	covered, rawCovered, n := 0, 0, 0
	var worst float64
	for _, c := range cases {
		for _, rd := range simulated(t, c.cfg) {
			if c.hideCached {
				no := false
				rd.Run.CacheReported = &no
				for i := range rd.Turns {
					rd.Turns[i].CachedTokens = 0
				}
			}
			m := mustFit(t, rd)
			for i, f := range []Factor{m.Engine.Prefill, m.Engine.Decode} {
				if math.Abs(f.Value-[]float64{c.prefill, c.decode}[i]) <= 2*f.SE {
					rawCovered++
				}
			}
			if err := m.Correct(Options{Out: t.TempDir(), Read: readBack}); err != nil {
				t.Fatal(err)
			}
			e := m.Engine
			line := fmt.Sprintf("%-26s %-28s %-10s", c.name, rd.Run.Run, m.Observed.Verdict)
			for _, f := range []struct {
				got   Factor
				truth float64
			}{{e.Prefill, c.prefill}, {e.Decode, c.decode}} {
				z := (f.got.Value - f.truth) / f.got.SE
				n++
				if math.Abs(z) <= 2 {
					covered++
				}
				worst = max(worst, math.Abs(z))
				line += fmt.Sprintf(" | ×%.3f ± %.3f (truth %g, %+.1f SE)", f.got.Value, f.got.SE, f.truth, z)
			}
			t.Log(line)
		}
	}
	t.Logf("±2 SE covers the true factor in %d of %d intervals (%.0f%%); the largest error is %.1f SE; the regression's own intervals, before Correct, cover %d",
		covered, n, 100*float64(covered)/float64(n), worst, rawCovered)
	if float64(covered) < 0.9*float64(n) {
		t.Errorf("±2 SE covers the true factor in %d of %d intervals, want at least 90%%", covered, n)
	}
}

// TestValidationSelfConsistency simulates a paired design, reads every run
// back and replays it as-is: the gate must find the simulator's own runs
// reproduced (at least 90% of them), the trace replay (seed 1) must end
// with the observed verdict for at least 90%, and a healthy run's end hit
// ratio within 0.05.
func TestValidationSelfConsistency(t *testing.T) {
	slowtest.SkipUnderRace(t, "simulates whole runs")
	cfg := mustDefaults(t, schema.DesignPaired)
	cfg.Seeds, cfg.DurationS = 1, 2400
	seeds := GateSeeds
	if *full {
		cfg.Seeds, cfg.DurationS, seeds = 16, 5400, 16
	}
	runs := simulated(t, cfg)
	same, grounded := 0, 0
	for _, rd := range runs {
		m := mustFit(t, rd)
		if err := m.Correct(Options{Out: t.TempDir(), Read: readBack}); err != nil {
			t.Fatal(err)
		}
		res := replayed(t, m, seeds, Variant{Name: AsIs})
		g := m.Ground(&res[0])
		if g.Trace.Verdict == g.Observed.Verdict {
			same++
		}
		if g.Grounded {
			grounded++
		}
		t.Logf("%-14s observed %-10s end hit %.3f sessions %6.1f | trace %-10s end hit %.3f sessions %6.1f | %d seeds: %s | prefill ×%.3f decode ×%.3f | %s",
			rd.Run.Run, g.Observed.Verdict, g.Observed.EndHit, g.Observed.EndSessions, g.Trace.Verdict, g.Trace.EndHit, g.Trace.EndSessions,
			g.Reproduced.N, verdictCounts(g.Outcome.Verdicts), m.Engine.Prefill.Value, m.Engine.Decode.Value, g.Reason())
		if g.Observed.Verdict == stats.VerdictNeverDegraded && g.Trace.Verdict == stats.VerdictNeverDegraded && math.Abs(g.Trace.EndHit-g.Observed.EndHit) > 0.05 {
			t.Errorf("%s: healthy end hit ratio %.3f replays as %.3f", rd.Run.Run, g.Observed.EndHit, g.Trace.EndHit)
		}
	}
	t.Logf("trace replay reproduces the verdict of %d of %d runs; the gate grounds %d", same, len(runs), grounded)
	if float64(same) < 0.9*float64(len(runs)) {
		t.Errorf("trace replay reproduces the verdict of %d of %d runs, want at least 90%%", same, len(runs))
	}
	if float64(grounded) < 0.9*float64(len(runs)) {
		t.Errorf("the gate grounds %d of %d of the simulator's own runs, want at least 90%%", grounded, len(runs))
	}
}

// TestValidationCounterfactuals replays collapsed burst runs with the
// paper's remedies (§5, §6): those of a paired design (persistently
// degraded after a burst at minutes 15–20) and of the recovery design
// (collapsed at minute 20 after a 2× burst at minutes 10–14). Each must be
// grounded (the gate replaying as-is at least GateSeeds seeds); the budgeter from minute 20 leaves most seeds not persistently
// degraded, twice the pool 90%, and without control most stay degraded.
// The paired runs without their burst are not persistently degraded in
// most seeds; the recovery design's base load (λ = 0.04 for an hour) is
// too near the edge for that: the simulator's own twins of it degrade in
// about a third of the seeds, so there it is only reported.
func TestValidationCounterfactuals(t *testing.T) {
	slowtest.SkipUnderRace(t, "simulates whole runs")
	paired := mustDefaults(t, schema.DesignPaired)
	paired.Arms = paired.Arms[:1] // the burst arm
	paired.FirstSeed, paired.Seeds, paired.DurationS = 503, 1, 2700
	recovery := mustDefaults(t, schema.DesignRecovery)
	recovery.Arms = recovery.Arms[:1] // no control, from minute 20
	recovery.FirstSeed, recovery.Seeds, recovery.DurationS = 503, 1, 2100
	seeds := 2
	if *full {
		paired.FirstSeed, paired.Seeds, paired.DurationS = 501, 16, 5400
		recovery.FirstSeed, recovery.Seeds, recovery.DurationS = 501, 16, 3600
		seeds = 16
	}
	t.Run(schema.DesignPaired, func(t *testing.T) { counterfactuals(t, paired, seeds, true) })
	t.Run(schema.DesignRecovery, func(t *testing.T) { counterfactuals(t, recovery, seeds, false) })
}

func counterfactuals(t *testing.T, cfg sim.Config, seeds int, twinHealthy bool) {
	type tally struct{ good, runs int }
	var budgeter, twin, pool, none tally
	collapsed := 0
	for _, rd := range simulated(t, cfg) {
		m := mustFit(t, rd)
		if !Persistent(m.Observed.Verdict) {
			continue
		}
		collapsed++
		if err := m.Correct(Options{Out: t.TempDir(), Read: readBack}); err != nil {
			t.Fatal(err)
		}
		ctl, err := sim.NewControl(schema.ControlBudgeter, 1200)
		if err != nil {
			t.Fatal(err)
		}
		asIs := replayed(t, m, max(seeds, GateSeeds), Variant{Name: AsIs})
		if g := m.Ground(&asIs[0]); !g.Grounded {
			t.Errorf("%s: %s", rd.Run.Run, g.Reason())
		}
		res := append(asIs, replayed(t, m, seeds, ControlVariant(ctl), DropVariant(schema.OriginBurst), PoolVariant(2*m.Engine.Pool))...)
		var o [4]Outcome
		for i := range res {
			o[i] = res[i].Outcome()
		}
		add := func(x *tally, good int, o Outcome) { x.good, x.runs = x.good+good, x.runs+o.Runs }
		add(&none, o[0].Runs-o[0].NotPersistent.K, o[0])
		add(&budgeter, o[1].NotPersistent.K, o[1])
		add(&twin, o[2].NotPersistent.K, o[2])
		add(&pool, o[3].NotPersistent.K, o[3])
		t.Logf("%s (%s): no control persistent %d/%d; budgeter from minute 20 %s; without the burst not persistent %d/%d; 2× pool not persistent %d/%d",
			rd.Run.Run, m.Observed.Verdict, o[0].Runs-o[0].NotPersistent.K, o[0].Runs, verdictCounts(o[1].Verdicts), o[2].NotPersistent.K, o[2].Runs, o[3].NotPersistent.K, o[3].Runs)
	}
	if collapsed == 0 {
		t.Fatal("no run collapsed")
	}
	t.Logf("over %d collapsed runs × %d seeds: no control persistent %d/%d; budgeter not persistent %d/%d; without the burst %d/%d; 2× pool %d/%d",
		collapsed, seeds, none.good, none.runs, budgeter.good, budgeter.runs, twin.good, twin.runs, pool.good, pool.runs)
	type check struct {
		what  string
		t     tally
		share float64 // at least this share of the runs; 0: more than half
	}
	checks := []check{{"no control stays persistently degraded", none, 0}, {"the budgeter from minute 20 leaves not persistent", budgeter, 0},
		{"twice the pool leaves not persistent", pool, 0.9}}
	if twinHealthy {
		checks = append(checks, check{"without the burst is not persistent", twin, 0})
	}
	for _, c := range checks {
		ok := 2*c.t.good > c.t.runs
		if c.share > 0 {
			ok = float64(c.t.good) >= c.share*float64(c.t.runs)
		}
		if !ok {
			t.Errorf("%s in %d of %d runs", c.what, c.t.good, c.t.runs)
		}
	}
}
