// Package ingest holds outlast's input side: one streaming reader per input
// format, each returning positioned errors (textpos.ParseError) for bad
// lines, and the reading of a whole run directory through them.
//
//	ingest/manifest    run.yaml, the run's manifest
//	ingest/gateway     the gateway's per-request log (gateway.jsonl)
//	ingest/vllmlog     vLLM's engine log
//	ingest/sglanglog   SGLang's engine log
//	ingest/promscrape  Prometheus scrapes of the engine's /metrics
//	ingest/rundir      a run directory: the readers above in order, the
//	                   checks across files, the tables of one run
//
// Nothing here writes the dataset: ingest/rundir streams a run's rows into
// a Sink, which cmd/outlast connects to the dataset package.
package ingest
