package report

import (
	"math"
	"sort"
	"sync"
	"testing"

	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/internal/slowtest"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
)

// The tests of this file hold the report's claims against simulated
// designs with fixed seeds (outlast simulate --design D --seeds N): each
// claim is recomputed here from the runs' tables by the definitions of
// docs/report.md, in plain loops that share no code with stats.

var simCache sync.Map // design → *simResult

type simResult struct {
	once sync.Once
	runs []*schema.RunData
	sum  *Summary
	err  error
}

// simulatedReport simulates seeds seeds of design (from seed 501), reads
// the runs as ingest does and builds their report, once per test binary.
func simulatedReport(t *testing.T, design string, seeds int) ([]*schema.RunData, *Summary) {
	t.Helper()
	slowtest.SkipUnderRace(t, "simulates whole experiments")
	v, _ := simCache.LoadOrStore(design, &simResult{})
	res := v.(*simResult)
	res.once.Do(func() {
		cfg, err := sim.Defaults(design)
		if err != nil {
			res.err = err
			return
		}
		cfg.Seeds = seeds
		// The runs are read into memory at once: the directory may go
		// with the test that made it.
		dirs, err := sim.WriteExperiment(t.TempDir(), cfg)
		if err != nil {
			res.err = err
			return
		}
		for _, d := range dirs {
			r, err := rundir.Read(d, rundir.Options{Version: "test"})
			if err != nil {
				res.err = err
				return
			}
			res.runs = append(res.runs, r.Data)
		}
		_, res.sum, res.err = Build(res.runs, Options{Title: "sim", Version: "test"})
	})
	if res.err != nil {
		t.Fatal(res.err)
	}
	return res.runs, res.sum
}

// direct is what a run's tables say, computed here by the definitions.
type direct struct {
	end                float64
	windows            []window // 5-minute analysis windows, aligned to align_s
	ref                float64
	firstDegraded      float64
	persistent         bool
	endHit             float64
	collapsedAtControl bool
	recoveredAt        float64 // NaN when the recovery rule does not hold
	from               float64
	verdict            string
}

type window struct{ start, hit float64 }

// hitOf is Σ cached / Σ prompt over the ok turns completing in [a, b).
func hitOf(rd *schema.RunData, a, b float64) float64 {
	var c, p float64
	for _, t := range rd.Turns {
		if (t.Status == "ok" || t.Status == "") && t.DoneS >= a && t.DoneS < b {
			c += float64(t.CachedTokens)
			p += float64(t.PromptTokens)
		}
	}
	if p == 0 {
		return math.NaN()
	}
	return c / p
}

// cohortOf is the share of sessions arriving in [a, b) that finished by end
// (NaN without sessions).
func cohortOf(rd *schema.RunData, a, b, end float64) float64 {
	k, n := 0, 0
	for _, s := range rd.Sessions {
		if s.ArriveS >= a && s.ArriveS < b {
			n++
			if s.Status == "done" && s.EndS != nil && *s.EndS <= end {
				k++
			}
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return float64(k) / float64(n)
}

// recoverAt is the recovery rule of docs/report.md from s: the first whole
// minute t after s whose 5-minute window has hit ≥ 0.8, no later 5-minute
// window at a whole minute degraded, hit ≥ 0.8 over [t, end), and 10
// minutes of run after t; then end hit ≥ 0.8 and half the 20-minute cohort
// done (of the sessions that arrived 20 minutes before the end). NaN when
// it does not hold.
func recoverAt(rd *schema.RunData, s, end float64) float64 {
	for t := s; t+300 <= end+1e-9; t += 60 {
		if !(hitOf(rd, t, t+300) >= 0.8) {
			continue
		}
		clean := true
		for u := t; u+300 <= end+1e-9; u += 60 {
			if hitOf(rd, u, u+300) < 0.5 {
				clean = false
				break
			}
		}
		if !clean || !(hitOf(rd, t, end) >= 0.8) {
			continue
		}
		if t+600 > end+1e-9 {
			return math.NaN()
		}
		if !(hitOf(rd, end-600, end) >= 0.8) {
			return math.NaN()
		}
		if c := cohortOf(rd, s, math.Min(s+1200, end-1200), end); c < 0.5 {
			return math.NaN()
		}
		return t
	}
	return math.NaN()
}

// directOf judges a run of a simulated design (caching on, cached tokens
// reported, longer than 10 minutes) by the definitions.
func directOf(rd *schema.RunData) direct {
	r := &rd.Run
	d := direct{end: r.DurationS, ref: r.AlignS, firstDegraded: math.NaN(), recoveredAt: math.NaN(), from: math.NaN()}
	if r.TriggerEndS != nil {
		d.ref = *r.TriggerEndS
	}
	k := math.Ceil(-r.AlignS / 300)
	for s := r.AlignS + k*300; s+300 <= d.end+1e-9; s += 300 {
		d.windows = append(d.windows, window{s, hitOf(rd, s, s+300)})
	}
	for _, w := range d.windows {
		if w.start >= d.ref && w.hit < 0.5 {
			d.firstDegraded = w.start
			break
		}
	}
	if !math.IsNaN(d.firstDegraded) {
		d.persistent = true
		for _, w := range d.windows {
			if w.start >= d.firstDegraded && w.hit >= 0.5 {
				d.persistent = false
			}
		}
	}
	d.endHit = hitOf(rd, d.end-600, d.end)
	c := math.NaN()
	if r.ControlStartS != nil && *r.ControlStartS > 0 {
		c = *r.ControlStartS
		d.collapsedAtControl = hitOf(rd, c-300, c) < 0.5
	}
	switch {
	case d.persistent:
		d.verdict = "persistent"
		return d
	case d.collapsedAtControl:
		d.from = c
	case !math.IsNaN(d.firstDegraded):
		d.from = d.firstDegraded
	case d.endHit >= 0.8:
		d.verdict = "never-degraded"
		return d
	default:
		d.verdict = "partial"
		return d
	}
	d.recoveredAt = recoverAt(rd, d.from, d.end)
	switch {
	case math.IsNaN(d.recoveredAt):
		d.verdict = "partial"
	case r.ControlKind != "" && r.ControlKind != "none" && r.ControlStartS != nil && *r.ControlStartS <= d.recoveredAt:
		d.verdict = "recovered-under-control"
	default:
		d.verdict = "recovered-alone"
	}
	return d
}

// checkVerdicts compares every run's verdict in summary.json with the
// direct judgement.
func checkVerdicts(t *testing.T, runs []*schema.RunData, sum *Summary) map[string]direct {
	t.Helper()
	out := map[string]direct{}
	for _, rd := range runs {
		d := directOf(rd)
		out[rd.Run.Run] = d
		row := find(t, "run", sum.Runs, func(r SummaryRun) string { return r.Run }, rd.Run.Run)
		if row.Verdict != d.verdict {
			t.Errorf("%s: verdict %q, want %q (first degraded %v, end hit %.3f, collapsed at control %v, recovered at %v)",
				rd.Run.Run, row.Verdict, d.verdict, d.firstDegraded, d.endHit, d.collapsedAtControl, d.recoveredAt)
		}
	}
	return out
}

// TestSimDrainVerdicts: in the drain design (seeds 501–502), runs that sat
// degraded for 20–40 minutes after the rate change and came back without
// control are recovered-alone, not never-degraded, and carry how long they
// were degraded.
func TestSimDrainVerdicts(t *testing.T) {
	runs, sum := simulatedReport(t, schema.DesignDrain, 2)
	ds := checkVerdicts(t, runs, sum)
	for _, name := range []string{"drain-s501-rate-0.006", "drain-s501-rate-0.010", "drain-s501-rate-0.014"} {
		d := ds[name]
		if d.verdict != "recovered-alone" {
			t.Fatalf("%s: the direct judgement is %q; the simulator changed", name, d.verdict)
		}
		row := find(t, "run", sum.Runs, func(r SummaryRun) string { return r.Run }, name)
		if !same(row.DegradedFromS, d.firstDegraded) || !same(row.RecoveredAtS, d.recoveredAt) || !same(row.DegradedMin, (d.recoveredAt-d.firstDegraded)/60) {
			t.Errorf("%s: degraded from %v to %v (%v min), want %v to %v", name, row.DegradedFromS, row.RecoveredAtS, row.DegradedMin, d.firstDegraded, d.recoveredAt)
		}
		if m := (d.recoveredAt - d.firstDegraded) / 60; m < 15 {
			t.Errorf("%s: degraded %v min; the issue's runs sat degraded 20–40 min", name, m)
		}
	}
}

// TestSimRecoveryVerdicts: in the recovery design (seeds 501–504), every
// run's verdict follows the definitions, and Table 3 counts as recovered
// exactly the runs collapsed when control began that the recovery rule
// (post-control windows and the cohort, not a single 0.8 crossing) says
// recovered: the AIMD arm whose hit ratio hovers at 0.72–0.89 after
// control with 92% of its cohort done is recovered-under-control.
func TestSimRecoveryVerdicts(t *testing.T) {
	runs, sum := simulatedReport(t, schema.DesignRecovery, 4)
	ds := checkVerdicts(t, runs, sum)
	if d := ds["recovery-s503-aimd"]; d.verdict != "recovered-under-control" {
		t.Errorf("recovery-s503-aimd: the direct judgement is %q; the simulator changed", d.verdict)
	}
	e := findExperiment(t, sum, "recovery-8b")
	for _, arm := range e.Arms {
		want, n := 0, 0
		var rec []float64
		for _, rd := range runs {
			d := ds[rd.Run.Run]
			if rd.Run.Arm != arm.Arm || !d.collapsedAtControl {
				continue
			}
			n++
			if !math.IsNaN(d.recoveredAt) {
				want++
				rec = append(rec, (d.recoveredAt-*rd.Run.ControlStartS)/60)
			}
		}
		sort.Float64s(rec)
		if arm.Collapsed != n || arm.Recovered != want {
			t.Errorf("Table 3 %s: recovered %d/%d, want %d/%d", arm.Arm, arm.Recovered, arm.Collapsed, want, n)
		}
		if len(rec) > 0 && (!same(arm.RecoverMin, rec[0]) || !same(arm.RecoverMax, rec[len(rec)-1])) {
			t.Errorf("Table 3 %s: recovery %v–%v min, want %v–%v", arm.Arm, arm.RecoverMin, arm.RecoverMax, rec[0], rec[len(rec)-1])
		}
	}
}
