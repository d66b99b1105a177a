package promseries

import (
	"strings"

	"github.com/outlast-dev/outlast/ingest/internal/samplefield"
)

// This file is the table of the metrics outlast reads and of the sample
// fields they feed.

// Fields of an EngineSample that a metric feeds.
const (
	fRunning = iota
	fWaiting
	fKV
	fQueries
	fHits
	fPrompt
	fGen
	fPreempt
	nFields
	nGauges = fQueries // fields before it are gauges, the rest counters
)

// sampleFields are the sample fields that the fields feed.
var sampleFields = [nFields]samplefield.Float{
	fRunning: samplefield.Running,
	fWaiting: samplefield.Waiting,
	fKV:      samplefield.KVUsage,
	fQueries: samplefield.PrefixQueries,
	fHits:    samplefield.PrefixHits,
	fPrompt:  samplefield.PromptTokens,
	fGen:     samplefield.GenerationTokens,
	fPreempt: samplefield.Preemptions,
}

// Known metric names, numbered. The gauges come first, then the counters
// (mVQueries to mSPreempt), then the two that give the KV pool size, then
// the counters' _created series (mCreated on).
const (
	mVRunning = iota
	mSRunning
	mSRunningOld
	mVWaiting
	mSWaiting
	mSWaitingOld
	mVKV
	mVKVOld
	mSKV
	mVQueries
	mVQueriesOld
	mVHits
	mVHitsOld
	mSHits
	mVPrompt
	mSPrompt
	mVGen
	mSGen
	mVPreempt
	mSPreempt
	mVCacheConfig
	mSMaxTokens
	// mCreated is the first of the counters' creation times, in counter
	// order: the _created series that prometheus_client writes beside
	// each counter outside multiprocess mode (vLLM's; SGLang's only where
	// it runs without it, as inside Dynamo), the Unix time the series
	// began. A new
	// one means the engine restarted, even when the counter has already
	// passed its old value.
	mCreated
	nMetrics = mCreated + mSPreempt - mVQueries + 1
)

// metricNames are the sample names of the known metrics: the table below,
// then each counter's _created series, named as prometheus_client names it
// (the name without _total, then _created: prometheus_client
// metrics.py Counter._child_samples, exposition.py generate_latest).
var metricNames = func() [nMetrics]string {
	n := metricTable
	for c := mVQueries; c <= mSPreempt; c++ {
		n[createdOf(c)] = strings.TrimSuffix(n[c], "_total") + "_created"
	}
	return n
}()

// metricTable names the metrics before mCreated.
var metricTable = [nMetrics]string{
	mVRunning:     "vllm:num_requests_running",
	mSRunning:     "sglang:num_running_reqs",
	mSRunningOld:  "sglang:num_requests_running", // SGLang 0.3 (late 2024)
	mVWaiting:     "vllm:num_requests_waiting",
	mSWaiting:     "sglang:num_queue_reqs",
	mSWaitingOld:  "sglang:num_requests_waiting", // SGLang 0.3 (late 2024)
	mVKV:          "vllm:kv_cache_usage_perc",
	mVKVOld:       "vllm:gpu_cache_usage_perc", // before ≈v0.10; a fraction too
	mSKV:          "sglang:token_usage",
	mVQueries:     "vllm:prefix_cache_queries_total",
	mVQueriesOld:  "vllm:gpu_prefix_cache_queries_total",
	mVHits:        "vllm:prefix_cache_hits_total",
	mVHitsOld:     "vllm:gpu_prefix_cache_hits_total",
	mSHits:        "sglang:cached_tokens_total",
	mVPrompt:      "vllm:prompt_tokens_total",
	mSPrompt:      "sglang:prompt_tokens_total",
	mVGen:         "vllm:generation_tokens_total",
	mSGen:         "sglang:generation_tokens_total",
	mVPreempt:     "vllm:num_preemptions_total",
	mSPreempt:     "sglang:num_retracted_requests_total",
	mVCacheConfig: "vllm:cache_config_info",
	mSMaxTokens:   "sglang:max_total_num_tokens",
}

// The second spelling. Prometheus reserves the colon for recording rules
// (its data model page, concepts/data_model, as sglang#12970 quotes), and tools between the
// engine and the file rewrite it to an underscore: sgl-router's
// /engine_metrics since sglang#11456 (the "sglang_" names that sglang#12970
// moved the example dashboard to, and that sglang#37985 calls the gateway
// replacing colons with underscores), the SMG sidecar (smg-project/smg#813),
// OpenTelemetry and other metric pipelines. The underscore spelling of known
// metric m is metric m+nMetrics: a series of its own, so that the two
// spellings of one metric in one scrape are never summed (Builder.fields).

// NumMetrics is the number of known metric names, numbered from 0: each
// known metric in its own spelling ("vllm:…", "sglang:…"), then each with
// an underscore for that colon ("vllm_…", "sglang_…").
const NumMetrics = 2 * nMetrics

// spelled are the sample names of the known metrics in both spellings,
// and sepAt the offset of the colon in each name.
var spelled, sepAt = func() (n [NumMetrics]string, at [nMetrics]int) {
	for m, name := range metricNames {
		at[m] = strings.IndexByte(name, ':')
		n[m] = name
		n[m+nMetrics] = name[:at[m]] + "_" + name[at[m]+1:]
	}
	return n, at
}()

// base returns the known metric of name number m, whatever its spelling.
func base(m int) int {
	if m >= nMetrics {
		return m - nMetrics
	}
	return m
}

// isCounter reports whether metric m (either spelling) is a cumulative
// counter.
func isCounter(m int) bool { m = base(m); return m >= mVQueries && m <= mSPreempt }

// isGauge reports whether metric m (either spelling) is a gauge outlast
// stores as scraped.
func isGauge(m int) bool { return base(m) < mVQueries }

// createdOf returns the _created metric of counter c, in c's spelling.
func createdOf(c int) int { return c - base(c) + mCreated + base(c) - mVQueries }

// counterOf returns the counter whose creation times metric m gives (in
// m's spelling), or -1 when m is no _created metric.
func counterOf(m int) int {
	if base(m) < mCreated {
		return -1
	}
	return m - base(m) + mVQueries + base(m) - mCreated
}

// sources lists, per field, the metrics that feed it in order of
// preference: the first present in a scrape is used, never a sum of two.
// SGLang has no prefix-cache query counter: every prompt token is looked up
// in the radix cache, so prompt_tokens_total serves as queries.
var sources = [nFields][]int{
	fRunning: {mVRunning, mSRunning, mSRunningOld},
	fWaiting: {mVWaiting, mSWaiting, mSWaitingOld},
	fKV:      {mVKV, mVKVOld, mSKV},
	fQueries: {mVQueries, mVQueriesOld, mSPrompt},
	fHits:    {mVHits, mVHitsOld, mSHits},
	fPrompt:  {mVPrompt, mSPrompt},
	fGen:     {mVGen, mSGen},
	fPreempt: {mVPreempt, mSPreempt},
}

// Lookup returns the number of the known metric whose sample name is name,
// in either spelling (m+nMetrics for the underscore one), or -1. The known
// names all begin with "vllm" or "sglang", which rejects most others at
// once; the rest are compared with the few known names of their length,
// which costs less than hashing them (a scrape reader looks up every
// line's name). The colon spelling, the engines' own, is tried first and
// costs one comparison as before; the underscore one is compared only
// when name has an underscore where the colon would be. The lookup does
// not allocate.
func Lookup(name []byte) int {
	if len(name) < 5 || name[0] != 'v' && name[0] != 's' || len(name) >= len(namesByLen) {
		return -1
	}
	for _, m := range namesByLen[len(name)] {
		full := metricNames[m]
		if full == string(name) {
			return m
		}
		if p := sepAt[m]; name[p] == '_' && full[:p] == string(name[:p]) && full[p+1:] == string(name[p+1:]) {
			return m + nMetrics
		}
	}
	return -1
}

// Created reports whether known metric m is a counter's _created series,
// which the readers need only the samples of.
func Created(m int) bool { return counterOf(m) >= 0 }

// Known reports whether name is the sample name of a known metric.
func Known(name []byte) bool { return Lookup(name) >= 0 }

// Name returns the sample name of known metric m, as spelled.
func Name(m int) string { return spelled[m] }

// namesByLen lists the known metrics by the length of their names (both
// spellings have one length).
var namesByLen = func() [64][]int {
	var by [64][]int
	for m, n := range metricNames {
		by[len(n)] = append(by[len(n)], m) // a name of 64 bytes or more fails here, at init
	}
	return by
}()
