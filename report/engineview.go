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

// The engine's view: what the engine itself logged or exported (KV cache
// usage, requests running and waiting, preemptions, its own prefix-cache
// hit ratio) per minute, beside the gateway's hit ratio and sessions in
// the system. A collapse shows on both sides; a gateway that never
// received cached-token counts shows as a gateway ratio of 0 beside an
// engine that hits.

// viewRun is one run drawn in an engine view, with its legend label and
// colour.
type viewRun struct {
	r     *runInfo
	label string
	color string
}

// engineView draws the engine's view of runs (the experiment's featured
// runs) as a grid of panels, or a note when none of them has engine data.
func (b *builder) engineView(e *experiment, runs ...viewRun) []document.Block {
	var rs []*runInfo
	for _, v := range runs {
		rs = append(rs, v.r)
	}
	if !anyEngine(rs) {
		return []document.Block{&document.Note{Text: "The engine's view: " + noEngineText(rs) + "."}}
	}
	id := "engine-" + e.slug
	bands, marks := annotate(rs...)
	panel := func(suffix, title string, axes []document.Axis, series []document.Series) *document.TimeSeries {
		return runSpan(&document.TimeSeries{ID: id + "-" + suffix, Title: title, YAxes: axes, Series: series, Bands: bands, Marks: marks}, rs...)
	}
	var hit, queue, kv, pre []document.Series
	for _, v := range runs {
		hit = append(hit, runSeries(v.label+": gateway", v.r, mHit, v.color), dashed(runSeries(v.label+": engine", v.r, mEngineHit, v.color)))
		queue = append(queue, runSeries(v.label+": sessions", v.r, mSessions, v.color),
			dashed(runSeries(v.label+": running", v.r, mRunning, v.color)), area(runSeries(v.label+": waiting", v.r, mWaiting, v.color)))
		kv = append(kv, runSeries(v.label+": KV usage", v.r, mKVUsage, v.color), dashed(runSeries(v.label+": D/C", v.r, mDemand, v.color)))
		pre = append(pre, runSeries(v.label, v.r, mPreemptions, v.color))
	}
	cols := 2
	if len(runs) > 2 {
		cols = 1 // room for the legend of every arm
	}
	g := &document.Grid{Columns: cols, Figures: []document.Figure{
		panel("hit", "Hit ratio: gateway and engine", []document.Axis{{Name: "hit ratio", Min: 0, Max: 1}}, hit),
		panel("queue", "Sessions in the system and the engine's queue", []document.Axis{{Name: "sessions, requests"}}, queue),
		panel("kv", "KV cache usage and resident demand", []document.Axis{{Name: "fraction of the KV pool", Min: 0}}, kv),
	}}
	if anyHas(rs, mPreemptions) {
		g.Figures = append(g.Figures, panel("preemptions", "Preemptions", []document.Axis{{Name: "preemptions", Unit: "per minute", Min: 0}}, pre))
	}
	g.Caption = "The engine's view beside the gateway's, per minute: the gateway's token-weighted hit ratio (solid) and the engine's own (dashed); sessions in the system against the engine's running (dashed) and waiting (shaded) requests; the engine's KV cache usage against the resident demand D/C the gateway implies (dashed); " +
		preemptionText(rs) + " Engine hit ratio " + hitSources(rs) + ". Trigger shaded, control start marked. Runs: " + viewRunsText(runs) + "."
	return []document.Block{g}
}

// observePanels draws each observed run (design observe, or one this
// report does not know) in two panels: the gateway's and the engine's hit
// ratio with the engine's KV cache usage and the resident demand D/C,
// marked with the verdict and the onset; and sessions in the system
// against the engine's queue, with turn throughput. The experiment's share
// of small multiples bounds the runs drawn, the most degraded first.
func (b *builder) observePanels(e *experiment) []document.Block {
	drawn, left := pick(e.runs, max(2, b.share/2), verdictRank)
	g := &document.Grid{Columns: 2, Caption: "Per run, left: the gateway's hit ratio (solid) and the engine's (dashed), the engine's KV cache usage (shaded) and the resident demand D/C the gateway implies (dotted grey), with the verdict and the onset of degradation (the first 5-minute window with a hit ratio below 0.5); right: sessions in the system against the engine's running (dashed) and waiting (shaded) requests, and turn throughput (right axis). Trigger shaded, control start marked."}
	for _, r := range drawn {
		bands, marks := annotate(r)
		hitMarks := marks
		title := fmt.Sprintf("%s: %s", r.name(), r.sum.Verdict)
		if !math.IsNaN(r.onset) {
			hitMarks = append(append([]document.Mark(nil), marks...), document.Mark{At: minutes(r.onset), Label: "onset"})
			title += ", onset " + fmtMin(r.onset) + " min"
		}
		id := "obs-" + e.slug + "-" + r.name()
		tput := runSeries("throughput", r, mThroughput, render.PaletteColor(2))
		tput.Axis = 1
		dc := dashed(runSeries("D/C", r, mDemand, boundColor))
		g.Figures = append(g.Figures,
			runSpan(&document.TimeSeries{ID: id + "-hit", Title: title, YAxes: []document.Axis{{Name: "hit ratio, share of the KV pool", Min: 0}},
				Series: []document.Series{runSeries("gateway hit", r, mHit, twinColor), dashed(runSeries("engine hit", r, mEngineHit, burstColor)), area(runSeries("KV usage", r, mKVUsage, render.PaletteColor(3))), dc},
				Bands:  bands, Marks: hitMarks}, r),
			runSpan(&document.TimeSeries{ID: id + "-queue", Title: "sessions, engine queue, throughput", YAxes: []document.Axis{{Name: "sessions, requests", Min: 0}, {Name: "throughput", Unit: "turns/s", Min: 0}},
				Series: []document.Series{runSeries("sessions", r, mSessions, twinColor), dashed(runSeries("running", r, mRunning, burstColor)), area(runSeries("waiting", r, mWaiting, boundColor)), tput},
				Bands:  bands, Marks: marks}, r),
		)
	}
	blocks := []document.Block{g}
	if !anyEngine(e.runs) {
		blocks = append(blocks, &document.Note{Text: "The engine's side is empty: " + noEngineText(e.runs) + "."})
	} else {
		g.Caption += " Engine hit ratio " + hitSources(e.runs) + "."
	}
	return withLeftOut(blocks, left, "runs", runNames(left))
}

// featuredPerArm returns a run of every arm of e to stand for the
// experiment in its engine view: the featured seed's (Options.Seed, else
// the smallest) where the arm has it, else the arm's first run; an arm of
// one run shows it, with no seed to choose. The view names each run and
// its seed.
func (b *builder) featuredPerArm(e *experiment) []viewRun {
	all := arms(e.runs)
	perArm := map[string]int{}
	choice := false
	for _, r := range e.runs {
		perArm[r.run.Arm]++
		choice = choice || perArm[r.run.Arm] > 1
	}
	var seed int64
	ok := false
	if choice {
		seed, ok = b.featured(e, seeds(e.runs))
	}
	var out []viewRun
	for _, a := range all {
		var pick *runInfo
		for _, r := range e.runs {
			if r.run.Arm != a {
				continue
			}
			if pick == nil || ok && r.seedIs(seed) && !pick.seedIs(seed) {
				pick = r
			}
		}
		out = append(out, viewRun{pick, a, armColor(all, a)})
	}
	return out
}

// viewRunsText names the runs an engine view draws, with their seeds:
// "twin: s501-no-burst (seed 501), burst: s501-burst (seed 501)".
func viewRunsText(runs []viewRun) string {
	parts := make([]string, len(runs))
	for i, v := range runs {
		s := v.label + ": " + v.r.name()
		if v.r.run.Seed != nil {
			s += fmt.Sprintf(" (seed %d)", *v.r.run.Seed)
		}
		parts[i] = s
	}
	return strings.Join(parts, ", ")
}

func dashed(s document.Series) document.Series { s.Dash = true; return s }
func area(s document.Series) document.Series   { s.Style = document.StyleArea; return s }

// anyEngine reports whether some run has engine samples.
func anyEngine(rs []*runInfo) bool {
	for _, r := range rs {
		if r.eng.Samples > 0 {
			return true
		}
	}
	return false
}

// anyHas reports whether some run has a value of m.
func anyHas(rs []*runInfo, m measure) bool {
	for _, r := range rs {
		if r.has[m] {
			return true
		}
	}
	return false
}

// noEngineText says why runs have no engine view.
func noEngineText(rs []*runInfo) string {
	for _, r := range rs {
		if r.noLogSamples || r.noMetricsSamples {
			return "the engine log or metrics file gave no engine sample (a format outlast does not read?)"
		}
	}
	return "no engine log or metrics file was ingested with these runs"
}

// preemptionText says what the preemption panel shows, or why there is
// none.
func preemptionText(rs []*runInfo) string {
	if anyHas(rs, mPreemptions) {
		return "preemptions per minute (SGLang: retractions), from the metrics counter when scraped, else the log."
	}
	return "the engine reports no preemptions."
}

// hitSources says where the engine hit ratios of runs come from.
func hitSources(rs []*runInfo) string {
	seen := map[string]bool{}
	var parts []string
	for _, r := range rs {
		src := r.eng.HitSource
		if seen[src] || r.eng.Samples == 0 {
			continue
		}
		seen[src] = true
		parts = append(parts, hitSourceLong(src))
	}
	if len(parts) == 0 {
		return "not available"
	}
	return strings.Join(parts, "; ")
}

// hitSourceTexts says where an engine hit ratio comes from, for each
// stats.EngineHit* source: briefly, as a finding quotes it, and in full, as
// the engine view explains it.
var hitSourceTexts = map[string]struct{ short, long string }{
	stats.EngineHitCounters: {
		"from the metrics' prefix-cache counters",
		"from the prefix-cache hit and query counters of the metrics scrapes (their deltas in the minute)",
	},
	stats.EngineHitPrefill: {
		"from SGLang's prefill lines",
		"from SGLang's prefill batch lines (cached tokens over cached plus new tokens in the minute)",
	},
	stats.EngineHitLog: {
		"the rate its log printed",
		"as the engine log printed it (vLLM: over its most recent requests, not the minute, so it lags)",
	},
}

// hitSourceText says briefly where an engine hit ratio comes from.
func hitSourceText(src string) string {
	if s, ok := hitSourceTexts[src]; ok {
		return s.short
	}
	return "none"
}

// hitSourceLong says in full where an engine hit ratio comes from.
func hitSourceLong(src string) string {
	if s, ok := hitSourceTexts[src]; ok {
		return s.long
	}
	return "not reported by the engine"
}

// sectionEngineView adds the engine's view to the sections that do not
// draw their own featured runs.
func (b *builder) sectionEngineView(e *experiment, sec *document.Section) {
	switch e.design {
	case schema.DesignPaired, schema.DesignRecovery, schema.DesignObserve:
		return // their sections draw it
	}
	sec.Blocks = append(sec.Blocks, b.engineView(e, b.featuredPerArm(e)...)...)
}
