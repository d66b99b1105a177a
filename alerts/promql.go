package alerts

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/stats"
)

// This file writes the PromQL of the recording rules. Every recording
// rule reads the engine's own series only, never another rule's output:
// Prometheus' rule backfill (promtool tsdb create-blocks-from rules)
// evaluates each rule against the stored series alone, so a rule reading
// another rule would backfill empty.

// Windows of the recorded hit ratios: the paper's figures' minute, its
// 5-minute analysis window (§3) and the 10 minutes of its end hit ratio
// (Table 2).
var hitWindows = []float64{stats.FigureWindowS, stats.AnalysisWindowS, stats.EndHitS}

// duration writes seconds as a PromQL duration ("5m", "90s").
func duration(s float64) string {
	if s >= 3600 && int(s)%3600 == 0 {
		return strconv.Itoa(int(s)/3600) + "h"
	}
	if s >= 60 && int(s)%60 == 0 {
		return strconv.Itoa(int(s)/60) + "m"
	}
	return strconv.Itoa(int(s)) + "s"
}

// number writes a threshold as PromQL reads it.
func number(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Names are the series the rules of one engine record, and the names of
// their alerts. Each recorded series keeps the labels of the engine's
// series but those the engine writes itself (its data-parallel replica,
// ranks, processes and model name): Prometheus' target labels, instance
// and job, and any the user's scrape configuration adds.
type Names struct {
	// HitRatio1m, HitRatio5m and HitRatio10m are the prefix-cache hit
	// ratio, cached over queried prompt tokens, from the counters' rates
	// over the window; absent while no prompt token was queried.
	HitRatio1m, HitRatio5m, HitRatio10m string
	// Running and Waiting are the requests running and waiting, summed
	// over data-parallel replicas; InEngine5m is their sum's mean over 5
	// minutes, the load the alerts require.
	Running, Waiting, InEngine5m string
	// KVUsage is the fraction of the KV pool in use, averaged over
	// replicas.
	KVUsage string
	// Preemptions5m is preemptions per second over 5 minutes (SGLang:
	// retractions).
	Preemptions5m string
	// Persistent and Onset are the alerts' names; Engine the value of
	// their serving_engine label.
	Persistent, Onset, Engine string
}

// Alert names, the same for both engines; their serving_engine label says
// which.
const (
	AlertPersistent = "PrefixCachePersistentlyDegraded"
	AlertOnset      = "PrefixCacheDegradationOnset"
)

// SeriesNames returns the names of the series the rules of engine record.
func SeriesNames(engine string) (Names, error) {
	e, err := lookup(engine)
	if err != nil {
		return Names{}, err
	}
	return e.names(), nil
}

func (e *engineSpec) names() Names {
	p := "instance:" + e.name + "_"
	return Names{
		HitRatio1m:    p + "prefix_cache_hit_ratio:rate1m",
		HitRatio5m:    p + "prefix_cache_hit_ratio:rate5m",
		HitRatio10m:   p + "prefix_cache_hit_ratio:rate10m",
		Running:       p + "requests_running:sum",
		Waiting:       p + "requests_waiting:sum",
		InEngine5m:    p + "requests_in_engine:avg5m",
		KVUsage:       p + "kv_cache_usage:avg",
		Preemptions5m: p + "preemptions:rate5m",
		Persistent:    AlertPersistent,
		Onset:         AlertOnset,
		Engine:        e.name,
	}
}

// hitRatioName returns the recorded hit ratio's name for window w.
func (n Names) hitRatioName(w float64) string {
	switch w {
	case stats.FigureWindowS:
		return n.HitRatio1m
	case stats.AnalysisWindowS:
		return n.HitRatio5m
	}
	return n.HitRatio10m
}

// alternatives joins fn of each spelling of m with "or", one per line.
func alternatives(m metric, fn func(series string) string) string {
	var parts []string
	for _, s := range m.spellings() {
		parts = append(parts, fn(s+m.selector))
	}
	return strings.Join(parts, "\n  or ")
}

// perInstance reduces the series of an expression to one per engine
// instance: the largest of copies, then agg over replicas (and a
// counter's parts).
func (e *engineSpec) perInstance(agg string, inner string, withParts bool) string {
	over := e.replicas
	if withParts {
		over = append(append([]string(nil), e.replicas...), e.parts...)
	}
	return fmt.Sprintf("%s without (%s) (max without (%s) (\n  %s\n))",
		agg, strings.Join(over, ", "), strings.Join(e.copies, ", "), inner)
}

// rate is the per-instance rate of counter m over w.
func (e *engineSpec) rate(m metric, w float64) string {
	return e.perInstance("sum", alternatives(m, func(s string) string {
		return "rate(" + s + "[" + duration(w) + "])"
	}), true)
}

// hitRatio is cached over queried prompt tokens over w; absent when no
// token was queried (an idle engine has no ratio, not a ratio of 0).
func (e *engineSpec) hitRatio(w float64) string {
	return e.rate(e.hits, w) + "\n/\n(\n" + indent(e.rate(e.queries, w)) + "\n  > 0\n)"
}

// gauge is the per-instance sum (agg "sum") or mean ("avg") of gauge m.
func (e *engineSpec) gauge(agg string, m metric) string {
	return e.perInstance(agg, alternatives(m, func(s string) string { return s }), false)
}

// meanOverTime is the per-instance sum of gauge m's mean over w.
func (e *engineSpec) meanOverTime(m metric, w float64) string {
	return e.perInstance("sum", alternatives(m, func(s string) string {
		return "avg_over_time(" + s + "[" + duration(w) + "])"
	}), false)
}

// inEngine is the mean over w of the requests running plus waiting.
func (e *engineSpec) inEngine(w float64) string {
	return e.meanOverTime(e.running, w) + "\n+\n" + e.meanOverTime(e.waiting, w)
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }
