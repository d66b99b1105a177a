// Package ingest holds outlast's input side: one streaming reader per input
// format, each returning positioned errors (textpos.ParseError) for bad
// lines, and the reading of a whole run directory through them.
//
//	ingest/manifest       run.yaml, the run's manifest
//	ingest/outlastlog     the gateway's per-request log (gateway.jsonl)
//	ingest/aiperf         AIPerf's per-request export (profile_export.jsonl)
//	ingest/guidellm       GuideLLM's report (benchmarks.json or .yaml)
//	ingest/inferenceperf  inference-perf's per_request_lifecycle_metrics.json
//	ingest/vllmlog        vLLM's engine log
//	ingest/sglanglog      SGLang's engine log
//	ingest/promscrape     Prometheus scrapes of the engine's /metrics
//	ingest/promjson       the Prometheus HTTP API's query_range answers
//	ingest/inputs         the table of the formats above: the files' roles,
//	                      and for each format its names, how to tell and
//	                      open it, what outlast init reads beside it
//	ingest/rundir         a run directory: the readers above in order, the
//	                      checks across files, the tables of one run (or of
//	                      each benchmark of a GuideLLM sweep)
//	ingest/runinit        a run directory's first run.yaml (outlast init)
//	ingest/campaign       the run directories of a campaign
//
// Nothing here writes the dataset: ingest/rundir streams a run's rows into
// a Sink, which cmd/outlast connects to the dataset package.
package ingest
