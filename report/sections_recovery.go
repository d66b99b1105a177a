package report

import (
	"fmt"
	"math"
	"sort"

	"github.com/outlast-dev/outlast/stats"
)

// arms returns the distinct arms of runs, sorted, "none" first: the
// uncontrolled baseline leads every comparison.
func arms(runs []*runInfo) []string {
	seen := map[string]bool{}
	for _, r := range runs {
		seen[r.rd.Run.Arm] = true
	}
	out := sortedKeys(seen)
	sort.SliceStable(out, func(i, j int) bool { return out[i] == "none" && out[j] != "none" })
	return out
}

// armColor gives each arm of an experiment a fixed palette colour.
func armColor(all []string, arm string) string {
	for i, a := range all {
		if a == arm {
			return palette[i%len(palette)]
		}
	}
	return palette[0]
}

// recoverySection adds Table 3, pairwise exact tests, Figure 5 and Figure 8.
func (b *builder) recoverySection(e *experiment, sec *Section, se *SummaryExperiment) {
	sums := summaries(e.runs)
	t3 := stats.NewTable3(sums)
	sec.Intro = append(sec.Intro, "Each controller starts while the server may already be collapsed (§6). Table 3 counts the runs collapsed when control began (the 5 minutes before it degraded); the paired tests compare arms on the seeds collapsed in every arm, which start control from matched states.")

	t := &Table{
		ID:      "table3-" + e.slug,
		Caption: "Recovery over runs collapsed when control began (Table 3). Time: from control start to the start of the first 5-minute window from which every later window has a hit ratio ≥ 0.8; “<5” means within the first window. Cohort: fraction of the sessions arriving in the next 20 minutes that completed.",
		Columns: []Column{{Name: "Control"}, {Name: "Recovered"}, {Name: "Time to recover", Unit: "min"}, {Name: "Hit (end)"}, {Name: "Cohort done"}},
	}
	se.Arms, se.ArmsMatched = []SummaryArm{}, []SummaryArm{}
	for _, row := range t3.All {
		t.Rows = append(t.Rows, table3Cells(row))
		se.Arms = append(se.Arms, summaryArm(row))
	}
	for _, row := range t3.Matched {
		se.ArmsMatched = append(se.ArmsMatched, summaryArm(row))
	}
	se.MatchedSeeds = t3.MatchedSeeds
	collapsed := 0
	for _, row := range t3.All {
		collapsed += row.Collapsed()
	}
	switch {
	case len(t3.All) == 0:
		t.Notes = append(t.Notes, "No run has a control start time.")
	case collapsed == 0:
		t.Notes = append(t.Notes, "No run was collapsed when control began: there is nothing to recover from (see the overview's verdicts).")
	}
	sec.Blocks = append(sec.Blocks, t)

	// Pairwise exact McNemar tests on the matched seeds.
	pw := &Table{
		ID:      "table3-pairwise-" + e.slug,
		Caption: fmt.Sprintf("Recovery between controllers on the %d seeds collapsed in every arm: exact paired (McNemar) test, two-sided.", len(t3.MatchedSeeds)),
		Columns: []Column{{Name: "Arm A"}, {Name: "Arm B"}, {Name: "Seeds"}, {Name: "Both recovered"}, {Name: "A only"}, {Name: "B only"}, {Name: "Neither"}, {Name: "p"}},
	}
	armNames := make([]string, len(t3.All))
	for i, row := range t3.All {
		armNames[i] = row.Arm
	}
	se.Pairwise = []SummaryPairwise{}
	for i := 0; i < len(armNames) && len(t3.MatchedSeeds) > 0; i++ {
		for j := i + 1; j < len(armNames); j++ {
			a, c := armNames[i], armNames[j]
			p2 := stats.PairedRecovery(sums, a, c, t3.MatchedSeeds)
			n := p2.Both + p2.AOnly + p2.BOnly + p2.Neither
			p := math.NaN()
			if n > 0 {
				p = stats.McNemarExact(p2)
			}
			pw.Rows = append(pw.Rows, []Cell{Text(a), Text(c), Int(int64(n)), Int(int64(p2.Both)), Int(int64(p2.AOnly)), Int(int64(p2.BOnly)), Int(int64(p2.Neither)), pCell(p)})
			se.Pairwise = append(se.Pairwise, SummaryPairwise{ArmA: a, ArmB: c, Seeds: n, Both: p2.Both, AOnly: p2.AOnly, BOnly: p2.BOnly, Neither: p2.Neither, P: Float(p)})
		}
	}
	if len(t3.MatchedSeeds) == 0 {
		pw.Notes = append(pw.Notes, "No seed was collapsed in every arm: there is no matched comparison.")
	} else {
		pw.Notes = append(pw.Notes, fmt.Sprintf("Matched seeds: %s. p is 1 without discordant seeds; it is not adjusted for the %d comparisons.", joinInts(t3.MatchedSeeds), len(pw.Rows)))
	}
	sec.Blocks = append(sec.Blocks, pw)

	all := arms(e.runs)
	candidates := t3.MatchedSeeds
	if len(candidates) == 0 {
		candidates = seeds(e.runs)
	}
	seed, ok := b.featured(candidates)
	if !ok {
		sec.Blocks = append(sec.Blocks, b.perRunGrid(e))
		return
	}
	se.FeaturedSeed = &seed
	var hit, ses []Series
	var feat []*runInfo
	for _, a := range all {
		for _, r := range e.runs {
			if r.rd.Run.Arm == a && r.rd.Run.Seed != nil && *r.rd.Run.Seed == seed {
				feat = append(feat, r)
				hit = append(hit, runSeries(a, r, hitOf, armColor(all, a)))
				ses = append(ses, runSeries(a, r, sessionsOf, armColor(all, a)))
				break
			}
		}
	}
	bands, marks := annotate(feat...)
	id := "fig5-" + e.slug
	sec.Blocks = append(sec.Blocks, &Grid{
		Caption: fmt.Sprintf("Figure 5. Recovery per arm, seed %d (arms share the arrivals): hit ratio and mean sessions in the system per minute; trigger shaded, control start marked.", seed),
		Columns: 1,
		Figures: []Figure{
			runSpan(&TimeSeries{ID: id + "-hit", Title: "Hit ratio", YAxes: []Axis{{Name: "hit ratio", Min: 0, Max: 1}}, Series: hit, Bands: bands, Marks: marks}, feat...),
			runSpan(&TimeSeries{ID: id + "-sessions", Title: "Sessions in the system", YAxes: []Axis{{Name: "sessions"}}, Series: ses, Bands: bands, Marks: marks}, feat...),
		},
	})
	sec.Blocks = append(sec.Blocks, b.figure8(e, all))
}

// figure8 is the completion of each 5-minute arrival cohort per arm,
// averaged over the arm's runs collapsed when control began (all its runs
// when none was).
func (b *builder) figure8(e *experiment, all []string) *TimeSeries {
	f := &TimeSeries{
		ID: "fig8-" + e.slug, Title: "Cohort completion",
		Caption: "Figure 8. Fraction of each 5-minute arrival cohort that completed by the end of the run, averaged over each arm's runs collapsed when control began (all its runs if none was), plotted at the cohort's middle. Later cohorts have less time to complete.",
		XName:   "arrival cohort (min)",
		YAxes:   []Axis{{Name: "completed", Unit: "fraction", Min: 0, Max: 1}},
	}
	var feat []*runInfo
	for _, a := range all {
		var rs []*runInfo
		for _, r := range e.runs {
			if r.rd.Run.Arm == a && r.sum.CollapsedAtControl {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			for _, r := range e.runs {
				if r.rd.Run.Arm == a {
					rs = append(rs, r)
				}
			}
		}
		feat = append(feat, rs...)
		sum, cnt := map[float64]float64{}, map[float64]int{}
		for _, r := range rs {
			for _, c := range r.an.Cohorts {
				if !math.IsNaN(c.Done.Fraction) {
					m := minutes((c.Start + c.End) / 2)
					sum[m] += c.Done.Fraction
					cnt[m]++
				}
			}
		}
		xs := make([]float64, 0, len(sum))
		for x := range sum {
			xs = append(xs, x)
		}
		sort.Float64s(xs)
		ys := make([]float64, len(xs))
		for i, x := range xs {
			ys[i] = sum[x] / float64(cnt[x])
		}
		f.Series = append(f.Series, Series{Name: a, X: xs, Y: ys, Color: armColor(all, a)})
	}
	f.Bands, f.Marks = annotate(feat...)
	return runSpan(f, feat...)
}

func table3Cells(r stats.Table3Row) []Cell {
	return []Cell{
		Text(r.Arm),
		Text(fmt.Sprintf("%d/%d", r.Recovered, r.Collapsed())),
		Text(r.RecoverLabel),
		Range(r.EndHitMin, r.EndHitMax, 2),
		pctRange(r.CohortDoneMin, r.CohortDoneMax),
	}
}

// pctRange prints a range of fractions as percentages, "0–92%".
func pctRange(lo, hi float64) Cell {
	c := Range(100*lo, 100*hi, 0)
	if c.IsMissing() {
		return c
	}
	return Text(c.String() + "%")
}

func summaryArm(r stats.Table3Row) SummaryArm {
	a := SummaryArm{
		Arm: r.Arm, Runs: r.Runs, Seeds: r.Seeds, Collapsed: r.Collapsed(), Recovered: r.Recovered,
		RecoverMin: Float(r.RecoverMin), RecoverMax: Float(r.RecoverMax), RecoverLabel: r.RecoverLabel,
		EndHitMin: Float(r.EndHitMin), EndHitMax: Float(r.EndHitMax),
		CohortDoneMin: Float(r.CohortDoneMin), CohortDoneMax: Float(r.CohortDoneMax),
	}
	if a.Runs == nil {
		a.Runs = []string{}
	}
	if a.Seeds == nil {
		a.Seeds = []int64{}
	}
	return a
}

func joinInts(v []int64) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(x)
	}
	return s
}

// mixShiftSection adds Figure 6: each run's p90 first-phase first-turn
// wait against its end hit ratio.
func (b *builder) mixShiftSection(e *experiment, sec *Section, se *SummaryExperiment) {
	sec.Intro = append(sec.Intro, "The workload shifts from short to long sessions (§6). A controller that is too loose collapses after the shift (bottom); one that is too tight makes first-phase sessions wait (right).")
	all := arms(e.runs)
	f := &Scatter{
		ID: "fig6-" + e.slug, Title: "Wait before the shift against hit ratio after it",
		Caption: "Figure 6. Each point is a run: p90 gateway wait of the first turns of sessions arriving before the shift (sessions never served count as waiting until the end) against the hit ratio over the last 10 minutes.",
		XAxis:   Axis{Name: "phase-1 first-turn gateway wait, p90", Unit: "min"},
		YAxis:   Axis{Name: "hit ratio (end)", Min: 0, Max: 1},
	}
	t := &Table{
		ID:      "fig6-data-" + e.slug,
		Caption: "Figure 6 data: first-phase first-turn wait and end hit ratio per run.",
		Columns: []Column{{Name: "Run"}, {Name: "Arm"}, {Name: "Sessions"}, {Name: "Censored"}, {Name: "p90 wait", Unit: "min"}, {Name: "End hit"}},
	}
	se.Points = []SummaryWaitPoint{}
	for _, a := range all {
		g := ScatterGroup{Name: a, Color: armColor(all, a)}
		for _, r := range e.runs {
			if r.rd.Run.Arm != a {
				continue
			}
			w := r.an.FirstTurnWaitPhase1
			g.Points = append(g.Points, [2]float64{minutes(w.P90S), r.sum.EndHit})
			g.Labels = append(g.Labels, r.rd.Run.Run)
			t.Rows = append(t.Rows, []Cell{Text(r.rd.Run.Run), Text(a), Int(int64(w.Sessions)), Int(int64(w.Censored)), Num(minutes(w.P90S), 1), Num(r.sum.EndHit, 2)})
			se.Points = append(se.Points, SummaryWaitPoint{Run: r.rd.Run.Run, Arm: a, P90WaitS: Float(w.P90S), Sessions: w.Sessions, Censored: w.Censored, EndHitRatio: Float(r.sum.EndHit)})
		}
		f.Groups = append(f.Groups, g)
	}
	sec.Blocks = append(sec.Blocks, f, t)
}

// countsSection counts outcomes per trigger and control (prevention, flush).
func (b *builder) countsSection(e *experiment, sec *Section, se *SummaryExperiment) {
	sec.Intro = append(sec.Intro, "How often each trigger left runs persistently degraded, per control (§3, §6).")
	type key struct{ trigger, control string }
	counts := map[key]*SummaryCount{}
	var keys []key
	for _, r := range e.runs {
		run := &r.rd.Run
		k := key{orNone(run.TriggerKind), orNone(run.ControlKind)}
		if run.ControlKind == "" {
			k.control = orNone(run.Arm)
		}
		c, ok := counts[k]
		if !ok {
			c = &SummaryCount{Trigger: k.trigger, Control: k.control}
			counts[k] = c
			keys = append(keys, k)
		}
		c.Runs++
		switch r.sum.Verdict {
		case stats.VerdictPersistent:
			c.Persistent++
		case stats.VerdictPartial:
			c.Partial++
		case stats.VerdictRecovered:
			c.Recovered++
		case stats.VerdictCollapsed:
			c.Collapsed++
		default:
			c.Healthy++
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].trigger != keys[j].trigger {
			return keys[i].trigger < keys[j].trigger
		}
		return keys[i].control < keys[j].control
	})
	t := &Table{
		ID:      "counts-" + e.slug,
		Caption: "Outcomes per trigger and control: runs persistently degraded (collapsed), partially degraded, and healthy at the end.",
		Columns: []Column{{Name: "Trigger"}, {Name: "Control"}, {Name: "Runs"}, {Name: "Persistent"}, {Name: "Partial"}, {Name: "Recovered"}, {Name: "Collapsed at control"}, {Name: "Healthy"}},
	}
	se.Counts = []SummaryCount{}
	for _, k := range keys {
		c := counts[k]
		t.Rows = append(t.Rows, []Cell{Text(c.Trigger), Text(c.Control), Int(int64(c.Runs)), Text(fmt.Sprintf("%d/%d", c.Persistent, c.Runs)), Int(int64(c.Partial)), Int(int64(c.Recovered)), Int(int64(c.Collapsed)), Int(int64(c.Healthy))})
		se.Counts = append(se.Counts, *c)
	}
	sec.Blocks = append(sec.Blocks, t, b.perRunGrid(e))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
