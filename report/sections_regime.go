package report

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// regimeMap adds the regime map: every run's offered resident demand
// relative to the pool against its peak D/C, coloured by verdict, with the
// pool (x = 1, D/C = 1) and the drain bound (λ = 1/S) drawn as the band its
// workloads span.
func (b *builder) regimeMap() {
	f := &document.Scatter{
		ID: "regime-map", Title: "Regime map",
		Caption: "Each point is a run. x: the offered resident demand over the KV pool, λ·T·Z·L̄/C: sessions arriving at λ, each in the system for its T turns of think time Z (Little's law without the server's response time, which differs by arm), holding the workload shape's mean context L̄ (else the run's own), against the pool C. It is the workload's, the same for every arm of one workload, after the trigger (the rate after a rate change, the mix after a mix shift). y: peak 1-minute D/C, resident demand over the pool. Right of x = 1 the demand exceeds the pool even with instant responses; the degraded regime can drain only left of the drain bound, λ = 1/S on the same axis, shaded over the range of the workloads' bounds.",
		XAxis:   document.Axis{Name: "offered resident demand λ·T·Z·L̄ / C"},
		YAxis:   document.Axis{Name: "peak D/C"},
	}
	verdicts := append(append([]stats.Verdict(nil), stats.JudgedVerdicts...), stats.VerdictUnknown)
	colors := verdictColors
	groups := map[stats.Verdict]*document.ScatterGroup{}
	b.sum.RegimeMap = []SummaryRegimePoint{}
	var drainX []float64
	var missing, ownContext []string
	xmax, ymax := 1.0, 1.0
	var uncached []string
	for _, r := range b.runs {
		if !r.run.PrefixCaching || r.sum.Verdict == stats.VerdictCacheUnreported {
			// Without a cache (or its counts) there is no cache-warm
			// capacity to compare with.
			uncached = append(uncached, r.name())
			continue
		}
		w := b.offeredDemand(r)
		y := r.sum.PeakDemandRatio
		b.sum.RegimeMap = append(b.sum.RegimeMap, regimePoint(r.name(), w, y, r.sum.Verdict))
		if math.IsNaN(w.x) || math.IsNaN(y) {
			missing = append(missing, r.name())
			continue
		}
		if !w.shape {
			ownContext = append(ownContext, r.name())
		}
		g, ok := groups[r.sum.Verdict]
		if !ok {
			g = &document.ScatterGroup{Name: string(r.sum.Verdict), Color: colors[r.sum.Verdict]}
			groups[r.sum.Verdict] = g
		}
		g.Points = append(g.Points, [2]float64{w.x, y})
		g.Labels = append(g.Labels, r.name())
		xmax, ymax = math.Max(xmax, w.x), math.Max(ymax, y)
		if !math.IsNaN(w.drainX) {
			drainX = append(drainX, w.drainX)
			xmax = math.Max(xmax, w.drainX)
		}
	}
	for _, v := range verdicts {
		if g, ok := groups[v]; ok {
			f.Groups = append(f.Groups, *g)
		}
	}
	top := ymax * 1.05
	f.Lines = append(f.Lines, document.Line{Name: "demand = pool (x = 1)", X: []float64{1, 1}, Y: []float64{0, top}, Color: "#009E73", Dash: true})
	f.Lines = append(f.Lines, document.Line{Name: "KV pool (D/C = 1)", X: []float64{0, xmax * 1.05}, Y: []float64{1, 1}, Color: boundColor, Dash: true})
	var notes []string
	if len(drainX) > 0 {
		sort.Float64s(drainX)
		lo, hi := drainX[0], drainX[len(drainX)-1]
		if hi > lo*1.001 {
			f.Bands = append(f.Bands, document.Band{From: lo, To: hi, Label: "drain bound (λ = 1/S)"})
			notes = append(notes, fmt.Sprintf("The workloads differ in shape or pool, so λ = 1/S falls at x = %.3g–%.3g: the band spans them.", lo, hi))
		} else {
			f.Lines = append(f.Lines, document.Line{Name: "drain bound (λ = 1/S)", X: []float64{lo, lo}, Y: []float64{0, top}, Color: "#CC79A7", Dash: true})
		}
		notes = append(notes, fmt.Sprintf("1/S from the %s fit of c(L).", b.fitInfo.Source))
	} else {
		notes = append(notes, "No drain bound: it needs a c(L) fit (caching-off calibration runs) and synthetic workload shapes.")
	}
	if len(ownContext) > 0 {
		notes = append(notes, fmt.Sprintf("Placed by their own mean context (the manifest gives no workload shape), so arms of one workload may differ in x: %s.", join(ownContext)))
	}
	if len(uncached) > 0 {
		notes = append(notes, fmt.Sprintf("%d runs with prefix caching off or without cached-token counts are left out: they have no cache-warm capacity to compare with.", len(uncached)))
	}
	if len(missing) > 0 {
		notes = append(notes, fmt.Sprintf("Not placed (λ, turns, think time or C unknown): %s.", join(missing)))
	}
	sec := document.Section{
		ID: "regime-map", Title: "Regime map",
		Intro:  []string{"Not in the paper: every run on one plane. Runs whose workload's demand fits the pool (left of x = 1) but whose peak D/C crosses 1 were pushed there, by their trigger or by a fluctuation; whether they come back depends on which side of the drain bound their load lies."},
		Blocks: []document.Block{f},
	}
	for _, n := range notes {
		sec.Blocks = append(sec.Blocks, &document.Note{Text: n})
	}
	b.doc.Sections = append(b.doc.Sections, sec)
}

// demandPoint is where a run's workload falls on the regime map's x axis.
type demandPoint struct {
	// x is λ·T·Z·L̄/C and drainX the same with λ = 1/S; NaN when an input
	// is unknown.
	x, drainX float64
	// shape says L̄ is the workload shape's, not the run's own mean
	// context.
	shape bool
}

// offeredDemand places a run's workload after its trigger: the arrival
// rate after a rate change, the mix after a mix shift (the manifest's
// workload keys ending in _after), else the manifest's workload.
func (b *builder) offeredDemand(r *runInfo) demandPoint {
	nan := math.NaN()
	p := demandPoint{x: nan, drainX: nan}
	run := &r.run
	c, okC := r.kvPool, r.kvPoolOK
	if run.ArrivalRate == nil || run.Turns == nil || run.ThinkMeanS == nil || !okC {
		return p
	}
	lambda, turns, think := *run.ArrivalRate, *run.Turns, *run.ThinkMeanS
	if run.TriggerKind == schema.TriggerRateChange && run.TriggerRateAfter != nil {
		lambda = *run.TriggerRateAfter
	}
	shape, ok := r.shape, r.shapeOK
	if run.TriggerKind == schema.TriggerMixShift {
		turns, think, shape, ok = mixAfter(run, turns, think, shape, ok)
	}
	lbar := r.sum.MeanContext
	if ok && len(shape) > 0 {
		var s float64
		for _, l := range shape {
			s += float64(l)
		}
		lbar, p.shape = s/float64(len(shape)), true
	}
	ratio := func(l float64) float64 { return l * float64(turns) * think * lbar / c }
	p.x = ratio(lambda)
	if b.fit != nil && ok {
		if sc := b.fit.SessionCost(shape); sc > 0 {
			p.drainX = ratio(1 / sc)
		}
	}
	return p
}

// mixAfter is the workload after a mix shift: the manifest's workload
// keys with the suffix _after (turns_after, think_mean_s_after,
// system_tokens_after, task_tokens_after, output_tokens_after,
// tool_tokens_after) in place of those they name, the others as before.
func mixAfter(run *schema.Run, turns int64, think float64, shape []int64, ok bool) (int64, float64, []int64, bool) {
	var extra map[string]any
	if json.Unmarshal([]byte(run.WorkloadExtra), &extra) != nil {
		return turns, think, shape, ok
	}
	num := func(key string, v *float64) {
		if f, isNum := extra[key].(float64); isNum {
			*v = f
		}
	}
	opt := func(p *int64) float64 {
		if p == nil {
			return math.NaN()
		}
		return float64(*p)
	}
	t, sys, task, out, tool := float64(turns), opt(run.SystemTokens), opt(run.TaskTokens), opt(run.OutputTokens), opt(run.ToolTokens)
	num("turns_after", &t)
	num("think_mean_s_after", &think)
	num("system_tokens_after", &sys)
	num("task_tokens_after", &task)
	num("output_tokens_after", &out)
	num("tool_tokens_after", &tool)
	turns = int64(t)
	if math.IsNaN(sys + task + out + tool) {
		return turns, think, shape, ok
	}
	return turns, think, stats.SyntheticShape(int64(sys+task), int64(out+tool), int(turns)), true
}

// verdictColors colour the judged verdicts and unknown (Okabe–Ito): the
// healthy ends green and blue, the degraded ones orange and vermilion.
var verdictColors = map[stats.Verdict]string{
	stats.VerdictNeverDegraded: "#009E73", stats.VerdictRecoveredAlone: "#56B4E9", stats.VerdictRecoveredUnderControl: "#0072B2",
	stats.VerdictPartial: "#E69F00", stats.VerdictPersistent: "#D55E00", stats.VerdictUnknown: "#999999",
}
