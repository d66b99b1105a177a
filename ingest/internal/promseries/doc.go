// Package promseries is what outlast's readers of Prometheus data share:
// the series of vLLM and SGLang it reads (metrics.go), what a series'
// labels mean (series.go), how the series observed at one time become one
// schema.EngineSample (build.go, with the rank rule in rank.go), and, for
// inputs whose samples carry their own times, a Timeline that holds their
// points and replays them by time (timeline.go). ingest/promscrape (scrapes
// and exposition text) and ingest/promjson (query_range JSON) parse; this
// package does the rest.
//
// Series. vLLM's names are those of vllm/v1/metrics/loggers.py (and
// vllm/engine/metrics.py before V1): num_requests_running and _waiting,
// kv_cache_usage_perc (gpu_cache_usage_perc before ≈0.10), the
// prefix_cache_queries/hits counters (gpu_prefix_cache_* before), the
// prompt and generation token counters, num_preemptions, and
// cache_config_info for the KV pool. SGLang's are those of
// python/sglang/srt/metrics/collector.py (moved to
// python/sglang/srt/observability/metrics_collector.py in 2026):
// num_running_reqs and
// num_queue_reqs (num_requests_running and num_requests_waiting in the
// first collector, python/sglang/srt/metrics/metrics_collector.py of
// 0.3.x, late 2024), token_usage, cached_tokens_total, the prompt and
// generation token counters, num_retracted_requests_total, and
// max_total_num_tokens for the KV pool. Where a metric was renamed, the
// newest name present is used, never the sum of two. SGLang's
// cache_hit_rate gauge is not read (a percent in 0.3, a fraction later);
// hits come from the counters.
//
// Spellings. Every name is read with an underscore for its colon too
// (sglang_num_running_reqs, vllm_num_requests_running): Prometheus
// reserves colons for recording rules, and sgl-router's /engine_metrics
// (sglang#11456; sglang#12970 and #37985 describe the rewrite), the SMG
// sidecar (smg-project/smg#813) and metric pipelines rename them so. The
// two spellings are two names (metrics.go): when one sample has both,
// they are one series seen through two paths, so the colon one is read,
// the other left out, never added, and a note says so.
//
// NaN. A gauge whose value is NaN has no figure: its field is null, and
// so is the sum or mean over replicas it would enter (a sum without it
// would be a silent undercount). NaN is an ordinary sample value to
// Prometheus; its staleness marker, a NaN of its own, is never in a scrape
// or an API answer, and the readers that meet it (promtool's dumps) end
// the series there instead. A counter that is NaN, infinite or negative,
// or an infinite gauge, is an error.
//
// Several engines and ranks. Series are summed (counts, counters) or
// averaged (KV usage) over data-parallel replicas (vLLM label engine,
// SGLang dp_rank). Series that differ in Prometheus' target labels,
// instance or job, are summed too, but they are two servers' rather than
// one server's replicas: Info.Notes then warns, with the labels' values
// and the number of samples, for each metric. SGLang labels every scheduler's series with its global
// tp_rank, pp_rank and moe_ep_rank, and with dp_rank under data
// parallelism (python/sglang/srt/managers/scheduler_metrics_mixin.py,
// init_metrics). The schedulers of one replica describe one batch: by
// default only the first of each attention-TP group reports, with
// --enable-metrics-for-all-schedulers all do. So, of the series that
// differ only in tp_rank, moe_ep_rank or pid (prometheus_client's
// multiprocess gauges add the writing process), the one of the lowest
// tp_rank is used: tp_rank 0 without data parallelism, the replica's first
// rank under DP attention (where tp_rank = dp_rank × attention-TP size),
// one per DP rank to be summed. Under --enable-priority-scheduling SGLang
// labels its scheduler series priority="" and gives num_running_reqs and
// num_queue_reqs again per priority, priority="<n>", beside that total
// (SchedulerMetricsCollector.init_new, _log_gauge_queue_count; the parts
// came with sgl-project/sglang#17026, 2026-01): those parts
// are left out, never added to the total. A series repeated under another pid at
// that rank is left out and counted (Info.RankRepeats). Series with a pid
// and no tp_rank are copies of one gauge, one per process: vLLM's
// API-server processes (--api-server-count > 1) each exported
// kv_cache_usage_perc, the one that receives the engine's stats holding
// the figure and the others 0, until vllm-project/vllm#28792 made it
// "mostrecent"; of such copies the largest is used and the others counted
// (Info.PidCopies), never averaged or summed. Pipeline stages other than
// pp_rank 0 are left out: they repeat stage 0's view.
//
// Counters. A delta needs the counter at this time and at the previous
// recognised one; a series new since then counts from zero (in a scrape;
// in an export, a Timeline's, a series first seen gives its counter no
// delta that time, since an export cut by time or an engine scraped at
// other moments begins a series in mid-life) (SGLang creates
// labelled series on first use), and so does a counter whose family a
// scrape declares (Builder.Declare: its TYPE line, followed by another
// line) without any series: it stands at 0 there. A series that went down
// or disappeared while others of its counter remain means the engine
// restarted: the sample gets CounterReset and no deltas. A counter with no
// series at all at a time that the time before had gives no deltas there
// nor at the next time, and is counted (Info.CounterGaps).
// So does a counter whose _created series (the Unix time the series
// began, which prometheus_client writes beside each counter outside
// multiprocess mode: vLLM's /metrics has it, SGLang's multiprocess
// metrics do not; prometheus_client metrics.py Counter._child_samples; PROMETHEUS_DISABLE_CREATED_SERIES turns them off)
// changed since it was last seen in the previous recognised time: an
// engine that restarted while the scrapes in between failed may be past
// its old count by the next scrape that succeeds, and its delta would be
// a silent guess.
// SGLang's cached_tokens_total{cache_source} is summed over all its series:
// a request's cached tokens go to its device, host and storage_* tiers
// when it has their breakdown, else to "total", never to both
// (python/sglang/srt/observability/metrics_collector.py,
// TokenizerMetricsCollector.observe_one_finished_request), so "total"
// beside the tiers is the requests without a breakdown.
//
// Timelines. Exports from a Prometheus server give each point its own time,
// in any order: series by series (promtool's dump, one query_range file per
// series) or scrape by scrape (/federate). A Timeline gathers the points of
// the known series and replays one sample per distinct time, at which each
// series stands at its latest point no older than Lookback (5 minutes,
// Prometheus' own lookback), unless that point is a staleness marker. For
// one engine's export every series has a point at every scrape, so the
// samples are the scrapes; engines scraped at other moments are counted
// once each, as a PromQL instant query would. A point given twice with one
// value is kept once (Info.Repeats); with two values it is an error, and
// like any rejected point it leaves out every sample at its time, so that
// no series looks as if it vanished.
package promseries
