package report

import (
	"fmt"
	"math"
	"sort"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/stats"
)

// regimeMap adds the regime map: every run's offered load relative to the
// cache-warm capacity against its peak D/C, coloured by verdict, with the
// healthy-side (x = 1) and drain (λ = 1/S) bounds.
func (b *builder) regimeMap() {
	f := &document.Scatter{
		ID: "regime-map", Title: "Regime map",
		Caption: "Each point is a run. x: λ·T·(Z+R₀)·L̄/C, the resident demand of the cache-warm population by Little's law relative to the KV pool (R₀: mean response before the trigger; L̄: mean context of the workload shape, else of the run). y: peak 1-minute D/C. The healthy side holds left of x = 1; the degraded regime can drain only left of the λ = 1/S line.",
		XAxis:   document.Axis{Name: "offered load relative to cache-warm capacity"},
		YAxis:   document.Axis{Name: "peak D/C"},
	}
	verdicts := append(append([]stats.Verdict(nil), stats.JudgedVerdicts...), stats.VerdictUnknown)
	colors := verdictColors
	groups := map[stats.Verdict]*document.ScatterGroup{}
	b.sum.RegimeMap = []SummaryRegimePoint{}
	var drainX []float64
	var missing []string
	xmax, ymax := 1.0, 1.0
	var uncached []string
	for _, r := range b.runs {
		if !r.run.PrefixCaching || r.sum.Verdict == stats.VerdictCacheUnreported {
			// Without a cache (or its counts) there is no cache-warm
			// capacity to compare with.
			uncached = append(uncached, r.name())
			continue
		}
		x, dx := b.offeredLoad(r)
		y := r.sum.PeakDemandRatio
		b.sum.RegimeMap = append(b.sum.RegimeMap, regimePoint(r.name(), x, y, dx, r.sum.Verdict))
		if math.IsNaN(x) || math.IsNaN(y) {
			missing = append(missing, r.name())
			continue
		}
		g, ok := groups[r.sum.Verdict]
		if !ok {
			g = &document.ScatterGroup{Name: string(r.sum.Verdict), Color: colors[r.sum.Verdict]}
			groups[r.sum.Verdict] = g
		}
		g.Points = append(g.Points, [2]float64{x, y})
		g.Labels = append(g.Labels, r.name())
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
	f.Lines = append(f.Lines, document.Line{Name: "healthy side (x = 1)", X: []float64{1, 1}, Y: []float64{0, top}, Color: "#009E73", Dash: true})
	f.Lines = append(f.Lines, document.Line{Name: "KV pool (D/C = 1)", X: []float64{0, xmax * 1.05}, Y: []float64{1, 1}, Color: boundColor, Dash: true})
	var notes []string
	if len(drainX) > 0 {
		sort.Float64s(drainX)
		lo, hi := drainX[0], drainX[len(drainX)-1]
		m := stats.Quantile(drainX, 0.5)
		f.Lines = append(f.Lines, document.Line{Name: "drain bound (λ = 1/S)", X: []float64{m, m}, Y: []float64{0, top}, Color: "#CC79A7", Dash: true})
		if hi > lo*1.05 {
			notes = append(notes, fmt.Sprintf("Runs differ in response time, shape or pool, so λ = 1/S falls at x = %.3g–%.3g; the median is drawn.", lo, hi))
		}
		notes = append(notes, fmt.Sprintf("1/S from the %s fit of c(L).", b.fitInfo.Source))
	} else {
		notes = append(notes, "No drain bound: it needs a c(L) fit (caching-off calibration runs) and synthetic workload shapes.")
	}
	if len(uncached) > 0 {
		notes = append(notes, fmt.Sprintf("%d runs with prefix caching off or without cached-token counts are left out: they have no cache-warm capacity to compare with.", len(uncached)))
	}
	if len(missing) > 0 {
		notes = append(notes, fmt.Sprintf("Not placed (λ, turns, think time, response time or C unknown): %s.", join(missing)))
	}
	sec := document.Section{
		ID: "regime-map", Title: "Regime map",
		Intro:  []string{"Not in the paper: every run on one plane. Runs left of the healthy side that still cross D/C = 1 were pushed there by their trigger; whether they come back depends on which side of the drain bound their load lies."},
		Blocks: []document.Block{f},
	}
	for _, n := range notes {
		sec.Blocks = append(sec.Blocks, &document.Note{Text: n})
	}
	b.doc.Sections = append(b.doc.Sections, sec)
}

// offeredLoad is a run's healthy-side ratio λT(Z+R₀)L̄/C and where λ = 1/S
// falls on the same axis; NaN when an input is unknown.
func (b *builder) offeredLoad(r *runInfo) (x, drainX float64) {
	run := &r.run
	c, okC := r.kvPool, r.kvPoolOK
	if run.ArrivalRate == nil || run.Turns == nil || run.ThinkMeanS == nil || !okC {
		return math.NaN(), math.NaN()
	}
	r0 := r.responseS
	lbar := r.sum.MeanContext
	if sh := r.shape; r.shapeOK && len(sh) > 0 {
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

// verdictColors colour the judged verdicts and unknown (Okabe–Ito): the
// healthy ends green and blue, the degraded ones orange and vermilion.
var verdictColors = map[stats.Verdict]string{
	stats.VerdictNeverDegraded: "#009E73", stats.VerdictRecoveredAlone: "#56B4E9", stats.VerdictRecoveredUnderControl: "#0072B2",
	stats.VerdictPartial: "#E69F00", stats.VerdictPersistent: "#D55E00", stats.VerdictUnknown: "#999999",
}
