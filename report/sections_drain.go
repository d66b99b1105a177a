package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/report/render"
	"github.com/outlast-dev/outlast/stats"
)

// drainSection adds W(t) per run, the slopes table and the bracket beside
// 1/S.
func (b *builder) drainSection(e *experiment, sec *document.Section, se *SummaryExperiment) {
	if b.fit == nil {
		msg := "No c(L) fit (neither caching-off calibration runs nor enough all-miss windows): W(t) cannot be computed."
		sec.Blocks = append(append(sec.Blocks, &document.Note{Kind: document.NoteWarning, Text: msg}), b.perRunGrid(e)...)
		se.Warnings = append(se.Warnings, msg)
		nan := math.NaN()
		b.found(e, "drain-bracket", true, nil, numbers{"largest_not_growing": nan, "smallest_growing": nan, "largest_draining": nan, "model_rate": nan, "runs": 0, "left_out": float64(len(e.runs)), "grows_below": nan},
			"no c(L) fit (neither caching-off calibration runs nor enough all-miss windows of persistently degraded runs), so W(t) cannot be computed and the drain bracket is unknown.")
		return
	}
	if b.fitInfo.Source != "calibration" {
		sec.Blocks = append(sec.Blocks, &document.Note{Text: "c(L) is the alternative fit on all-miss windows of persistently degraded cache-on runs: the dataset has no caching-off calibration runs."})
	}
	var drains []stats.Drain
	modelRate := math.NaN()
	f := &document.TimeSeries{
		ID: "drain-" + e.slug, Title: "Remaining cold work after the rate change",
		Caption: "W(t) per run, sampled every 10 minutes from the rate change; one line per run, named by the arrival rate after the change.",
		YAxes:   []document.Axis{{Name: "remaining cold work", Unit: "engine-s"}},
	}
	se.Slopes = []SummarySlope{}
	for _, r := range e.runs {
		if r.drainErr != nil {
			se.Warnings = append(se.Warnings, r.name()+": "+r.drainErr.Error())
			continue
		}
		d := r.drain.Drain(*b.fit)
		drains = append(drains, d)
		if sc := b.sessionCost(r); math.IsNaN(modelRate) && !math.IsNaN(sc) {
			modelRate = stats.DrainBound(sc)
		}
		se.Slopes = append(se.Slopes, slopeSummary(d))
	}
	// Lines ordered by rate so that the legend reads low to high.
	sort.SliceStable(drains, func(i, j int) bool { return drains[i].RateAfter < drains[j].RateAfter })
	rates := map[float64]int{}
	for _, d := range drains {
		if _, ok := rates[d.RateAfter]; !ok {
			rates[d.RateAfter] = len(rates)
		}
	}
	nth := map[float64]int{}
	for _, d := range drains {
		// Named by rate, numbered within it, to keep the legend short; the
		// slopes table gives the run behind each number.
		nth[d.RateAfter]++
		name := fmt.Sprintf("λ=%s #%d", strconv.FormatFloat(d.RateAfter, 'g', -1, 64), nth[d.RateAfter])
		s := document.Series{Name: name, Color: render.PaletteColor(rates[d.RateAfter])}
		for _, p := range d.Points {
			s.X = append(s.X, minutes(p.T))
			s.Y = append(s.Y, p.ColdWorkS)
		}
		f.Series = append(f.Series, s)
	}
	for _, r := range e.runs {
		if bd, ok := triggerBand(&r.run); ok && !containsBand(f.Bands, bd) && bd.To > bd.From {
			f.Bands = append(f.Bands, bd)
		}
	}
	bracket := stats.NewDrainBracket(drains, modelRate)
	slopeTable := &document.Table{
		ID:      "drain-slopes-" + e.slug,
		Caption: fmt.Sprintf("Slope of W(t) per run (engine-seconds per hour) with its standard error and %.0f%% confidence interval (slope ± t·SE, t with samples − 2 degrees of freedom): drains when the interval lies below 0, grows when above, undecided when it contains 0. Degraded: whether the 5 minutes before the rate change had a hit ratio below 0.5; only such runs enter the bracket (§4 measures drain after a collapse).", 100*stats.DrainConfidence),
		Columns: []document.Column{{Name: "Run"}, {Name: "Line"}, {Name: "λ after", Unit: "sessions/s"}, {Name: "Degraded at change"}, {Name: "Slope", Unit: "engine-s/h"}, {Name: "SE", Unit: "engine-s/h"}, {Name: "95% CI", Unit: "engine-s/h"}, {Name: "Verdict"}, {Name: "Samples"}},
	}
	for i, d := range drains {
		lo, hi := d.SlopeCI()
		deg := document.Missing()
		if d.DegradedKnown {
			deg = document.Text(map[bool]string{true: "yes", false: "no"}[d.Degraded])
		}
		slopeTable.Rows = append(slopeTable.Rows, []document.Cell{document.Text(d.Run), document.Text(f.Series[i].Name), document.Num(d.RateAfter, -1), deg,
			document.Num(d.SlopePerHour, 0), document.Num(d.SEPerHour, 0), document.Range(lo, hi, 0), document.Text(orDash(d.Verdict())), document.Int(int64(len(d.Points)))})
	}
	bt := &document.Table{
		ID:      "drain-bracket-" + e.slug,
		Caption: "Measured break-even beside the model's 1/S, from the runs degraded when the rate changed: a rate grows when every such run's slope interval lies above 0, drains when every one lies below 0, and is undecided otherwise. The bracket is the largest rate that did not grow and the smallest, above it, that grew.",
		Columns: []document.Column{{Name: "λ after", Unit: "sessions/s"}, {Name: "Runs"}, {Name: "Verdict"}, {Name: "Left out"}},
	}
	for _, r := range bracket.Rates {
		var used []string
		for _, run := range r.Runs {
			used = append(used, run.Run)
		}
		bt.Rows = append(bt.Rows, []document.Cell{document.Num(r.Rate, -1), document.Text(strings.Join(used, ", ")), document.Text(r.Verdict), document.Int(int64(len(r.LeftOut)))})
	}
	grows := "no rate at which every run grew"
	if !math.IsNaN(bracket.SmallestGrowing) {
		grows = "every run grew at " + document.Num(bracket.SmallestGrowing, -1).Display()
	}
	bt.Notes = append(bt.Notes, fmt.Sprintf("Largest rate that did not grow: %s sessions/s; %s. Model 1/S = %s sessions/s.",
		document.Num(bracket.LargestNotGrowing, -1).Display(), grows, document.Num(bracket.ModelRate, 4).Display()))
	if left := drainLeftOut(bracket); len(left) > 0 {
		bt.Notes = append(bt.Notes, "Left out: "+strings.Join(left, "; ")+".")
	}
	se.Bracket = bracketSummary(bracket)
	sec.Blocks = append(sec.Blocks, f, slopeTable, bt)
	b.drainFinding(e, bracket)
}

// drainLeftOut names every run the bracket left out, with why.
func drainLeftOut(br stats.DrainBracket) []string {
	var out []string
	add := func(ls []stats.DrainLeftOut) {
		for _, l := range ls {
			out = append(out, l.Run+" ("+l.Reason+")")
		}
	}
	for _, r := range br.Rates {
		add(r.LeftOut)
	}
	add(br.LeftOut)
	sort.Strings(out)
	return out
}

// drainFinding is the measured drain bracket in a sentence, beside 1/S.
func (b *builder) drainFinding(e *experiment, br stats.DrainBracket) {
	left := drainLeftOut(br)
	nums := numbers{"largest_not_growing": br.LargestNotGrowing, "smallest_growing": br.SmallestGrowing, "largest_draining": br.LargestDraining,
		"model_rate": br.ModelRate, "runs": 0, "left_out": float64(len(left)), "grows_below": math.NaN()}
	for _, r := range br.Rates {
		nums["runs"] += float64(len(r.Runs))
	}
	if len(br.Rates) == 0 {
		text := "no run has a drain slope: W(t) needs trigger_start_s, the rate after it and the workload's output and tool tokens."
		if len(left) > 0 {
			text = fmt.Sprintf("no run gives a drain verdict: the bracket measures drain after a collapse, from runs degraded when the rate changed, and %s left out: %s.", pluralVerb(len(left)), strings.Join(left, "; "))
		}
		b.found(e, "drain-bracket", true, nil, nums, text)
		return
	}
	rate := func(v float64) string { return document.Num(v, -1).Display() }
	// Rates that grew below one that did not: the verdicts do not order
	// into a bracket, and "did not grow up to" would be false.
	var below []string
	for _, r := range br.Rates {
		if r.Verdict == stats.DrainGrows && r.Rate < br.LargestNotGrowing {
			below = append(below, rate(r.Rate))
			nums["grows_below"] = r.Rate
		}
	}
	var text string
	switch {
	case len(below) > 0:
		text = fmt.Sprintf("the remaining cold work W(t) grew at λ = %s sessions/s, below %s, at which it did not grow, so the rates do not bracket the drain condition", strings.Join(below, " and "), rate(br.LargestNotGrowing))
		if !math.IsNaN(br.SmallestGrowing) {
			text += fmt.Sprintf("; it grew from λ = %s", rate(br.SmallestGrowing))
		}
	case math.IsNaN(br.LargestNotGrowing):
		text = fmt.Sprintf("the remaining cold work W(t) grew at every rate after the change (λ from %s sessions/s)", rate(br.Rates[0].Rate))
	case math.IsNaN(br.SmallestGrowing):
		text = fmt.Sprintf("the remaining cold work W(t) did not grow up to λ = %s sessions/s, the largest rate after the change; no rate made it grow", rate(br.LargestNotGrowing))
	default:
		text = fmt.Sprintf("the remaining cold work W(t) did not grow up to λ = %s sessions/s and grew from λ = %s", rate(br.LargestNotGrowing), rate(br.SmallestGrowing))
	}
	text += fmt.Sprintf(" (%s degraded when the rate changed; a rate grows or drains when every run's %.0f%% slope interval lies above or below 0)", plural(int(nums["runs"]), "run"), 100*stats.DrainConfidence)
	if !math.IsNaN(br.ModelRate) {
		text += fmt.Sprintf("; the model's bound is 1/S = %s", document.Num(br.ModelRate, 4).Display())
	}
	if len(left) > 0 {
		text += fmt.Sprintf("; %s left out, not degraded at the change or without an interval (the bracket table names them)", plural(len(left), "run"))
	}
	b.found(e, "drain-bracket", len(below) > 0, nil, nums, text+".")
}
