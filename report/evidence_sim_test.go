package report

import (
	"math"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/internal/slowtest"
	"github.com/outlast-dev/outlast/report/document"
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
	doc  *document.Doc
	sum  *Summary
	err  error
}

// simulatedReport simulates seeds seeds of design (from seed 501), reads
// the runs as ingest does and builds their report, once per test binary.
func simulatedReport(t *testing.T, design string, seeds int) ([]*schema.RunData, *Summary) {
	t.Helper()
	runs, _, sum := simulatedDoc(t, design, seeds)
	return runs, sum
}

// simulatedDoc is simulatedReport with the document.
func simulatedDoc(t *testing.T, design string, seeds int) ([]*schema.RunData, *document.Doc, *Summary) {
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
		res.doc, res.sum, res.err = Build(res.runs, Options{Title: "sim", Version: "test"})
	})
	if res.err != nil {
		t.Fatal(res.err)
	}
	return res.runs, res.doc, res.sum
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

// endLevels returns a run's mean sessions in the system over the last 5
// minutes, integrated exactly from the sessions' [arrive, end) intervals
// (an open session stays to the run's end), and its mean D/C sampled every
// second of them: the sessions in the system, each holding its latest
// completed turn's prompt and output tokens, before its first its context
// and the workload's output tokens.
func endLevels(rd *schema.RunData) (sessions, demandRatio float64) {
	end := rd.Run.DurationS
	a := end - 300
	latest := map[string][]schema.Turn{}
	for _, t := range rd.Turns {
		if t.Status == "ok" || t.Status == "" {
			latest[t.Session] = append(latest[t.Session], t)
		}
	}
	var area float64
	for _, s := range rd.Sessions {
		e := end
		if s.EndS != nil {
			e = *s.EndS
		}
		area += math.Max(0, math.Min(e, end)-math.Max(s.ArriveS, a))
	}
	var dsum float64
	n := 0
	for t := a + 0.5; t < end; t++ {
		var d float64
		for _, s := range rd.Sessions {
			if s.ArriveS > t || s.EndS != nil && *s.EndS <= t {
				continue
			}
			v := float64(*s.ContextTokens + *rd.Run.OutputTokens)
			best := -1.0
			for _, tn := range latest[s.Session] {
				if tn.DoneS <= t && tn.DoneS > best {
					best, v = tn.DoneS, float64(tn.PromptTokens+tn.OutputTokens)
				}
			}
			d += v
		}
		dsum += d
		n++
	}
	return area / 300, dsum / float64(n) / float64(*rd.Run.KVPoolTokens)
}

// TestSimPairedMechanism: in the paired design (seeds 501–506), the burst
// runs that ended persistent did so with the mechanism of §4, a working
// set beyond the pool and a backlog against their healthy twins; the
// check's numbers agree with a direct computation, and no warning of a
// missing mechanism is given.
func TestSimPairedMechanism(t *testing.T) {
	runs, sum := simulatedReport(t, schema.DesignPaired, 6)
	checkVerdicts(t, runs, sum)
	byName := map[string]*schema.RunData{}
	for _, rd := range runs {
		byName[rd.Run.Run] = rd
	}
	persistent := 0
	for _, rd := range runs {
		if rd.Run.Arm != "burst" {
			continue
		}
		row := find(t, "run", sum.Runs, func(r SummaryRun) string { return r.Run }, rd.Run.Run)
		n, dc := endLevels(rd)
		twin := byName[strings.Replace(rd.Run.Run, "-burst", "-no-burst", 1)]
		tn, _ := endLevels(twin)
		m := row.Mechanism
		if math.Abs(float64(m.SessionsEnd)-n) > 1e-6*n || math.Abs(float64(m.DemandRatioEnd)-dc) > 0.01*dc || math.Abs(float64(m.TwinSessionsEnd)-tn) > 1e-6*tn {
			t.Errorf("%s: end sessions %v, D/C %v, twin %v; direct %v, %v, %v", rd.Run.Run, m.SessionsEnd, m.DemandRatioEnd, m.TwinSessionsEnd, n, dc, tn)
		}
		if row.Verdict != "persistent" {
			continue
		}
		persistent++
		if m.Status != "present" || !(dc >= 1 && n >= 2*tn) {
			t.Errorf("%s: persistent with mechanism %q; directly D/C %.2f, %.1f sessions against the twin's %.1f", rd.Run.Run, m.Status, dc, n, tn)
		}
	}
	if persistent == 0 {
		t.Fatal("no burst run ended persistent; the simulator changed")
	}
	for _, f := range sum.Findings {
		if f.Kind == "mechanism-absent" {
			t.Errorf("finding %s", f.Text)
		}
	}
}

// TestSimDrainBracket: the drain bracket of the drain design (seeds
// 501–502) uses only the runs degraded when the rate changed (the 5
// minutes before minute 20 below a 0.5 hit ratio, summed here from the
// turns); seed 502 never degraded and is left out with the reason. Each
// run's verdict is from its slope's 95% interval, slope ± t(9)·SE over
// the 11 samples, t(9, 0.975) = 2.2621571627 (scipy stats.t.ppf); a rate
// grows or drains when all its runs do.
func TestSimDrainBracket(t *testing.T) {
	runs, sum := simulatedReport(t, schema.DesignDrain, 2)
	e := findExperiment(t, sum, "drain-8b")
	degraded := map[string]bool{}
	for _, rd := range runs {
		degraded[rd.Run.Run] = hitOf(rd, *rd.Run.TriggerStartS-300, *rd.Run.TriggerStartS) < 0.5
	}
	verdict := map[string]string{}
	for _, s := range e.Slopes {
		half := 2.2621571627409915 * float64(s.SEPerHour)
		lo, hi := float64(s.SlopePerHour)-half, float64(s.SlopePerHour)+half
		v := "undecided"
		switch {
		case hi < 0:
			v = "drains"
		case lo > 0:
			v = "grows"
		}
		if s.Points != 11 || math.Abs(float64(s.CILo)-lo) > 1e-6 || math.Abs(float64(s.CIHi)-hi) > 1e-6 || s.Verdict != v {
			t.Errorf("%s: %d points, CI %v–%v %s; want 11, %v–%v %s", s.Run, s.Points, s.CILo, s.CIHi, s.Verdict, lo, hi, v)
		}
		if s.DegradedAtChange == nil || *s.DegradedAtChange != degraded[s.Run] {
			t.Errorf("%s: degraded at change %v, want %v", s.Run, s.DegradedAtChange, degraded[s.Run])
		}
		verdict[s.Run] = v
	}
	b := e.Bracket
	for _, r := range b.Rates {
		want := ""
		var used, left []string
		for _, rd := range runs {
			if *rd.Run.TriggerRateAfter != float64(r.Rate) {
				continue
			}
			if !degraded[rd.Run.Run] {
				left = append(left, rd.Run.Run)
				continue
			}
			used = append(used, rd.Run.Run)
			switch v := verdict[rd.Run.Run]; {
			case want == "":
				want = v
			case want != v:
				want = "undecided"
			}
		}
		var gotLeft []string
		for _, l := range r.LeftOut {
			gotLeft = append(gotLeft, l.Run)
			if !strings.Contains(l.Reason, "not degraded when the rate changed") {
				t.Errorf("%s left out for %q", l.Run, l.Reason)
			}
		}
		if strings.Join(r.Runs, ",") != strings.Join(used, ",") || strings.Join(gotLeft, ",") != strings.Join(left, ",") || r.Verdict != want {
			t.Errorf("rate %v: runs %v left out %v verdict %s; want %v, %v, %s", r.Rate, r.Runs, gotLeft, r.Verdict, used, left, want)
		}
	}
	// Seed 501 collapsed at every rate: it drains at 0.006–0.014 and grows
	// at 0.018, a bracket around the model's 1/S.
	if !same(b.LargestNotGrowing, 0.014) || !same(b.SmallestGrowing, 0.018) || !(float64(b.ModelRate) > 0.014 && float64(b.ModelRate) < 0.018) {
		t.Errorf("bracket [%v, %v], 1/S %v; want [0.014, 0.018] around 1/S", b.LargestNotGrowing, b.SmallestGrowing, b.ModelRate)
	}
}

// TestSimPairedEffects: the paired finding (seeds 501–506) says by how
// much: the median end hit ratio and end sessions of the burst runs and of
// their twins, each with its order-statistic 95% interval, here recomputed
// from the runs' turns and sessions: with 6 pairs the interval is [x(1),
// x(6)] (P(B ≤ 0) = 1/64 ≤ 0.025 < P(B ≤ 1) = 7/64 for B ~ Bin(6, ½)).
func TestSimPairedEffects(t *testing.T) {
	runs, sum := simulatedReport(t, schema.DesignPaired, 6)
	vals := map[string][]float64{}
	for _, rd := range runs {
		arm := "burst"
		if rd.Run.Arm != "burst" {
			arm = "twin"
		}
		n, _ := endLevels(rd)
		vals[arm+"_end_hit"] = append(vals[arm+"_end_hit"], hitOf(rd, rd.Run.DurationS-600, rd.Run.DurationS))
		vals[arm+"_end_sessions"] = append(vals[arm+"_end_sessions"], n)
	}
	f := find(t, "finding", sum.Findings, func(f SummaryFinding) string { return f.Kind }, "sign-test")
	for k, v := range vals {
		sort.Float64s(v)
		if len(v) != 6 {
			t.Fatalf("%s: %d values", k, len(v))
		}
		med := (v[2] + v[3]) / 2
		for name, want := range map[string]float64{k: med, k + "_lo": v[0], k + "_hi": v[5]} {
			if got := float64(f.Numbers[name]); math.Abs(got-want) > 1e-9*math.Max(1, want) {
				t.Errorf("%s = %v, want %v", name, got, want)
			}
		}
	}
	if !strings.Contains(f.Text, "At the end, the burst runs' median hit ratio was "+document.Num(float64(f.Numbers["burst_end_hit"]), 2).Display()+" (95% CI ") {
		t.Errorf("text %q does not quote the burst runs' median with its interval", f.Text)
	}
}

// TestSimRegimeMapPlacesWorkloads: the regime map's x is the workload's
// offered resident demand λ·T·Z·L̄/C, the same for every arm of one
// workload, recomputed here from the manifest: the recovery design's arms
// (seeds 501–504) share λ = 0.04, T = 25, Z = 5 s and the synthetic shape
// 6144 + 1324·k (L̄ = 22032) on C = 400,000: x = 0.2754 for all 20 runs
// (it was λ·T·(Z+R₀)·L̄/C with each run's own R₀, 0.41 in one arm and 0.86
// in another). A mix-shift run is placed by the mix after the shift (the
// manifest's *_after keys: 20480 task tokens, Z = 5 s, 12 turns: L̄ =
// 22528 + 1324·5.5), not before it. The axis says what the caption
// defines.
func TestSimRegimeMapPlacesWorkloads(t *testing.T) {
	check := func(design string, seeds int, want func(*schema.RunData) float64) {
		runs, doc, sum := simulatedDoc(t, design, seeds)
		for _, rd := range runs {
			p := find(t, "regime point", sum.RegimeMap, func(p SummaryRegimePoint) string { return p.Run }, rd.Run.Run)
			if w := want(rd); math.Abs(float64(p.OfferedLoad)-w) > 1e-9 || !p.ShapeContext {
				t.Errorf("%s: x = %v (shape context %v), want %v", rd.Run.Run, p.OfferedLoad, p.ShapeContext, w)
			}
		}
		f := findFigure(t, doc, "regime-map").(*document.Scatter)
		if f.XAxis.Name != "offered resident demand λ·T·Z·L̄ / C" || !strings.Contains(f.Caption, "the offered resident demand over the KV pool, λ·T·Z·L̄/C") {
			t.Errorf("axis %q, caption %q", f.XAxis.Name, f.Caption)
		}
	}
	check(schema.DesignRecovery, 4, func(*schema.RunData) float64 { return 0.04 * 25 * 5 * 22032 / 400000 })
	check(schema.DesignMixShift, 1, func(rd *schema.RunData) float64 {
		if !strings.Contains(rd.Run.WorkloadExtra, `"task_tokens_after":20480`) {
			t.Fatalf("%s: workload extra %s", rd.Run.Run, rd.Run.WorkloadExtra)
		}
		return 0.075 * 12 * 5 * (2048 + 20480 + 1324*5.5) / 400000
	})
}

// TestSimFigure6Dodges: in the mix-shift design (seed 501) five of the
// seven arms' runs sit at a p90 wait of 0 with end hit ratios within
// 0.02 of one another, drawn one on top of the other. They are moved to
// the right (the paper's Figure 6 offsets them), never left, so that no
// two are drawn on one another in either panel, and the caption says so;
// the data table keeps the exact values.
func TestSimFigure6Dodges(t *testing.T) {
	_, doc, sum := simulatedDoc(t, schema.DesignMixShift, 1)
	e := findExperiment(t, sum, "mix-shift-8b")
	exact := map[string][2]float64{}
	for _, p := range e.Points {
		exact[p.Run] = [2]float64{float64(p.P90WaitS) / 60, float64(p.EndHitRatio)}
	}
	f := findFigure(t, doc, "fig6-mix-shift-8b").(*document.Scatter)
	n := 0
	for _, g := range f.Groups {
		for i, p := range g.Points {
			x := exact[g.Labels[i]]
			if p[1] != x[1] || p[0] < x[0]-1e-12 {
				t.Errorf("%s drawn at %v, exact %v: moved left or in hit ratio", g.Labels[i], p, x)
			}
			n++
		}
	}
	if n != 7 {
		t.Fatalf("%d points", n)
	}
	for _, id := range []string{"fig6-mix-shift-8b", "fig6-ttft-mix-shift-8b"} {
		if a, b, ok := overlapping(findFigure(t, doc, id).(*document.Scatter)); ok {
			t.Errorf("%s: %s and %s are drawn on one another", id, a, b)
		}
	}
	if !strings.Contains(f.Caption, "are moved to the right, each by the least that clears the others") {
		t.Errorf("caption %q", f.Caption)
	}
}

// TestSimEngineViewEveryArm: the engine view of the mix-shift design
// (seed 501, seven arms) draws every arm, not the first four, and names
// each run with its seed.
func TestSimEngineViewEveryArm(t *testing.T) {
	runs, doc, _ := simulatedDoc(t, schema.DesignMixShift, 1)
	var g *document.Grid
	for _, sec := range doc.Sections {
		for _, blk := range sec.Blocks {
			if gr, ok := blk.(*document.Grid); ok && len(gr.Figures) > 0 && strings.HasPrefix(gr.Figures[0].FigureID(), "engine-mix-shift-8b") {
				g = gr
			}
		}
	}
	if g == nil {
		t.Fatal("no engine view")
	}
	hit := g.Figures[0].(*document.TimeSeries)
	for _, rd := range runs {
		name := rd.Run.Arm + ": gateway"
		found := false
		for _, s := range hit.Series {
			found = found || s.Name == name
		}
		if !found {
			t.Errorf("arm %s not drawn", rd.Run.Arm)
		}
		if !strings.Contains(g.Caption, rd.Run.Arm+": "+rd.Run.Run+" (seed 501)") {
			t.Errorf("caption does not name %s with its seed: %q", rd.Run.Run, g.Caption)
		}
	}
}
