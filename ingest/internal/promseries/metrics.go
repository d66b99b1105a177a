package promseries

import (
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
// (mVQueries to mSPreempt), then the two that give the KV pool size.
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
	nMetrics
)

// metricNames are the sample names of the known metrics.
var metricNames = [nMetrics]string{
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

// NumMetrics is the number of known metrics, numbered from 0.
const NumMetrics = nMetrics

// isCounter reports whether metric m is a cumulative counter.
func isCounter(m int) bool { return m >= mVQueries && m <= mSPreempt }

// isGauge reports whether metric m is a gauge outlast stores as scraped.
func isGauge(m int) bool { return m < mVQueries }

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
// or -1. The known names all begin with "vllm:" or "sglang:", which rejects
// most others at once; the rest are compared with the few known names of
// their length, which costs less than hashing them (a scrape reader looks
// up every line's name). The lookup does not allocate.
func Lookup(name []byte) int {
	if len(name) < 5 || name[0] != 'v' && name[0] != 's' || len(name) >= len(namesByLen) {
		return -1
	}
	for _, m := range namesByLen[len(name)] {
		if metricNames[m] == string(name) {
			return m
		}
	}
	return -1
}

// Known reports whether name is the sample name of a known metric.
func Known(name []byte) bool { return Lookup(name) >= 0 }

// Name returns the sample name of known metric m.
func Name(m int) string { return metricNames[m] }

// namesByLen lists the known metrics by the length of their names.
var namesByLen = func() [64][]int {
	var by [64][]int
	for m, n := range metricNames {
		by[len(n)] = append(by[len(n)], m) // a name of 64 bytes or more fails here, at init
	}
	return by
}()
