package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/outlast-dev/outlast/stats"
)

// calibrationSection adds the c(L) fit on the experiment's caching-off
// runs, the scatter of its windows with the fitted line, and S and 1/S for
// every workload shape of the dataset.
func (b *builder) calibrationSection(e *experiment, sec *Section, se *SummaryExperiment) {
	sec.Intro = append(sec.Intro, "With prefix caching off every turn is cold, so a busy window's length is the sum of its turns' costs. Regressing window length on (turns, prompt tokens) through the origin gives c(L) = a + b·L (§4); S = Σ c(L_k) over a session's turns is what one session costs when every turn misses, and the degraded regime can drain only below λ = 1/S.")
	ws := stats.CalibrationWindows(indexes(e.runs), stats.ColdCostOptions{})
	fit, err := stats.FitColdCost(ws)
	if err != nil {
		msg := fmt.Sprintf("No fit: %v (%d windows with at least %.0f requests running throughout, from caching-off runs).", err, len(ws), stats.CalibrationMinRunning)
		sec.Blocks = append(sec.Blocks, &Note{Kind: NoteWarning, Text: msg})
		se.Warnings = append(se.Warnings, msg)
	} else {
		se.Fit = b.fitSummary(fit, ws, "calibration")
		sec.Blocks = append(sec.Blocks, fitTable("fit-"+e.slug, fit, se.Fit), b.fitScatter(e, fit, ws))
	}
	se.Shapes = b.shapes(fit, err == nil)
	sec.Blocks = append(sec.Blocks, shapesTable("shapes-"+e.slug, se.Shapes, err == nil))
}

func fitTable(id string, fit stats.CostFit, s *SummaryFit) *Table {
	t := &Table{
		ID:      id,
		Caption: "Cold-turn cost c(L) = a + b·L, least squares through the origin over 2-minute windows with at least 4 requests running throughout; R² uncentred; standard errors from the residual variance.",
		Columns: []Column{{Name: "a", Unit: "s"}, {Name: "SE(a)", Unit: "s"}, {Name: "b", Unit: "ms/token"}, {Name: "SE(b)", Unit: "ms/token"}, {Name: "R²"}, {Name: "Windows"}, {Name: "S", Unit: "s"}, {Name: "1/S", Unit: "sessions/s"}},
		Rows: [][]Cell{{
			Num(fit.A, 3), Num(fit.SEA, 3), Num(1000*fit.B, 4), Num(1000*fit.SEB, 4), Num(fit.R2, 3), Int(int64(fit.N)),
			Num(float64(s.S), 1), Num(float64(s.DrainRate), 4),
		}},
	}
	if s.Shape != "" {
		t.Notes = append(t.Notes, "S and 1/S for the shape of the fitted runs: "+s.Shape+".")
	}
	t.Notes = append(t.Notes, "Runs: "+joinStrings(s.Runs)+".")
	return t
}

func joinStrings(v []string) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}

// fitScatter plots each window's seconds per turn against its mean prompt
// per turn: the model says len/n = a + b·(ΣL/n), the fitted line.
func (b *builder) fitScatter(e *experiment, fit stats.CostFit, ws []stats.CostWindow) *Scatter {
	byRun := map[string][]stats.CostWindow{}
	for _, w := range ws {
		byRun[w.Run] = append(byRun[w.Run], w)
	}
	f := &Scatter{
		ID: "cal-" + e.slug, Title: "Calibration windows and c(L)",
		Caption: "Each point is a calibration window: its length per completed turn against the mean prompt of those turns. The line is the fitted c(L).",
		XAxis:   Axis{Name: "mean prompt per turn", Unit: "tokens"},
		YAxis:   Axis{Name: "window length per turn", Unit: "s"},
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	names := sortedKeys(byRun)
	for i, run := range names {
		g := ScatterGroup{Name: run, Color: palette[i%len(palette)]}
		for _, w := range byRun[run] {
			x := float64(w.PromptTokens) / float64(w.Turns)
			g.Points = append(g.Points, [2]float64{x, w.Len() / float64(w.Turns)})
			g.Labels = append(g.Labels, fmt.Sprintf("%s %.0f–%.0f min, %d turns", run, minutes(w.Start), minutes(w.End), w.Turns))
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		f.Groups = append(f.Groups, g)
	}
	if hi >= lo {
		f.Lines = append(f.Lines, Line{Name: "c(L) fit", X: []float64{lo, hi}, Y: []float64{fit.Cost(lo), fit.Cost(hi)}, Color: boundColor})
	}
	return f
}

// shapes lists every workload shape of the dataset with S and 1/S under
// fit (NaN when there is none).
func (b *builder) shapes(fit stats.CostFit, ok bool) []SummaryShape {
	by := map[string]*SummaryShape{}
	for _, r := range b.runs {
		sh, okShape := r.x.WorkloadShape()
		if !okShape || len(sh) == 0 {
			continue
		}
		k := shapeLabel(sh)
		s, seen := by[k]
		if !seen {
			s = &SummaryShape{Shape: k, Turns: int64(len(sh)), Initial: sh[0], S: Float(math.NaN()), DrainRate: Float(math.NaN())}
			if len(sh) > 1 {
				s.Growth = sh[1] - sh[0]
			}
			if ok {
				sc := fit.SessionCost(sh)
				s.S, s.DrainRate = Float(sc), Float(stats.DrainBound(sc))
			}
			by[k] = s
		}
		s.Runs = append(s.Runs, r.rd.Run.Run)
	}
	out := []SummaryShape{}
	for _, k := range sortedKeys(by) {
		out = append(out, *by[k])
	}
	return out
}

func shapesTable(id string, shapes []SummaryShape, fitted bool) *Table {
	t := &Table{
		ID:      id,
		Caption: "S (engine-seconds per all-miss session) and the drain bound 1/S for each synthetic workload shape in the dataset: first context, growth per turn, turns.",
		Columns: []Column{{Name: "First context", Unit: "tokens"}, {Name: "Growth", Unit: "tokens/turn"}, {Name: "Turns"}, {Name: "Runs"}, {Name: "S", Unit: "s"}, {Name: "1/S", Unit: "sessions/s"}},
	}
	for _, s := range shapes {
		t.Rows = append(t.Rows, []Cell{Int(s.Initial), Int(s.Growth), Int(s.Turns), Int(int64(len(s.Runs))), Num(float64(s.S), 1), Num(float64(s.DrainRate), 4)})
	}
	if len(shapes) == 0 {
		t.Notes = append(t.Notes, "No run's manifest gives a complete synthetic shape (system, task, output and tool tokens and turns).")
	}
	if !fitted {
		t.Notes = append(t.Notes, "No c(L) fit: S is missing.")
	}
	return t
}

// drainSection adds W(t) per run, the slopes table and the bracket beside
// 1/S.
func (b *builder) drainSection(e *experiment, sec *Section, se *SummaryExperiment) {
	sec.Intro = append(sec.Intro, "After the arrival rate drops, the remaining cold work W(t), the engine-seconds the sessions in the system still need if every turn misses, falls when λ < 1/S and grows otherwise (§4). Slopes are OLS over samples every 10 minutes.")
	if b.fit == nil {
		msg := "No c(L) fit (neither caching-off calibration runs nor enough all-miss windows): W(t) cannot be computed."
		sec.Blocks = append(sec.Blocks, &Note{Kind: NoteWarning, Text: msg}, b.perRunGrid(e))
		se.Warnings = append(se.Warnings, msg)
		return
	}
	if b.fitInfo.Source != "calibration" {
		sec.Blocks = append(sec.Blocks, &Note{Text: "c(L) is the alternative fit on all-miss windows of persistently degraded cache-on runs: the dataset has no caching-off calibration runs."})
	}
	var drains []stats.Drain
	model := math.NaN()
	f := &TimeSeries{
		ID: "drain-" + e.slug, Title: "Remaining cold work after the rate change",
		Caption: "W(t) per run, sampled every 10 minutes from the rate change; one line per run, named by the arrival rate after the change.",
		YAxes:   []Axis{{Name: "remaining cold work", Unit: "engine-s"}},
	}
	se.Slopes = []SummarySlope{}
	for _, r := range e.runs {
		d, err := r.x.RemainingColdWork(*b.fit)
		if err != nil {
			se.Warnings = append(se.Warnings, r.rd.Run.Run+": "+err.Error())
			continue
		}
		drains = append(drains, d)
		if sc := b.sessionCost(r); math.IsNaN(model) && !math.IsNaN(sc) {
			model = stats.DrainBound(sc)
		}
		se.Slopes = append(se.Slopes, SummarySlope{Run: d.Run, RateAfter: Float(d.RateAfter), SlopePerHour: Float(d.SlopePerHour), SEPerHour: Float(d.SEPerHour), Points: len(d.Points)})
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
		s := Series{Name: name, Color: palette[rates[d.RateAfter]%len(palette)]}
		for _, p := range d.Points {
			s.X = append(s.X, minutes(p.T))
			s.Y = append(s.Y, p.ColdWorkS)
		}
		f.Series = append(f.Series, s)
	}
	for _, r := range e.runs {
		if bd, ok := triggerBand(&r.rd.Run); ok && !containsBand(f.Bands, bd) && bd.To > bd.From {
			f.Bands = append(f.Bands, bd)
		}
	}
	bracket := stats.NewDrainBracket(drains, model)
	slopeTable := &Table{
		ID:      "drain-slopes-" + e.slug,
		Caption: "Slope of W(t) per run (engine-seconds per hour) with its standard error; negative drains.",
		Columns: []Column{{Name: "Run"}, {Name: "Line"}, {Name: "λ after", Unit: "sessions/s"}, {Name: "Slope", Unit: "engine-s/h"}, {Name: "SE", Unit: "engine-s/h"}, {Name: "Samples"}},
	}
	for i, d := range drains {
		slopeTable.Rows = append(slopeTable.Rows, []Cell{Text(d.Run), Text(f.Series[i].Name), Num(d.RateAfter, -1), Num(d.SlopePerHour, 0), Num(d.SEPerHour, 0), Int(int64(len(d.Points)))})
	}
	bt := &Table{
		ID:      "drain-bracket-" + e.slug,
		Caption: "Measured break-even beside the model's 1/S: the largest rate at which some run did not grow and the smallest at which every run grew.",
		Columns: []Column{{Name: "λ after", Unit: "sessions/s"}, {Name: "Runs"}, {Name: "Verdict"}},
	}
	sb := &SummaryBracket{
		LargestDraining: Float(bracket.LargestDraining), LargestNotGrowing: Float(bracket.LargestNotGrowing),
		SmallestGrowing: Float(bracket.SmallestGrowing), ModelRate: Float(bracket.ModelRate), Rates: []SummaryDrainRate{},
	}
	for _, r := range bracket.Rates {
		bt.Rows = append(bt.Rows, []Cell{Num(r.Rate, -1), Int(int64(len(r.Slopes))), Text(r.Verdict)})
		sb.Rates = append(sb.Rates, SummaryDrainRate{Rate: Float(r.Rate), Slopes: floats(r.Slopes), Verdict: r.Verdict})
	}
	grows := "no rate at which every run grew"
	if !math.IsNaN(bracket.SmallestGrowing) {
		grows = "every run grew at " + Num(bracket.SmallestGrowing, -1).display()
	}
	bt.Notes = append(bt.Notes, fmt.Sprintf("Largest rate at which some run did not grow: %s sessions/s; %s. Model 1/S = %s sessions/s.",
		Num(bracket.LargestNotGrowing, -1).display(), grows, Num(bracket.ModelRate, 4).display()))
	se.Bracket = sb
	sec.Blocks = append(sec.Blocks, f, slopeTable, bt)
}

// regimeMap adds the regime map: every run's offered load relative to the
// cache-warm capacity against its peak D/C, coloured by verdict, with the
// healthy-side (x = 1) and drain (λ = 1/S) bounds.
func (b *builder) regimeMap() {
	f := &Scatter{
		ID: "regime-map", Title: "Regime map",
		Caption: "Each point is a run. x: λ·T·(Z+R₀)·L̄/C, the resident demand of the cache-warm population by Little's law relative to the KV pool (R₀: mean response before the trigger; L̄: mean context of the workload shape, else of the run). y: peak 1-minute D/C. The healthy side holds left of x = 1; the degraded regime can drain only left of the λ = 1/S line.",
		XAxis:   Axis{Name: "offered load relative to cache-warm capacity"},
		YAxis:   Axis{Name: "peak D/C"},
	}
	verdicts := []stats.Verdict{stats.VerdictHealthy, stats.VerdictPartial, stats.VerdictPersistent, stats.VerdictRecovered, stats.VerdictCollapsed}
	colors := map[stats.Verdict]string{
		stats.VerdictHealthy: "#009E73", stats.VerdictPartial: "#E69F00", stats.VerdictPersistent: "#D55E00",
		stats.VerdictRecovered: "#0072B2", stats.VerdictCollapsed: "#CC79A7",
	}
	groups := map[stats.Verdict]*ScatterGroup{}
	b.sum.RegimeMap = []SummaryRegimePoint{}
	var drainX []float64
	var missing []string
	xmax, ymax := 1.0, 1.0
	var uncached []string
	for _, r := range b.runs {
		if !r.rd.Run.PrefixCaching {
			// Without a cache there is no cache-warm capacity to compare with.
			uncached = append(uncached, r.rd.Run.Run)
			continue
		}
		x, dx := b.offeredLoad(r)
		y := r.sum.PeakDemandRatio
		b.sum.RegimeMap = append(b.sum.RegimeMap, SummaryRegimePoint{Run: r.rd.Run.Run, OfferedLoad: Float(x), PeakDemandRatio: Float(y), DrainLoad: Float(dx), Verdict: string(r.sum.Verdict)})
		if math.IsNaN(x) || math.IsNaN(y) {
			missing = append(missing, r.rd.Run.Run)
			continue
		}
		g, ok := groups[r.sum.Verdict]
		if !ok {
			g = &ScatterGroup{Name: string(r.sum.Verdict), Color: colors[r.sum.Verdict]}
			groups[r.sum.Verdict] = g
		}
		g.Points = append(g.Points, [2]float64{x, y})
		g.Labels = append(g.Labels, r.rd.Run.Run)
		xmax, ymax = math.Max(xmax, x), math.Max(ymax, y)
		if !math.IsNaN(dx) {
			drainX = append(drainX, dx)
		}
	}
	for _, v := range verdicts {
		if g, ok := groups[v]; ok {
			f.Groups = append(f.Groups, *g)
		}
	}
	top := ymax * 1.05
	f.Lines = append(f.Lines, Line{Name: "healthy side (x = 1)", X: []float64{1, 1}, Y: []float64{0, top}, Color: "#009E73", Dash: true})
	f.Lines = append(f.Lines, Line{Name: "KV pool (D/C = 1)", X: []float64{0, xmax * 1.05}, Y: []float64{1, 1}, Color: boundColor, Dash: true})
	var notes []string
	if len(drainX) > 0 {
		sort.Float64s(drainX)
		lo, hi := drainX[0], drainX[len(drainX)-1]
		m := stats.Quantile(drainX, 0.5)
		f.Lines = append(f.Lines, Line{Name: "drain bound (λ = 1/S)", X: []float64{m, m}, Y: []float64{0, top}, Color: "#CC79A7", Dash: true})
		if hi > lo*1.05 {
			notes = append(notes, fmt.Sprintf("Runs differ in response time, shape or pool, so λ = 1/S falls at x = %.3g–%.3g; the median is drawn.", lo, hi))
		}
		notes = append(notes, fmt.Sprintf("1/S from the %s fit of c(L).", b.fitInfo.Source))
	} else {
		notes = append(notes, "No drain bound: it needs a c(L) fit (caching-off calibration runs) and synthetic workload shapes.")
	}
	if len(uncached) > 0 {
		notes = append(notes, fmt.Sprintf("%d runs with prefix caching off are left out: they have no cache-warm capacity.", len(uncached)))
	}
	if len(missing) > 0 {
		notes = append(notes, fmt.Sprintf("Not placed (λ, turns, think time, response time or C unknown): %s.", joinStrings(missing)))
	}
	sec := Section{
		ID: "regime-map", Title: "Regime map",
		Intro:  []string{"Not in the paper: every run on one plane. Runs left of the healthy side that still cross D/C = 1 were pushed there by their trigger; whether they come back depends on which side of the drain bound their load lies."},
		Blocks: []Block{f},
	}
	for _, n := range notes {
		sec.Blocks = append(sec.Blocks, &Note{Text: n})
	}
	b.doc.Sections = append(b.doc.Sections, sec)
}

// offeredLoad is a run's healthy-side ratio λT(Z+R₀)L̄/C and where λ = 1/S
// falls on the same axis; NaN when an input is unknown.
func (b *builder) offeredLoad(r *runInfo) (x, drainX float64) {
	run := &r.rd.Run
	c, okC := r.x.KVPool()
	if run.ArrivalRate == nil || run.Turns == nil || run.ThinkMeanS == nil || !okC {
		return math.NaN(), math.NaN()
	}
	phase := stats.Window{Start: 0, End: r.x.End}
	if run.TriggerStartS != nil && *run.TriggerStartS > 0 {
		phase.End = *run.TriggerStartS
	}
	r0 := r.x.LittlesLaw(phase).ResponseS
	lbar := r.sum.MeanContext
	if sh, ok := r.x.WorkloadShape(); ok && len(sh) > 0 {
		var s float64
		for _, l := range sh {
			s += float64(l)
		}
		lbar = s / float64(len(sh))
	}
	turns := float64(*run.Turns)
	h := stats.NewHealthySide(*run.ArrivalRate, turns, *run.ThinkMeanS, r0, lbar, c)
	x = h.Ratio
	drainX = math.NaN()
	if sc := b.sessionCost(r); sc > 0 {
		drainX = stats.NewHealthySide(1/sc, turns, *run.ThinkMeanS, r0, lbar, c).Ratio
	}
	return x, drainX
}
