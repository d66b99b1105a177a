package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"

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
		Caption: "Slope of W(t) per run (engine-seconds per hour) with its standard error; negative drains.",
		Columns: []document.Column{{Name: "Run"}, {Name: "Line"}, {Name: "λ after", Unit: "sessions/s"}, {Name: "Slope", Unit: "engine-s/h"}, {Name: "SE", Unit: "engine-s/h"}, {Name: "Samples"}},
	}
	for i, d := range drains {
		slopeTable.Rows = append(slopeTable.Rows, []document.Cell{document.Text(d.Run), document.Text(f.Series[i].Name), document.Num(d.RateAfter, -1), document.Num(d.SlopePerHour, 0), document.Num(d.SEPerHour, 0), document.Int(int64(len(d.Points)))})
	}
	bt := &document.Table{
		ID:      "drain-bracket-" + e.slug,
		Caption: "Measured break-even beside the model's 1/S: the largest rate at which some run did not grow and the smallest at which every run grew.",
		Columns: []document.Column{{Name: "λ after", Unit: "sessions/s"}, {Name: "Runs"}, {Name: "Verdict"}},
	}
	for _, r := range bracket.Rates {
		bt.Rows = append(bt.Rows, []document.Cell{document.Num(r.Rate, -1), document.Int(int64(len(r.Slopes))), document.Text(r.Verdict)})
	}
	grows := "no rate at which every run grew"
	if !math.IsNaN(bracket.SmallestGrowing) {
		grows = "every run grew at " + document.Num(bracket.SmallestGrowing, -1).Display()
	}
	bt.Notes = append(bt.Notes, fmt.Sprintf("Largest rate at which some run did not grow: %s sessions/s; %s. Model 1/S = %s sessions/s.",
		document.Num(bracket.LargestNotGrowing, -1).Display(), grows, document.Num(bracket.ModelRate, 4).Display()))
	se.Bracket = bracketSummary(bracket)
	sec.Blocks = append(sec.Blocks, f, slopeTable, bt)
	b.drainFinding(e, bracket)
}

// drainFinding is the measured drain bracket in a sentence, beside 1/S.
func (b *builder) drainFinding(e *experiment, br stats.DrainBracket) {
	nums := numbers{"largest_not_growing": br.LargestNotGrowing, "smallest_growing": br.SmallestGrowing, "largest_draining": br.LargestDraining, "model_rate": br.ModelRate}
	if len(br.Rates) == 0 {
		b.found(e, "drain-bracket", true, nil, nums, "no run has a drain slope: W(t) needs trigger_start_s, the rate after it and the workload's output and tool tokens.")
		return
	}
	rate := func(v float64) string { return document.Num(v, -1).Display() }
	var text string
	switch {
	case math.IsNaN(br.LargestNotGrowing):
		text = fmt.Sprintf("the remaining cold work W(t) grew in every run at every rate after the change (λ from %s sessions/s)", rate(br.Rates[0].Rate))
	case math.IsNaN(br.SmallestGrowing):
		text = fmt.Sprintf("the remaining cold work W(t) did not grow in some run up to λ = %s sessions/s, the largest rate after the change; no rate made it grow in every run", rate(br.LargestNotGrowing))
	default:
		text = fmt.Sprintf("the remaining cold work W(t) did not grow in some run up to λ = %s sessions/s and grew in every run from λ = %s", rate(br.LargestNotGrowing), rate(br.SmallestGrowing))
	}
	if !math.IsNaN(br.ModelRate) {
		text += fmt.Sprintf("; the model's bound is 1/S = %s", document.Num(br.ModelRate, 4).Display())
	}
	b.found(e, "drain-bracket", false, nil, nums, text+".")
}
