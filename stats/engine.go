package stats

import (
	"math"
	"sort"

	"github.com/outlast-dev/outlast/schema"
)

// UnreadEngineColumns are the engine table's columns that no measure reads
// (nor the report or compare): throughputs, KV tokens in use, scrape
// intervals, generation counters, counter resets and SGLang's new
// sequences. A reader for the statistics may leave them out
// (dataset.SkipEngineColumns). TestUnreadEngineColumns fails when a
// measure starts to read one of their fields.
var UnreadEngineColumns = []string{"tokens_used", "prompt_tput", "gen_tput", "interval_s", "generation_tokens", "counter_reset", "new_seqs"}

// Engine hit-ratio sources, in order of preference.
const (
	// EngineHitCounters: Σ prefix_hits / Σ prefix_queries over the counter
	// deltas of the metrics scrapes in the window (run-format.md).
	EngineHitCounters = "counters"
	// EngineHitPrefill: SGLang's Σ #cached-token / Σ(#cached-token +
	// #new-token) over the prefill lines in the window.
	EngineHitPrefill = "prefill"
)

// EngineWindow holds the engine-side measures of one window, to set beside
// the gateway's (TurnWindow). Every field is NaN when the run has no sample
// carrying it in the window.
type EngineWindow struct {
	Window
	// Samples is the number of engine samples used in the window.
	Samples int
	// Running, Waiting and KVUsage are the means of the samples' running
	// and waiting request counts and KV-pool usage fraction (§4, "16–32
	// requests run concurrently, KV usage sits at 83–100%").
	Running float64
	Waiting float64
	KVUsage float64
	// MinRunning is the smallest running count sampled in the window (the
	// §4 calibration's "at least four requests were running").
	MinRunning float64
	// HitRatio is the engine's own token hit ratio from counter deltas or
	// SGLang prefill lines (see HitSource), never the logged rolling rate.
	HitRatio float64
	// HitSource is EngineHitCounters, EngineHitPrefill or "" (none).
	HitSource string
	// Preemptions is the number of preemptions (SGLang: retractions) in the
	// window, from the metrics counter deltas when the run has them, else
	// from the log's per-interval counts; NaN without either.
	Preemptions float64
}

// engineSources are a run's choices of source, fixed for the whole run so
// that a series does not switch meaning from window to window.
type engineSources struct {
	hit         string
	preemptFrom string // schema.SourceMetrics, schema.SourceLog or ""
}

func (x *RunIndex) engineSample(k int) *schema.EngineSample { return &x.Data.Engine[x.engine[k]] }

// useSample reports whether a sample enters the engine series: when a
// source (log or metrics) has aggregated samples (engine_index -1, "N
// Engines Aggregated"), only those of that source, so that data-parallel
// ranks are not counted twice. Without aggregated samples, every rank's
// sample enters the means as one sample (ranks are averaged, not summed).
func (x *RunIndex) useSample(e *schema.EngineSample) bool {
	return !x.aggregateEng[e.Source] || e.EngineIndex == -1
}

func (x *RunIndex) sources() engineSources {
	var src engineSources
	hasPrefill, hasLogPre := false, false
	for k := range x.engine {
		e := x.engineSample(k)
		if !x.useSample(e) {
			continue
		}
		if e.PrefixHits != nil && e.PrefixQueries != nil {
			src.hit = EngineHitCounters
		}
		if e.CachedTokens != nil && e.NewTokens != nil {
			hasPrefill = true
		}
		if e.Preemptions != nil {
			if e.Source == schema.SourceMetrics {
				src.preemptFrom = schema.SourceMetrics
			} else {
				hasLogPre = true
			}
		}
	}
	if src.hit == "" && hasPrefill {
		src.hit = EngineHitPrefill
	}
	if src.preemptFrom == "" && hasLogPre {
		src.preemptFrom = schema.SourceLog
	}
	return src
}

// EngineWindows computes the engine-side measures of each window. A
// counter delta (a scrape's prefix-cache and preemption deltas, a log
// line's per-interval preemptions) covers the interval before its
// timestamp, so it belongs to the window (Start, End] (deltaIn); a point
// sample (a gauge: running, waiting, KV usage; an SGLang prefill line) to
// [Start, End), and one at the run's very end to the window that ends
// there (pointIn): the last scrape of a run counts.
func (x *RunIndex) EngineWindows(ws []Window) []EngineWindow {
	src := x.sources()
	out := make([]EngineWindow, len(ws))
	for wi, w := range ws {
		ew := EngineWindow{Window: w, HitSource: src.hit}
		var nRun, nWait, nKV int
		var sRun, sWait, sKV, hits, queries, pre float64
		minRun := math.Inf(1)
		preSeen := false
		lo := sort.SearchFloat64s(x.engineTS, w.Start)
		for k := lo; k < len(x.engine) && x.engineTS[k] <= w.End; k++ {
			e := x.engineSample(k)
			point, delta := x.pointIn(e.TS, w), deltaIn(e.TS, w)
			if !x.useSample(e) || !point && !delta {
				continue
			}
			ew.Samples++
			if point {
				if e.Running != nil {
					nRun++
					sRun += *e.Running
					minRun = math.Min(minRun, *e.Running)
				}
				if e.Waiting != nil {
					nWait++
					sWait += *e.Waiting
				}
				if e.KVUsage != nil {
					nKV++
					sKV += *e.KVUsage
				}
			}
			switch {
			case src.hit == EngineHitCounters && delta:
				if e.PrefixHits != nil && e.PrefixQueries != nil {
					hits += *e.PrefixHits
					queries += *e.PrefixQueries
				}
			case src.hit == EngineHitPrefill && point:
				if e.CachedTokens != nil && e.NewTokens != nil {
					hits += float64(*e.CachedTokens)
					queries += float64(*e.CachedTokens + *e.NewTokens)
				}
			}
			if delta && e.Preemptions != nil && e.Source == src.preemptFrom {
				pre += *e.Preemptions
				preSeen = true
			}
		}
		ew.Running, ew.Waiting, ew.KVUsage = meanOrNaN(sRun, nRun), meanOrNaN(sWait, nWait), meanOrNaN(sKV, nKV)
		ew.MinRunning = math.NaN()
		if nRun > 0 {
			ew.MinRunning = minRun
		}
		ew.HitRatio = math.NaN()
		if queries > 0 {
			ew.HitRatio = hits / queries
		}
		ew.Preemptions = math.NaN()
		if preSeen || (src.preemptFrom != "" && ew.Samples > 0) {
			ew.Preemptions = pre
		}
		out[wi] = ew
	}
	return out
}

// pointIn reports whether a point sample at ts belongs to w: ts in
// [Start, End), or ts at the run's end and w ending there.
func (x *RunIndex) pointIn(ts float64, w Window) bool {
	return w.Contains(ts) || ts == w.End && w.End >= x.End
}

// deltaIn reports whether a counter delta stamped ts, which covers the
// interval before ts, belongs to w: ts in (Start, End].
func deltaIn(ts float64, w Window) bool { return ts > w.Start && ts <= w.End }

// HasEngineRunning reports whether any engine sample of the run carries a
// running count.
func (x *RunIndex) HasEngineRunning() bool {
	for k := range x.engine {
		if e := x.engineSample(k); x.useSample(e) && e.Running != nil {
			return true
		}
	}
	return false
}

func meanOrNaN(sum float64, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
