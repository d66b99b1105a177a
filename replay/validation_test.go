package replay

import (
	"math"
	"testing"

	"github.com/outlast-dev/outlast/fixtures/sim"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// The validations of replay on simulated runs, where the truth is known:
// reduced in the default test run, full scale with -full (go test -run
// Validation -full -v ./replay prints the numbers).

// TestValidationSelfConsistency simulates a paired design, reads every run
// back and replays it as-is: the trace replay (seed 1) must reproduce the
// observed verdict for at least 90% of the runs, and a healthy run's end
// hit ratio within 0.05.
func TestValidationSelfConsistency(t *testing.T) {
	cfg := mustDefaults(t, schema.DesignPaired)
	cfg.Seeds, cfg.DurationS = 2, 2700
	seeds := 1
	if *full {
		cfg.Seeds, cfg.DurationS, seeds = 16, 5400, 16
	}
	runs := simulated(t, cfg)
	same, majority := 0, 0
	for _, rd := range runs {
		m := mustFit(t, rd)
		res := replayed(t, m, seeds, Variant{Name: AsIs})
		mt := m.NewMatch(&res[0])
		if mt.Trace.Verdict == mt.Observed.Verdict {
			same++
		}
		if 2*mt.Same > mt.Seeds {
			majority++
		}
		t.Logf("%-14s observed %-10s end hit %.3f sessions %6.1f | trace %-10s end hit %.3f sessions %6.1f | %d seeds: %s | prefill ×%.3f decode ×%.3f",
			rd.Run.Run, mt.Observed.Verdict, mt.Observed.EndHit, mt.Observed.EndSessions, mt.Trace.Verdict, mt.Trace.EndHit, mt.Trace.EndSessions,
			mt.Seeds, verdictCounts(mt.Outcome.Verdicts), m.Engine.Prefill.Value, m.Engine.Decode.Value)
		if mt.Observed.Verdict == stats.VerdictHealthy && mt.Trace.Verdict == stats.VerdictHealthy && math.Abs(mt.Trace.EndHit-mt.Observed.EndHit) > 0.05 {
			t.Errorf("%s: healthy end hit ratio %.3f replays as %.3f", rd.Run.Run, mt.Observed.EndHit, mt.Trace.EndHit)
		}
	}
	t.Logf("trace replay reproduces the verdict of %d of %d runs; the majority of %d seeds that of %d", same, len(runs), seeds, majority)
	if float64(same) < 0.9*float64(len(runs)) {
		t.Errorf("trace replay reproduces the verdict of %d of %d runs, want at least 90%%", same, len(runs))
	}
}

// TestValidationCounterfactuals replays collapsed burst runs of a paired
// design with the paper's remedies: the budgeter from minute 20 recovers
// most seeds, the run without its burst stays healthy in most, twice the
// pool stays healthy, and without control most stay degraded.
func TestValidationCounterfactuals(t *testing.T) {
	cfg := mustDefaults(t, schema.DesignPaired)
	cfg.Arms = cfg.Arms[:1] // the burst arm
	cfg.FirstSeed, cfg.Seeds, cfg.DurationS = 501, 3, 3600
	seeds := 4
	if *full {
		cfg.Seeds, cfg.DurationS, seeds = 16, 5400, 16
	}
	runs := simulated(t, cfg)
	type tally struct{ good, runs int }
	var budgeter, twin, pool, none tally
	collapsed := 0
	for _, rd := range runs {
		m := mustFit(t, rd)
		if m.Observed.Verdict != stats.VerdictPersistent {
			continue
		}
		collapsed++
		ctl, err := sim.NewControl(schema.ControlBudgeter, 1200)
		if err != nil {
			t.Fatal(err)
		}
		res := replayed(t, m, seeds, Variant{Name: AsIs}, ControlVariant(ctl), DropVariant(schema.OriginBurst), PoolVariant(2*m.Engine.Pool))
		var o [4]Outcome
		for i := range res {
			o[i] = res[i].Outcome()
		}
		none.good, none.runs = none.good+o[0].Degraded(), none.runs+o[0].Runs
		budgeter.good, budgeter.runs = budgeter.good+o[1].Good(), budgeter.runs+o[1].Runs
		twin.good, twin.runs = twin.good+o[2].Healthy(), twin.runs+o[2].Runs
		pool.good, pool.runs = pool.good+o[3].Healthy(), pool.runs+o[3].Runs
		t.Logf("%s: no control degraded %d/%d; budgeter from 20 min healthy or recovered %d/%d; without the burst healthy %d/%d; 2× pool healthy %d/%d",
			rd.Run.Run, o[0].Degraded(), o[0].Runs, o[1].Good(), o[1].Runs, o[2].Healthy(), o[2].Runs, o[3].Healthy(), o[3].Runs)
	}
	if collapsed == 0 {
		t.Fatal("no burst run collapsed")
	}
	t.Logf("over %d collapsed runs × %d seeds: no control degraded %d/%d; budgeter %d/%d; without the burst %d/%d; 2× pool %d/%d",
		collapsed, seeds, none.good, none.runs, budgeter.good, budgeter.runs, twin.good, twin.runs, pool.good, pool.runs)
	for _, c := range []struct {
		what string
		t    tally
		want float64
	}{{"no control stays degraded", none, 0.5}, {"the budgeter from minute 20 recovers", budgeter, 0.5},
		{"without the burst stays healthy", twin, 0.5}, {"twice the pool stays healthy", pool, 0.9}} {
		if float64(c.t.good) <= c.want*float64(c.t.runs) && !(c.want == 0.9 && float64(c.t.good) >= 0.9*float64(c.t.runs)) {
			t.Errorf("%s in %d of %d runs, want more than %.0f%%", c.what, c.t.good, c.t.runs, 100*c.want)
		}
	}
}
