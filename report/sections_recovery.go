package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// recoverySection adds Table 3, pairwise exact tests, Figure 5 and Figure 8.
func (b *builder) recoverySection(e *experiment, sec *document.Section, se *SummaryExperiment) {
	sums := summaries(e.runs)
	t3 := stats.NewTable3(sums)

	t := &document.Table{
		ID: "table3-" + e.slug,
		Caption: fmt.Sprintf("Recovery over runs collapsed when control began (Table 3). Recovered: by the recovery rule of the overview's note, from control start: a 5-minute window (windows start every minute, §6) with hit ratio ≥ %.1f after which no window is degraded (< %.1f) and the rest of the run averages ≥ %.1f, at least %.0f minutes before the end, an end hit ratio ≥ %.1f, and at least %.0f%% of the cohort done; a dip below %.1f after it does not undo it. Time: from control start to that window; “<5” means within the first window. Cohort: fraction of the sessions arriving in the next %.0f minutes that completed by the run's end. The uncontrolled arm's recoveries are recovered-alone.",
			stats.RecoveredHit, stats.DegradedHit, stats.RecoveredHit, stats.FollowUpS/60, stats.RecoveredHit, 100*stats.CohortServed, stats.RecoveredHit, stats.CohortS/60),
		Columns: []document.Column{{Name: "Control"}, {Name: "Recovered"}, {Name: "Time to recover", Unit: "min"}, {Name: "Hit (end)"}, {Name: "Cohort done"}},
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
	// Runs whose hit ratio came back but which the rule does not count
	// as recovered: the reason, so that a cohort or end figure beside a
	// low count reads right.
	var back []string
	for _, r := range e.runs {
		if rec := r.sum.Recovery; rec != nil && rec.Status != stats.Recovered && !math.IsNaN(rec.AtS) {
			back = append(back, r.name()+": "+rec.Reason)
		}
	}
	if len(back) > 0 {
		t.Notes = append(t.Notes, "Not counted as recovered: "+strings.Join(back, "; ")+".")
	}
	sec.Blocks = append(sec.Blocks, t)

	// Pairwise exact McNemar tests on the matched seeds.
	pw := &document.Table{
		ID:      "table3-pairwise-" + e.slug,
		Caption: fmt.Sprintf("Recovery between controllers on the %d seeds collapsed in every arm: exact paired (McNemar) test, two-sided.", len(t3.MatchedSeeds)),
		Columns: []document.Column{{Name: "Arm A"}, {Name: "Arm B"}, {Name: "Seeds"}, {Name: "Both recovered"}, {Name: "A only"}, {Name: "B only"}, {Name: "Neither"}, {Name: "p"}},
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
			p := math.NaN()
			if p2.Both+p2.AOnly+p2.BOnly+p2.Neither > 0 {
				p = stats.McNemarExact(p2)
			}
			s := pairwiseSummary(a, c, p2, p)
			pw.Rows = append(pw.Rows, []document.Cell{document.Text(a), document.Text(c), document.Int(int64(s.Seeds)), document.Int(int64(p2.Both)), document.Int(int64(p2.AOnly)), document.Int(int64(p2.BOnly)), document.Int(int64(p2.Neither)), pCell(p)})
			se.Pairwise = append(se.Pairwise, s)
		}
	}
	if len(t3.MatchedSeeds) == 0 {
		pw.Notes = append(pw.Notes, "No seed was collapsed in every arm: there is no matched comparison.")
	} else {
		pw.Notes = append(pw.Notes, fmt.Sprintf("Matched seeds: %s. p is 1 without discordant seeds; it is not adjusted for the %d comparisons.", join(t3.MatchedSeeds), len(pw.Rows)))
	}
	sec.Blocks = append(sec.Blocks, pw)
	b.recoveryFindings(e, t3, se.Pairwise)

	all := arms(e.runs)
	candidates := t3.MatchedSeeds
	if len(candidates) == 0 {
		candidates = seeds(e.runs)
	}
	seed, ok := b.featured(e, candidates)
	if !ok {
		sec.Blocks = append(sec.Blocks, b.perRunGrid(e)...)
		sec.Blocks = append(sec.Blocks, b.engineView(e, b.featuredPerArm(e)...)...)
		return
	}
	se.FeaturedSeed = &seed
	var hit, ses []document.Series
	var feat []*runInfo
	var views []viewRun
	for _, a := range all {
		for _, r := range e.runs {
			if r.run.Arm == a && r.seedIs(seed) {
				feat = append(feat, r)
				views = append(views, viewRun{r, a, armColor(all, a)})
				hit = append(hit, runSeries(a, r, mHit, armColor(all, a)))
				ses = append(ses, runSeries(a, r, mSessions, armColor(all, a)))
				break
			}
		}
	}
	bands, marks := annotate(feat...)
	id := "fig5-" + e.slug
	sec.Blocks = append(sec.Blocks, &document.Grid{
		Caption: fmt.Sprintf("Figure 5. Recovery per arm, seed %d (arms share the arrivals): hit ratio and mean sessions in the system per minute; trigger shaded, control start marked.", seed),
		Columns: 1,
		Figures: []document.Figure{
			runSpan(&document.TimeSeries{ID: id + "-hit", Title: "Hit ratio", YAxes: []document.Axis{{Name: "hit ratio", Min: 0, Max: 1}}, Series: hit, Bands: bands, Marks: marks}, feat...),
			runSpan(&document.TimeSeries{ID: id + "-sessions", Title: "Sessions in the system", YAxes: []document.Axis{{Name: "sessions"}}, Series: ses, Bands: bands, Marks: marks}, feat...),
		},
	})
	sec.Blocks = append(sec.Blocks, b.figure8(e, all))
	sec.Blocks = append(sec.Blocks, b.engineView(e, views...)...)
}

// figure8 is the completion of each 5-minute arrival cohort per arm,
// averaged over the arm's runs collapsed when control began (all its runs
// when none was).
func (b *builder) figure8(e *experiment, all []string) *document.TimeSeries {
	f := &document.TimeSeries{
		ID: "fig8-" + e.slug, Title: "Cohort completion",
		Caption: "Figure 8. Fraction of each 5-minute arrival cohort that completed by the end of the run, averaged over each arm's runs collapsed when control began (all its runs if none was), plotted at the cohort's middle. Later cohorts have less time to complete.",
		XName:   "arrival cohort (min)",
		YAxes:   []document.Axis{{Name: "completed", Unit: "fraction", Min: 0, Max: 1}},
	}
	var feat []*runInfo
	for _, a := range all {
		var rs []*runInfo
		for _, r := range e.runs {
			if r.run.Arm == a && r.sum.CollapsedAtControl {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			for _, r := range e.runs {
				if r.run.Arm == a {
					rs = append(rs, r)
				}
			}
		}
		feat = append(feat, rs...)
		sum, cnt := map[float64]float64{}, map[float64]int{}
		for _, r := range rs {
			for _, c := range r.cohorts {
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
		f.Series = append(f.Series, document.Series{Name: a, X: xs, Y: ys, Color: armColor(all, a)})
	}
	f.Bands, f.Marks = annotate(feat...)
	return runSpan(f, feat...)
}

func table3Cells(r stats.Table3Row) []document.Cell {
	return []document.Cell{
		document.Text(r.Arm),
		document.Text(fmt.Sprintf("%d/%d", r.Recovered, r.Collapsed())),
		document.Text(recoverRangeLabel(r.RecoverMin, r.RecoverMax)),
		document.Range(r.EndHitMin, r.EndHitMax, 2),
		pctRange(r.CohortDoneMin, r.CohortDoneMax),
	}
}

// recoveryFindings is Table 3 in a sentence, each controller's recoveries
// with the uncontrolled arm last, and the matched comparison with the
// smallest p.
func (b *builder) recoveryFindings(e *experiment, t3 stats.Table3, pairwise []SummaryPairwise) {
	rows := append([]stats.Table3Row(nil), t3.All...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Arm != schema.ArmNone && rows[j].Arm == schema.ArmNone })
	nums := numbers{}
	var parts []string
	for _, r := range rows {
		nums[r.Arm+".collapsed"] = float64(r.Collapsed())
		nums[r.Arm+".recovered"] = float64(r.Recovered)
		nums[r.Arm+".recover_min"], nums[r.Arm+".recover_max"] = r.RecoverMin, r.RecoverMax
		if r.Collapsed() == 0 {
			continue
		}
		name := r.Arm
		if name == schema.ArmNone {
			name = "no control"
		}
		s := fmt.Sprintf("%s %d of %d", name, r.Recovered, r.Collapsed())
		if len(parts) == 0 {
			s = fmt.Sprintf("%s recovered %d of %d collapsed runs", name, r.Recovered, r.Collapsed())
		}
		switch label := recoverRangeLabel(r.RecoverMin, r.RecoverMax); {
		case r.Recovered == 0:
		case label == "<5":
			s += " within 5 minutes"
		default:
			s += " (" + label + " min)"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		b.found(e, "recovery", false, nil, nums, "no run was collapsed when control began: there is nothing to recover from.")
	} else {
		b.found(e, "recovery", false, nil, nums, strings.Join(parts, ", ")+".")
	}
	// The most telling pair: the smallest p, and among equal ones (every
	// p is 1 on a seed or two) the largest difference in recoveries, not
	// the first pair by name.
	best := -1
	gap := func(p SummaryPairwise) int { return max(p.AOnly-p.BOnly, p.BOnly-p.AOnly) }
	for i, p := range pairwise {
		if p.P.IsNaN() {
			continue
		}
		if best < 0 || p.P < pairwise[best].P || p.P == pairwise[best].P && gap(p) > gap(pairwise[best]) {
			best = i
		}
	}
	if best < 0 {
		return
	}
	p := pairwise[best]
	b.found(e, "recovery-test", false, nil,
		numbers{"seeds": float64(p.Seeds), "a_recovered": float64(p.Both + p.AOnly), "b_recovered": float64(p.Both + p.BOnly), "p": float64(p.P)},
		fmt.Sprintf("on the %s collapsed in every arm, %s recovered %d and %s %d (exact paired test %s).",
			plural(p.Seeds, "seed"), p.ArmA, p.Both+p.AOnly, p.ArmB, p.Both+p.BOnly, pText(float64(p.P))))
}
