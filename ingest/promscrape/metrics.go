package promscrape

import (
	"bytes"

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

// Known metric names, numbered.
const (
	mVRunning = iota
	mSRunning
	mVWaiting
	mSWaiting
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
	mVWaiting:     "vllm:num_requests_waiting",
	mSWaiting:     "sglang:num_queue_reqs",
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

// sources lists, per field, the metrics that feed it in order of
// preference: the first present in a scrape is used, never a sum of two.
// SGLang has no prefix-cache query counter: every prompt token is looked up
// in the radix cache, so prompt_tokens_total serves as queries.
var sources = [nFields][]int{
	fRunning: {mVRunning, mSRunning},
	fWaiting: {mVWaiting, mSWaiting},
	fKV:      {mVKV, mVKVOld, mSKV},
	fQueries: {mVQueries, mVQueriesOld, mSPrompt},
	fHits:    {mVHits, mVHitsOld, mSHits},
	fPrompt:  {mVPrompt, mSPrompt},
	fGen:     {mVGen, mSGen},
	fPreempt: {mVPreempt, mSPreempt},
}

// known reports whether name is one of metricNames. The known names all
// begin with "vllm:" or "sglang:", which rejects most others at once.
func known(name []byte) bool {
	if len(name) < 5 || name[0] != 'v' && name[0] != 's' || bytes.IndexByte(name, ':') < 0 {
		return false
	}
	_, ok := knownNames[string(name)]
	return ok
}

// knownNames indexes metricNames.
var knownNames = func() map[string]int {
	m := make(map[string]int, nMetrics)
	for i, n := range metricNames {
		m[n] = i
	}
	return m
}()
