package report

import (
	"fmt"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// persistentMarker marks persistently degraded runs, as in the paper.
const persistentMarker = "∗"

// pairedSection adds Table 2 with its sign test, Figure 1 for the featured
// pair, small multiples of every pair and Figure 4.
func (b *builder) pairedSection(e *experiment, sec *document.Section, se *SummaryExperiment) {
	twin := twinArmOf(e)
	t2 := stats.NewTable2(summaries(e.runs), twin, schema.ArmBurst)

	table := &document.Table{
		ID:      "table2-" + e.slug,
		Caption: "Paired runs with an identical base workload: token-weighted hit ratio over the last 10 minutes and mean number of sessions in the system over the last 5 minutes (Table 2).",
		Columns: []document.Column{
			{Name: "Seed"},
			{Group: "No burst (twin)", Name: "Hit"}, {Group: "No burst (twin)", Name: "Sessions"},
			{Group: "Burst", Name: "Hit"}, {Group: "Burst", Name: "Sessions"},
		},
	}
	arm := func(a stats.Table2Arm) (document.Cell, document.Cell) {
		hit := document.Num(a.EndHit, 2)
		if a.Persistent {
			hit = hit.Mark(persistentMarker)
		}
		return hit, document.Num(a.EndSessions, 0)
	}
	se.Pairs = []SummaryPair{}
	for _, row := range t2.Rows {
		th, ts := arm(row.Twin)
		bh, bs := arm(row.Burst)
		table.Rows = append(table.Rows, []document.Cell{document.Int(row.Seed), th, ts, bh, bs})
		se.Pairs = append(se.Pairs, SummaryPair{Seed: row.Seed, Twin: pairArm(row.Twin), Burst: pairArm(row.Burst)})
	}
	n := t2.BurstOnly + t2.TwinOnly
	judged := len(t2.Rows) - t2.Unjudged
	table.Notes = append(table.Notes,
		persistentMarker+" persistently degraded from its first degraded window after the burst to the end of the run.",
		fmt.Sprintf("Only the burst run degraded in %d of %d pairs, only the twin in %d, both in %d, neither in %d; two-sided exact sign test over the %d discordant pairs: %s.",
			t2.BurstOnly, judged, t2.TwinOnly, t2.Both, t2.Neither, n, pText(t2.SignP)))
	table.Notes = append(table.Notes, t2.Warnings...)
	se.SignTest = signSummary(t2)
	se.Warnings = append(se.Warnings, t2.Warnings...)
	sec.Blocks = append(sec.Blocks, table)

	sign := &document.Table{
		ID:      "sign-" + e.slug,
		Caption: "Sign test over discordant pairs (§3).",
		Columns: []document.Column{{Name: "Pairs"}, {Name: "Burst only"}, {Name: "Twin only"}, {Name: "Both"}, {Name: "Neither"}, {Name: "Discordant"}, {Name: "p (two-sided, exact)"}},
		Rows:    [][]document.Cell{{document.Int(int64(judged)), document.Int(int64(t2.BurstOnly)), document.Int(int64(t2.TwinOnly)), document.Int(int64(t2.Both)), document.Int(int64(t2.Neither)), document.Int(int64(n)), pCell(t2.SignP)}},
	}
	if n == 0 {
		sign.Rows[0][6] = document.Missing()
		sign.Notes = []string{"No discordant pair: the test has nothing to count."}
	}
	sec.Blocks = append(sec.Blocks, sign)
	b.pairedFinding(e, t2, twin)

	if len(t2.Rows) == 0 {
		sec.Blocks = append(sec.Blocks, &document.Note{Kind: document.NoteWarning, Text: fmt.Sprintf("No complete pair: Table 2 needs a %q and a %q run with the same seed.", twin, schema.ArmBurst)})
		sec.Blocks = append(sec.Blocks, b.perRunGrid(e)...)
		return
	}
	// Without --seed, feature the first pair in which only the burst run
	// degraded: the pair the paper's Figure 1 shows. Any pair otherwise.
	var pairSeeds, typical []int64
	for _, row := range t2.Rows {
		pairSeeds = append(pairSeeds, row.Seed)
		if row.Burst.Persistent && !row.Twin.Persistent {
			typical = append(typical, row.Seed)
		}
	}
	why := "the smallest seed"
	if len(typical) > 0 {
		why = "the first pair in which only the burst run degraded"
		pairSeeds = append(typical, pairSeeds...)
	}
	seed, _ := b.featured(e, pairSeeds)
	if b.opt.Seed != nil && *b.opt.Seed == seed {
		why = "chosen with --seed"
	}
	se.FeaturedSeed = &seed
	var feat stats.Table2Row
	for _, row := range t2.Rows {
		if row.Seed == seed {
			feat = row
		}
	}
	headline := ""
	if feat.Burst.Persistent && !feat.Twin.Persistent {
		headline = "A burst that outlasts itself. "
	}
	tw, bu := runByName(e, feat.Twin.Run), runByName(e, feat.Burst.Run)
	sec.Blocks = append(sec.Blocks, b.figure1(e, seed, headline, why, tw, bu))

	grid := &document.Grid{Caption: "Every pair: hit ratio per minute, twin (blue) against burst (red), burst shaded.", Columns: 3}
	drawn, left := pick(t2.Rows, b.share, func(row stats.Table2Row) int {
		switch {
		case row.Seed == seed:
			return 0
		case row.Burst.Persistent != row.Twin.Persistent:
			return 1
		case row.Burst.Persistent:
			return 2
		}
		return 3
	})
	if len(left) > 0 {
		grid.Caption = fmt.Sprintf("%d of %d pairs (the featured one, then those where one run degraded): hit ratio per minute, twin (blue) against burst (red), burst shaded.", len(drawn), len(t2.Rows))
	}
	for _, row := range drawn {
		tw, bu := runByName(e, row.Twin.Run), runByName(e, row.Burst.Run)
		bands, marks := annotate(bu, tw)
		title := fmt.Sprintf("seed %d", row.Seed)
		switch {
		case row.Burst.Persistent && row.Twin.Persistent:
			title += " (both " + persistentMarker + ")"
		case row.Burst.Persistent:
			title += " (burst " + persistentMarker + ")"
		case row.Twin.Persistent:
			title += " (twin " + persistentMarker + ")"
		}
		grid.Figures = append(grid.Figures, runSpan(&document.TimeSeries{
			ID: fmt.Sprintf("pair-%s-%d", e.slug, row.Seed), Title: title,
			YAxes:  []document.Axis{{Name: "hit ratio", Min: 0, Max: 1}},
			Series: []document.Series{runSeries("no burst", tw, mHit, twinColor), runSeries("burst", bu, mHit, burstColor)},
			Bands:  bands, Marks: marks,
		}, tw, bu))
	}
	var names []string
	for _, row := range left {
		names = append(names, fmt.Sprintf("seed %d (%s, %s)", row.Seed, row.Twin.Run, row.Burst.Run))
	}
	sec.Blocks = append(sec.Blocks, withLeftOut([]document.Block{grid}, left, "pairs", names)...)
	sec.Blocks = append(sec.Blocks, b.figure4(e, seed, tw, bu))
	sec.Blocks = append(sec.Blocks, b.engineView(e, viewRun{tw, "twin", twinColor}, viewRun{bu, "burst", burstColor})...)
}

// pairedFinding is Table 2 in a sentence: how many burst runs and twins
// ended persistently degraded, and the sign test.
func (b *builder) pairedFinding(e *experiment, t2 stats.Table2, twin string) {
	n := len(t2.Rows) - t2.Unjudged
	if len(t2.Rows) == 0 {
		b.found(e, "sign-test", true, nil, numbers{"pairs": 0},
			fmt.Sprintf("no complete pair: Table 2 needs a %q and a %q run with the same seed.", twin, schema.ArmBurst))
		return
	}
	if n == 0 {
		b.found(e, "sign-test", true, nil, numbers{"pairs": 0, "unjudged": float64(t2.Unjudged)},
			fmt.Sprintf("no pair to count: in each of the %s a run's persistence is unknown (see Table 2's notes).", plural(t2.Unjudged, "pair")))
		return
	}
	nBurst, tw := t2.BurstOnly+t2.Both, t2.TwinOnly+t2.Both
	test := fmt.Sprintf("exact sign test %s, %s", pText(t2.SignP), plural(n, "pair"))
	if t2.BurstOnly+t2.TwinOnly == 0 {
		test = fmt.Sprintf("no discordant pair for the sign test, %s", plural(n, "pair"))
	}
	left := ""
	if t2.Unjudged > 0 {
		left = fmt.Sprintf("; %s left out, a run's persistence unknown", plural(t2.Unjudged, "pair"))
	}
	nums := numbers{"pairs": float64(n), "burst_persistent": float64(nBurst), "twin_persistent": float64(tw),
		"burst_only": float64(t2.BurstOnly), "twin_only": float64(t2.TwinOnly), "both": float64(t2.Both), "neither": float64(t2.Neither), "p": t2.SignP}
	if t2.Unjudged > 0 {
		nums["unjudged"] = float64(t2.Unjudged)
	}
	what, kinds := armTrigger(e, schema.ArmBurst, schema.TriggerBurst)
	_, twinKinds := armTrigger(e, twin, schema.TriggerNone)
	text := fmt.Sprintf("%s left %d of %d servers persistently degraded, their twins %d (%s%s).", what, nBurst, n, tw, test, left)
	same := strings.Join(kinds, ",") == strings.Join(twinKinds, ",")
	switch {
	case len(kinds) == 1 && kinds[0] == schema.TriggerNone:
		text = fmt.Sprintf("the %q arm ran no trigger (trigger.kind none), so the pairs test nothing a trigger did: %d of %d of its runs ended persistently degraded, their twins %d (%s%s).",
			schema.ArmBurst, nBurst, n, tw, test, left)
	case same:
		text = fmt.Sprintf("the %q arm and its twins ran the same trigger (%s), so the pairs test nothing a trigger did: %d of %d %q runs ended persistently degraded, their twins %d (%s%s).",
			schema.ArmBurst, strings.Join(kinds, ", "), nBurst, n, schema.ArmBurst, tw, test, left)
	}
	burst, twinEff := pairedEffects(t2)
	effectNumbers(nums, "burst", burst)
	effectNumbers(nums, "twin", twinEff)
	text += " " + effectsText(burst, twinEff) + "."
	b.found(e, "sign-test", t2.Unjudged > 0 || same || kinds[0] == schema.TriggerNone, nil, nums, text)
}

// armTrigger returns the trigger kinds the runs of arm of e were given,
// sorted (an unstated one is unstated), and, for the sign test's
// finding, what they were as a plural noun: "bursts", "cache flushes",
// "triggers" when they differ.
func armTrigger(e *experiment, arm, unstated string) (string, []string) {
	set := map[string]bool{}
	for _, r := range e.runs {
		if r.run.Arm == arm {
			k := r.run.TriggerKind
			if k == "" {
				k = unstated
			}
			set[k] = true
		}
	}
	kinds := sortedKeys(set)
	if len(kinds) == 0 {
		kinds = []string{unstated}
	}
	if len(kinds) != 1 {
		return "triggers", kinds
	}
	switch kinds[0] {
	case schema.TriggerFlush:
		return "cache flushes", kinds
	case schema.TriggerRateChange:
		return "rate changes", kinds
	case schema.TriggerMixShift:
		return "mix shifts", kinds
	}
	return "bursts", kinds
}

// pairPanel is one panel of a pair's figure: one measure, twin against
// burst.
func pairPanel(id, title string, y document.Axis, tw, bu *runInfo, f measure) *document.TimeSeries {
	bands, marks := annotate(bu, tw)
	return runSpan(&document.TimeSeries{
		ID: id, Title: title, YAxes: []document.Axis{y},
		Series: []document.Series{runSeries("no burst (twin)", tw, f, twinColor), runSeries("burst", bu, f, burstColor)},
		Bands:  bands, Marks: marks,
	}, tw, bu)
}

// figure1 is the paper's Figure 1 for one pair: hit ratio, turn
// throughput and sessions in the system per minute.
func (b *builder) figure1(e *experiment, seed int64, headline, why string, tw, bu *runInfo) *document.Grid {
	id := fmt.Sprintf("fig1-%s", e.slug)
	return &document.Grid{
		Caption: fmt.Sprintf("Figure 1. %sSeed %d (%s): %s against its twin %s. Same base arrivals; the burst run additionally receives the injected burst (shaded). Per-minute token-weighted hit ratio, turn throughput and mean sessions in the system.", headline, seed, why, bu.run.Run, tw.run.Run),
		Columns: 1,
		Figures: []document.Figure{
			pairPanel(id+"-hit", "Prefix-cache hit ratio", document.Axis{Name: "hit ratio", Min: 0, Max: 1}, tw, bu, mHit),
			pairPanel(id+"-throughput", "Turn throughput", document.Axis{Name: "throughput", Unit: "turns/s"}, tw, bu, mThroughput),
			pairPanel(id+"-sessions", "Sessions in the system", document.Axis{Name: "sessions"}, tw, bu, mSessions),
		},
	}
}

// figure4 is the paper's Figure 4 for one pair: D/C, recomputed prompt
// tokens per second and hit ratio per minute.
func (b *builder) figure4(e *experiment, seed int64, tw, bu *runInfo) *document.Grid {
	id := fmt.Sprintf("fig4-%s", e.slug)
	dc := pairPanel(id+"-demand", "Resident demand over the KV pool", document.Axis{Name: "D/C"}, tw, bu, mDemand)
	if len(dc.Series[0].X) > 0 {
		x := []float64{dc.Series[0].X[0], dc.Series[0].X[len(dc.Series[0].X)-1]}
		dc.Series = append(dc.Series, document.Series{Name: "pool (D/C = 1)", X: x, Y: []float64{1, 1}, Color: boundColor, Dash: true})
	}
	return &document.Grid{
		Caption: fmt.Sprintf("Figure 4. The loop in one pair (seed %d): resident demand relative to the KV pool, recomputed prompt tokens and hit ratio, per minute. Burst shaded.", seed),
		Columns: 3,
		Figures: []document.Figure{
			dc,
			pairPanel(id+"-recompute", "Recomputed prompt tokens", document.Axis{Name: "recomputed", Unit: "tokens/s"}, tw, bu, mRecompute),
			pairPanel(id+"-hit", "Hit ratio", document.Axis{Name: "hit ratio", Min: 0, Max: 1}, tw, bu, mHit),
		},
	}
}
