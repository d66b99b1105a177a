package alerts

import (
	"fmt"
	"strings"

	"github.com/outlast-dev/outlast/schema"
)

// This file is the table of the engine metrics the rules read, in every
// name outlast's readers know them by (ingest/internal/promseries, whose
// test checks that both tables name the same series), and of the labels
// the engines write themselves.

// metric is one quantity an engine exports, by the names it had across
// versions, newest first. Each name is read in both spellings: the
// engine's own ("vllm:…") and with an underscore for the colon
// ("vllm_…"), as sgl-router, sidecars and metric pipelines rename it.
// PromQL's "or" keeps the first name present for each label set, so one
// series exported under two names is read once, never summed.
type metric struct {
	names []string
	// selector is appended to every name: SGLang's {priority=""} keeps
	// the scheduler's total and leaves out the per-priority parts that
	// --enable-priority-scheduling adds beside it.
	selector string
}

// engineSpec is what the rules need of one engine.
type engineSpec struct {
	name  string // schema.EngineVLLM or schema.EngineSGLang
	title string // as written in prose
	// running, waiting, kv (a fraction of the pool), hits, queries (both in
	// tokens) and preemptions. SGLang has no query counter: every prompt
	// token is looked up in its radix cache, so its prompt tokens are the
	// queries.
	running, waiting, kv, hits, queries, preemptions metric
	// copies are the labels of series that repeat one figure (a process'
	// copy of a gauge, the tensor-parallel ranks of one batch, pipeline
	// stages after the first, the model's name, which SGLang writes on some
	// series and not others): the largest is kept. replicas are the labels
	// of data-parallel replicas, whose counts are summed (their KV usage
	// averaged). parts are the labels of a counter's parts, summed before
	// the ratio: SGLang's cached_tokens_total{cache_source} gives each
	// request's cached tokens to its device, host and storage tiers, or to
	// "total" when it has no breakdown, never to both.
	copies, replicas, parts []string
}

var vllm = engineSpec{
	name:  schema.EngineVLLM,
	title: "vLLM",
	// vllm/v1/metrics/loggers.py; gpu_cache_usage_perc and the
	// gpu_prefix_cache_* counters before ≈0.10 (vllm/engine/metrics.py
	// for V0).
	running:     metric{names: []string{"vllm:num_requests_running"}},
	waiting:     metric{names: []string{"vllm:num_requests_waiting"}},
	kv:          metric{names: []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}},
	hits:        metric{names: []string{"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"}},
	queries:     metric{names: []string{"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"}},
	preemptions: metric{names: []string{"vllm:num_preemptions_total"}},
	// pid: each API-server process exported kv_cache_usage_perc until
	// vllm-project/vllm#28792, the one receiving the engine's stats
	// holding the figure and the others 0. engine: the data-parallel
	// engine index.
	copies:   []string{"pid", "model_name"},
	replicas: []string{"engine"},
}

var sglang = engineSpec{
	name:  schema.EngineSGLang,
	title: "SGLang",
	// python/sglang/srt/metrics/collector.py (observability/ in 2026);
	// num_requests_running and _waiting in the 0.3 collector.
	running:     metric{names: []string{"sglang:num_running_reqs", "sglang:num_requests_running"}, selector: `{priority=""}`},
	waiting:     metric{names: []string{"sglang:num_queue_reqs", "sglang:num_requests_waiting"}, selector: `{priority=""}`},
	kv:          metric{names: []string{"sglang:token_usage"}},
	hits:        metric{names: []string{"sglang:cached_tokens_total"}},
	queries:     metric{names: []string{"sglang:prompt_tokens_total"}},
	preemptions: metric{names: []string{"sglang:num_retracted_requests_total"}},
	// The schedulers of one replica describe one batch: by default only
	// the first of each attention-TP group reports, with
	// --enable-metrics-for-all-schedulers all do; later pipeline stages
	// repeat stage 0. SGLang 0.3 labelled the model "name".
	copies:   []string{"tp_rank", "pp_rank", "moe_ep_rank", "pid", "model_name", "name", "engine_type"},
	replicas: []string{"dp_rank"},
	parts:    []string{"cache_source"},
}

// Engines are the engines the rules and dashboards are written for.
var Engines = []string{schema.EngineVLLM, schema.EngineSGLang}

func lookup(engine string) (*engineSpec, error) {
	switch engine {
	case schema.EngineVLLM:
		return &vllm, nil
	case schema.EngineSGLang:
		return &sglang, nil
	}
	return nil, fmt.Errorf("engine %q: want %s", engine, strings.Join(Engines, " or "))
}

// spellings returns the names of m, each in the engine's spelling and then
// with an underscore for the colon.
func (m metric) spellings() []string {
	var out []string
	for _, n := range m.names {
		out = append(out, n, strings.Replace(n, ":", "_", 1))
	}
	return out
}

// MetricNames returns every engine metric name the rules of engine read,
// in both spellings, grouped by what they measure: running, waiting, kv,
// hits, queries, preemptions.
func MetricNames(engine string) (map[string][]string, error) {
	e, err := lookup(engine)
	if err != nil {
		return nil, err
	}
	return map[string][]string{
		"running":     e.running.spellings(),
		"waiting":     e.waiting.spellings(),
		"kv":          e.kv.spellings(),
		"hits":        e.hits.spellings(),
		"queries":     e.queries.spellings(),
		"preemptions": e.preemptions.spellings(),
	}, nil
}
