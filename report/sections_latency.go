package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/report/render"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// The latency of each experiment (latency.go measures it): a table per
// arm; TTFT per minute beside the hit ratio for the featured runs, the
// picture of a burst that outlasts itself in what users feel; each arm's
// TTFT and end-to-end distributions and goodput; a finding; and the
// latency columns of the overview with every run's figures
// (tables/latency.csv).

// cdfPoints is how many points a pooled distribution is drawn with.
const cdfPoints = 80

// latencyArms returns e's arms in the order its latency is told: a paired
// design's twins first, as its other figures draw them.
func latencyArms(e *experiment) []string {
	all := arms(e.runs)
	if e.design != schema.DesignPaired {
		return all
	}
	twin := twinArmOf(e)
	out := []string{twin}
	for _, a := range all {
		if a != twin {
			out = append(out, a)
		}
	}
	return out
}

// latencyColor is the colour of an arm in e's latency figures: a pair's
// twin blue and burst red, as in its other figures.
func latencyColor(e *experiment, arm string) string {
	if e.design == schema.DesignPaired {
		switch arm {
		case twinArmOf(e):
			return twinColor
		case schema.ArmBurst:
			return burstColor
		}
	}
	return armColor(arms(e.runs), arm)
}

// latencySection adds e's latency: its table per arm, TTFT per minute of
// the featured runs beside their hit ratio, the arms' distributions and
// goodput, and, for paired, recovery and observed runs, a finding.
func (b *builder) latencySection(e *experiment, sec *document.Section, se *SummaryExperiment) {
	order := latencyArms(e)
	als := armLatencies(e.runs, order)
	for _, al := range als {
		se.Latency = append(se.Latency, al.summary())
	}
	switch e.design {
	case schema.DesignPaired, schema.DesignRecovery, schema.DesignObserve:
		b.latencyFinding(e, als)
	}
	measured := false
	for _, r := range e.runs {
		measured = measured || r.lat.WithSent > 0
	}
	if !measured {
		sec.Blocks = append(sec.Blocks, &document.Note{Kind: document.NoteWarning,
			Text: "Latency: no completed turn of these runs has a sent time, so no latency can be measured (see the findings)."})
		return
	}
	sec.Blocks = append(sec.Blocks, b.latencyTable(e, als))
	if g := b.ttftOverTime(e, se); g != nil {
		sec.Blocks = append(sec.Blocks, g)
	}
	sec.Blocks = append(sec.Blocks, b.latencyDistributions(e, als))
}

// latencyTable is e's latency per arm.
func (b *builder) latencyTable(e *experiment, als []armLatency) *document.Table {
	t := &document.Table{
		ID: "latency-" + e.slug,
		Caption: "Latency per arm, in seconds. For each run, the percentiles of its completed turns (linear interpolation, as DuckDB's quantile_cont): TTFT = first token − sent, TPOT = (done − first token)/(output tokens − 1), end-to-end = done − sent, queue = sent − ready at the gateway; end TTFT over the turns sent in the last 10 minutes; then the median over the arm's runs. Goodput: the share of the arm's completed turns meeting the SLO, " +
			sloText(b.opt.SLO) + ". Aborted and error turns are counted apart and measure nothing.",
		Columns: []document.Column{
			{Name: "Arm"}, {Name: "Runs"}, {Name: "Completed"}, {Name: "Aborted"}, {Name: "Errors"},
			{Group: "TTFT", Name: "p50", Unit: "s"}, {Group: "TTFT", Name: "p90", Unit: "s"}, {Group: "TTFT", Name: "p99", Unit: "s"},
			{Name: "End TTFT p90", Unit: "s"}, {Name: "TPOT p90", Unit: "s"}, {Name: "End-to-end p90", Unit: "s"}, {Name: "Queue p90", Unit: "s"}, {Name: "Goodput"},
		},
	}
	for _, al := range als {
		t.Rows = append(t.Rows, []document.Cell{
			document.Text(al.arm), document.Int(int64(len(al.runs))), document.Int(int64(al.completed)), document.Int(int64(al.aborted)), document.Int(int64(al.errored)),
			secCell(al.ttft[0]), secCell(al.ttft[1]), secCell(al.ttft[2]),
			secCell(al.endTTFT), secCell(al.tpot[1]), secCell(al.e2e[1]), secCell(al.queue[1]), document.Num(al.goodput.Fraction, 2),
		})
	}
	return t
}

// latencyFeatured returns the runs whose TTFT e draws over time: for an
// observed experiment its most degraded runs, at most 4; otherwise every
// arm, by its run of the featured seed, else of --seed, else of the
// smallest seed it has (an arm without the seed still shows a run, as in
// the engine view).
func (b *builder) latencyFeatured(e *experiment, se *SummaryExperiment) []viewRun {
	var out []viewRun
	if e.design == schema.DesignObserve {
		drawn, _ := pick(e.runs, 4, verdictRank)
		for i, r := range drawn {
			out = append(out, viewRun{r, r.name(), render.PaletteColor(i)})
		}
		return out
	}
	want := se.FeaturedSeed
	if want == nil {
		want = b.opt.Seed
	}
	for _, a := range latencyArms(e) {
		var pick *runInfo
		for _, r := range e.runs {
			if r.run.Arm != a {
				continue
			}
			switch {
			case pick == nil:
				pick = r
			case want != nil && r.seedIs(*want) && !pick.seedIs(*want):
				pick = r
			case (want == nil || !pick.seedIs(*want)) && r.run.Seed != nil && (pick.run.Seed == nil || *r.run.Seed < *pick.run.Seed):
				pick = r
			}
		}
		if pick != nil { // a pair's twin arm may have no run in this section
			out = append(out, viewRun{pick, a, latencyColor(e, a)})
		}
	}
	return out
}

// ttftOverTime draws the featured runs' TTFT per minute beside their hit
// ratio; nil when none of them has a TTFT.
func (b *builder) ttftOverTime(e *experiment, se *SummaryExperiment) *document.Grid {
	feat := b.latencyFeatured(e, se)
	var rs []*runInfo
	var hit, ttft []document.Series
	drawn := false
	for _, v := range feat {
		rs = append(rs, v.r)
		drawn = drawn || v.r.lat.WithFirstToken > 0
		hit = append(hit, runSeries(v.label, v.r, mHit, v.color))
		ttft = append(ttft, logSafe(runSeries(v.label+" p50", v.r, mTTFTP50, v.color)), dashed(logSafe(runSeries(v.label+" p90", v.r, mTTFTP90, v.color))))
	}
	if !drawn {
		return nil
	}
	bands, marks := annotate(rs...)
	id := "latency-time-" + e.slug
	which := "every arm: " + viewRunsText(feat)
	if e.design == schema.DesignObserve {
		which = "the most degraded runs"
	}
	cols := 2
	if len(feat) > 2 {
		cols = 1 // room for the legend of every arm
	}
	g := &document.Grid{
		Caption: fmt.Sprintf("TTFT over time (%s): per minute, the median (solid) and 90th percentile (dashed) time to first token of the completed turns sent in that minute, on a log axis, beside the hit ratio. Trigger shaded, control start marked. A turn not answered by the end of the run is not drawn, so a collapsed server's last minutes read better than they were.", which),
		Columns: cols,
		Figures: []document.Figure{
			runSpan(&document.TimeSeries{ID: id + "-hit", Title: "Hit ratio", YAxes: []document.Axis{{Name: "hit ratio", Min: 0, Max: 1}}, Series: hit, Bands: bands, Marks: marks}, rs...),
			runSpan(&document.TimeSeries{ID: id + "-ttft", Title: "Time to first token", YAxes: []document.Axis{decades(document.Axis{Name: "TTFT", Unit: "s", Log: true}, ttft...)}, Series: ttft, Bands: bands, Marks: marks}, rs...),
		},
	}
	return g
}

// decades fixes log axis a to the powers of ten around the positive values
// of series, so that its ends are round (ECharts' own ends a log axis at
// the largest value, 238.629).
func decades(a document.Axis, series ...document.Series) document.Axis {
	lo, hi := math.Inf(1), 0.0
	for _, s := range series {
		for _, v := range s.Y {
			if v > 0 && !math.IsInf(v, 0) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if hi > 0 {
		a.Min, a.Max = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
		if !(a.Max > a.Min) {
			a.Max = 10 * a.Min
		}
	}
	return a
}

// logSafe leaves out the values a log axis cannot draw (≤ 0: a clock
// that put the first token before the send).
func logSafe(s document.Series) document.Series {
	y := make([]float64, len(s.Y))
	for i, v := range s.Y {
		y[i] = v
		if !(v > 0) {
			y[i] = math.NaN()
		}
	}
	s.Y = y
	return s
}

// latencyDistributions draws each arm's TTFT and end-to-end
// distributions on a log axis, and its goodput.
func (b *builder) latencyDistributions(e *experiment, als []armLatency) *document.Grid {
	id := "latency-" + e.slug
	cdf := func(suffix, title, name string, grid func(*runInfo) ([]float64, int)) *document.Scatter {
		f := &document.Scatter{ID: id + "-" + suffix, Title: title,
			XAxis: document.Axis{Name: name, Unit: "s", Log: true}, YAxis: document.Axis{Name: "share of completed turns", Min: 0, Max: 1}}
		var xs []document.Series
		for _, al := range als {
			if x, y, ok := pooledCDF(al.runs, grid, cdfPoints); ok {
				f.Lines = append(f.Lines, document.Line{Name: al.arm, X: x, Y: y, Color: latencyColor(e, al.arm), Data: true})
				xs = append(xs, document.Series{Y: x})
			}
		}
		f.XAxis = decades(f.XAxis, xs...)
		return f
	}
	good := &document.Bar{ID: id + "-goodput", Title: "Goodput", XName: "arm", YAxis: document.Axis{Name: "goodput", Unit: "share of completed turns", Min: 0, Max: 1}}
	vals := make([]float64, len(als))
	for i, al := range als {
		good.Categories = append(good.Categories, al.arm)
		vals[i] = al.goodput.Fraction
	}
	good.Series = []document.BarSeries{{Name: "goodput", Values: vals, Color: render.PaletteColor(2)}}
	return &document.Grid{
		Caption: "Latency per arm: the time to first token and the end-to-end latency of the arm's completed turns as cumulative distributions on a log axis (each run's distribution read off its percentiles 0 to 100, weighted by its turns), and goodput, the share of the arm's completed turns meeting the SLO, " + sloText(b.opt.SLO) + " (outlast report --slo).",
		Columns: 3,
		Figures: []document.Figure{
			cdf("cdf-ttft", "TTFT distribution", "TTFT", func(r *runInfo) ([]float64, int) { return r.lat.ttftGrid, r.lat.TTFT.N }),
			cdf("cdf-e2e", "End-to-end distribution", "end-to-end", func(r *runInfo) ([]float64, int) { return r.lat.e2eGrid, r.lat.E2E.N }),
			good,
		},
	}
}

// latencyFinding states the latency users felt in each arm (paired,
// recovery) or run (observed): the TTFT p90 over the last 10 minutes and
// goodput, else what latency there is.
func (b *builder) latencyFinding(e *experiment, als []armLatency) {
	// The numbers are what the sentence quotes: per arm, or per run for
	// an observed experiment.
	nums := numbers{}
	if e.design == schema.DesignObserve {
		for _, r := range e.runs {
			l := r.lat
			nums[r.name()+".end_ttft_p90_s"] = l.EndTTFT.P90
			nums[r.name()+".ttft_p90_s"] = l.TTFT.P90
			nums[r.name()+".e2e_p90_s"] = l.E2E.P90
			nums[r.name()+".goodput"] = l.Goodput.Fraction
		}
	} else {
		for _, al := range als {
			nums[al.arm+".end_ttft_p90_s"] = al.endTTFT
			nums[al.arm+".ttft_p90_s"] = al.ttft[1]
			nums[al.arm+".e2e_p90_s"] = al.e2e[1]
			nums[al.arm+".goodput"] = al.goodput.Fraction
		}
	}
	// What to quote: the end window's TTFT, else the whole run's TTFT,
	// else its end-to-end latency.
	what, val := "TTFT p90 over the last 10 minutes", func(al armLatency) float64 { return al.endTTFT }
	known := func(f func(armLatency) float64) bool {
		for _, al := range als {
			if !math.IsNaN(f(al)) {
				return true
			}
		}
		return false
	}
	if !known(val) {
		what, val = "TTFT p90 over the run", func(al armLatency) float64 { return al.ttft[1] }
	}
	if !known(val) {
		what, val = "end-to-end p90 over the run (no first-token time)", func(al armLatency) float64 { return al.e2e[1] }
	}
	if !known(val) {
		b.found(e, "latency", true, nil, nums, "latency unknown: no completed turn has a sent time.")
		return
	}
	slo := sloText(b.opt.SLO)
	if e.design == schema.DesignObserve {
		runVal := func(r *runInfo) float64 { return val(armLatencies([]*runInfo{r}, []string{r.run.Arm})[0]) }
		b.found(e, "latency", false, nil, nums, fmt.Sprintf("%s: %s; goodput with %s.", what, listRuns(e.runs, func(r *runInfo) string {
			return secText(runVal(r)) + ", goodput " + pctText(r.lat.Goodput.Fraction)
		}), slo))
		return
	}
	// A pair: the burst runs against their twins.
	if e.design == schema.DesignPaired && len(als) == 2 {
		tw, bu := als[0], als[1]
		of := fmt.Sprintf("%d runs each", len(bu.runs))
		if len(bu.runs) != len(tw.runs) {
			of = fmt.Sprintf("%d and %d runs", len(bu.runs), len(tw.runs))
		}
		b.found(e, "latency", false, nil, nums, fmt.Sprintf("the %s runs' %s was %s (twins %s; medians of %s); goodput %s (twins %s) with %s.",
			bu.arm, what, secText(val(bu)), secText(val(tw)), of, pctText(bu.goodput.Fraction), pctText(tw.goodput.Fraction), slo))
		return
	}
	var vs, gs []string
	for _, al := range als {
		name := al.arm
		if name == schema.ArmNone {
			name = "no control"
		}
		vs = append(vs, name+" "+secText(val(al)))
		gs = append(gs, name+" "+pctText(al.goodput.Fraction))
	}
	b.found(e, "latency", false, nil, nums, fmt.Sprintf("%s (median of each arm's runs): %s; goodput %s with %s.",
		what, strings.Join(vs, ", "), strings.Join(gs, ", "), slo))
}

// latencyWarnings warns of runs whose completed turns carry no
// first-token time (or no sent time): their TTFT, TPOT and goodput are
// unknown, not 0.
func (b *builder) latencyWarnings(e *experiment) {
	var runs []*runInfo
	missing := 0
	for _, r := range e.runs {
		if l := r.lat; l.Completed > l.WithFirstToken {
			runs = append(runs, r)
			missing += l.Completed - l.WithFirstToken
		}
	}
	if len(runs) == 0 {
		return
	}
	b.found(e, "no-first-token", true, runNames(runs), numbers{"runs": float64(len(runs)), "turns": float64(missing)},
		fmt.Sprintf("the gateway logs of %s carry no first-token time (or no sent time), so the TTFT, TPOT and goodput of those turns are unknown, not 0, and left out. A load generator records the first token of streamed requests only (AIPerf, GuideLLM and inference-perf do; a log of non-streamed OpenAI-compatible requests has none); end-to-end latency needs only the sent time.",
			listRuns(runs, func(r *runInfo) string {
				l := r.lat
				if l.WithFirstToken == 0 {
					return fmt.Sprintf("none of %s", plural(l.Completed, "completed turn"))
				}
				return fmt.Sprintf("%d of %s", l.Completed-l.WithFirstToken, plural(l.Completed, "completed turn"))
			})))
}

// latencyColumns are the overview's latency columns; latencyCells a run's.
func latencyColumns() []document.Column {
	return []document.Column{{Name: "TTFT p50", Unit: "s"}, {Name: "TTFT p90", Unit: "s"}, {Name: "End TTFT p90", Unit: "s"}, {Name: "Goodput"}}
}

func latencyCells(r *runInfo) []document.Cell {
	l := r.lat
	return []document.Cell{secCell(l.TTFT.P50), secCell(l.TTFT.P90), secCell(l.EndTTFT.P90), document.Num(l.Goodput.Fraction, 2)}
}

// latencyOverviewCaption is what the overview's caption says of its
// latency columns.
func (b *builder) latencyOverviewCaption() string {
	return " TTFT: time to first token of the completed turns (median, 90th percentile; end: of the turns sent in the last 10 minutes); goodput: the share of completed turns meeting the SLO, " + sloText(b.opt.SLO) + " (tables/latency.csv has every latency figure)."
}

// runLatencyTable is every run's latency: tables/latency.csv.
func (b *builder) runLatencyTable() *document.Table {
	t := &document.Table{
		ID: "latency",
		Caption: "Every run's latency, in seconds: the 50th, 90th and 99th percentiles (linear interpolation, as DuckDB's quantile_cont) over its completed turns of the queue wait at the gateway (sent − ready), the time to first token (first token − sent), the time per output token after the first ((done − first token)/(output tokens − 1), turns of 2 tokens or more) and the end-to-end latency (done − sent); the TTFT p90 of the turns sent in the last 10 minutes; goodput, the share of the completed turns meeting the SLO, " +
			sloText(b.opt.SLO) + ". Completed: turns with status ok; aborted and error turns are counted apart; first token: completed turns with a sent and a first-token time.",
		Sortable: true,
		Columns:  []document.Column{{Name: "Run"}, {Name: "Arm"}, {Name: "Completed"}, {Name: "Aborted"}, {Name: "Errors"}, {Name: "First token"}},
	}
	for _, m := range []string{"Queue", "TTFT", "TPOT", "End-to-end"} {
		for _, p := range []string{"p50", "p90", "p99"} {
			t.Columns = append(t.Columns, document.Column{Group: m, Name: p, Unit: "s"})
		}
	}
	t.Columns = append(t.Columns, document.Column{Name: "End TTFT p90", Unit: "s"}, document.Column{Name: "Goodput"})
	for _, r := range b.runs {
		l := r.lat
		row := []document.Cell{document.Text(r.name()), document.Text(orDash(r.run.Arm)), document.Int(int64(l.Completed)), document.Int(int64(l.Aborted)),
			document.Int(int64(l.Errored)), document.Int(int64(l.WithFirstToken))}
		for _, p := range []stats.Percentiles{l.Queue, l.TTFT, l.TPOT, l.E2E} {
			row = append(row, secCell(p.P50), secCell(p.P90), secCell(p.P99))
		}
		row = append(row, secCell(l.EndTTFT.P90), document.Num(l.Goodput.Fraction, 2))
		t.Rows = append(t.Rows, row)
	}
	return t
}

// figure6TTFT sets each run's TTFT p90 over the last 10 minutes beside
// Figure 6's wait: what users felt after the shift.
func (b *builder) figure6TTFT(e *experiment, all []string) *document.Scatter {
	f := &document.Scatter{
		ID: "fig6-ttft-" + e.slug, Title: "TTFT after the shift against hit ratio after it",
		Caption: "Figure 6, beside it: each run's TTFT p90 over the last 10 minutes (log axis) against the same hit ratio: a controller too loose to keep the cache pays in time to first token after the shift.",
		XAxis:   document.Axis{Name: "TTFT p90, last 10 minutes", Unit: "s", Log: true},
		YAxis:   document.Axis{Name: "hit ratio (end)", Min: 0, Max: 1},
	}
	for _, a := range all {
		g := document.ScatterGroup{Name: a, Color: armColor(all, a)}
		for _, r := range e.runs {
			if r.run.Arm == a {
				v := r.lat.EndTTFT.P90
				if !(v > 0) {
					v = math.NaN()
				}
				g.Points = append(g.Points, [2]float64{v, r.sum.EndHit})
				g.Labels = append(g.Labels, r.name())
			}
		}
		f.Groups = append(f.Groups, g)
	}
	if moved := dodge(f.Groups, true); moved > 0 {
		f.Caption += fmt.Sprintf(" Points that would be drawn on one another (closer than %s and %s in hit ratio) are moved to the right, each by the least that clears the others (here by at most ×%s), as in the wait panel; the table gives the exact values.",
			sepText, document.Num(dodgeSepY, -1).Display(), document.Num(moved, 3).Display())
	}
	return f
}
