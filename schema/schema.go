// Package schema defines outlast's canonical tables: runs, sessions, turns,
// events and engine samples. Each table is a Go struct whose parquet tags are
// the on-disk columns; this file is the one source of truth for the dataset.
//
// Conventions shared by every table:
//   - Times are float64 seconds since the run's t=0 (the manifest's
//     started_at), so runs line up; only runs.started_at is wall-clock.
//   - A pointer field is a nullable column: nil means "not recorded", never 0.
//   - Token counts are int64 tokens; rates are per second; ratios are in [0,1].
//   - The run name is the Hive partition key (DATASET/<table>/run=<name>/),
//     so it is not stored inside the files (Spark and DuckDB refuse a column
//     that is both in the file and in the path). Readers fill Run from the path.
//   - The tags also choose how a column is written, which readers do not
//     see: "dict" for strings of few values (and the turns' session ids,
//     repeated in each session's turns), "delta,uncompressed" for integer
//     columns that are not null (DELTA_BINARY_PACKED packs them as small as
//     zstd made them, at a fraction of its cost).
package schema

import "time"

// Version is the dataset schema version written into every file's metadata
// under VersionKey. Bump it when a column changes meaning or type.
const Version = "1"

// Metadata keys written into every Parquet file's key/value metadata.
const (
	VersionKey = "outlast.schema_version"
	TableKey   = "outlast.table"
	RunKey     = "outlast.run"
)

// Table names, also the dataset's top-level directory names.
const (
	TableRuns     = "runs"
	TableSessions = "sessions"
	TableTurns    = "turns"
	TableEvents   = "events"
	TableEngine   = "engine"
)

// Tables lists every table in dataset order.
var Tables = []string{TableRuns, TableSessions, TableTurns, TableEvents, TableEngine}

// Run is one row per run: the manifest flattened, plus provenance.
type Run struct {
	Run        string `parquet:"-"`               // run name, unique in a dataset (partition key)
	Experiment string `parquet:"experiment,dict"` // runs analysed together
	Design     string `parquet:"design,dict"`     // paired | recovery | calibration | drain | mix-shift | prevention | observe | nocache | flush | replay
	Seed       *int64 `parquet:"seed,optional"`   // arms that share a base arrival stream share a seed; null if absent
	Arm        string `parquet:"arm,dict"`        // burst, no-burst, none, budgeter, session-cap, ...
	// StartedAt is the wall clock of t=0, UTC, microseconds.
	StartedAt time.Time `parquet:"started_at,timestamp(microsecond)"`
	DurationS float64   `parquet:"duration_s"` // planned length, seconds

	EngineName    string `parquet:"engine_name,dict"`    // vllm | sglang | other
	EngineVersion string `parquet:"engine_version,dict"` // as given in the manifest
	EngineModel   string `parquet:"engine_model,dict"`   // model name
	PrefixCaching bool   `parquet:"prefix_caching"`      // automatic prefix caching on
	// KVPoolTokens is the KV pool size C in tokens; null when no source gave it.
	KVPoolTokens *int64 `parquet:"kv_pool_tokens,optional"`
	// KVPoolSource says where KVPoolTokens came from: manifest | engine_log | metrics | "" (unknown).
	KVPoolSource     string `parquet:"kv_pool_source,dict"`
	CPUOffloadTokens *int64 `parquet:"cpu_offload_tokens,optional"` // host-tier KV tokens, null if not given
	LogTZ            string `parquet:"log_tz,dict"`                 // zone of the engine log's timestamps (default UTC)
	// EngineLogFormat names the engine log dialect recognised: vllm,
	// vllm-v0, vllm-0.7, vllm-0.8, vllm-0.9, vllm-0.10, vllm-2026, sglang,
	// sglang-0.1, sglang-0.3, sglang-0.4, sglang-0.5 or sglang-2026 (see
	// the vllmlog and sglanglog packages), then "+" and the wrappers that
	// stand in front of most of its lines, if any, in this order:
	// logexport-tsv, cri, journald, container-rfc3339, kubectl-prefix,
	// timestamp-pipe, docker-compose, slurm-label, launcher, ray,
	// docker-json, journald-json, tracing, pylogging (such as
	// "vllm-0.10+docker-compose", "sglang-2026+cri",
	// "vllm-2026+docker-json"); "" without an engine log.
	EngineLogFormat string `parquet:"engine_log_format,dict"`
	// MetricsFormat names the form the metrics were read in: scrapes,
	// prometheus-text, openmetrics or query-range (schema.MetricsFormats;
	// query-range samples are Prometheus' evaluations at its step, not the
	// scrapes); "" without metrics.
	MetricsFormat string `parquet:"metrics_format,dict"`

	ArrivalRate   *float64 `parquet:"arrival_rate,optional"`   // workload.arrival_rate, sessions/s (lambda)
	Turns         *int64   `parquet:"workload_turns,optional"` // workload.turns per session
	ThinkMeanS    *float64 `parquet:"think_mean_s,optional"`   // mean think/tool time, seconds
	SystemTokens  *int64   `parquet:"system_tokens,optional"`  // shared system prompt, tokens
	TaskTokens    *int64   `parquet:"task_tokens,optional"`    // per-session task, tokens
	OutputTokens  *int64   `parquet:"output_tokens,optional"`  // output per turn, tokens
	ToolTokens    *int64   `parquet:"tool_tokens,optional"`    // tool output appended per turn, tokens
	WorkloadExtra string   `parquet:"workload_extra"`          // other workload keys as JSON with sorted keys ("{}" if none)

	TriggerKind      string   `parquet:"trigger_kind,dict"`           // burst | flush | rate-change | mix-shift | none | "" (absent)
	TriggerStartS    *float64 `parquet:"trigger_start_s,optional"`    // seconds
	TriggerEndS      *float64 `parquet:"trigger_end_s,optional"`      // seconds
	TriggerExtraRate *float64 `parquet:"trigger_extra_rate,optional"` // burst: extra sessions/s
	TriggerRateAfter *float64 `parquet:"trigger_rate_after,optional"` // rate-change: arrival rate after start_s
	TriggerExtra     string   `parquet:"trigger_extra"`               // other trigger keys as JSON ("{}" if none)
	ControlKind      string   `parquet:"control_kind,dict"`           // none | admission-cap | session-cap | adaptive-cap | aimd | budgeter | ""
	ControlStartS    *float64 `parquet:"control_start_s,optional"`    // seconds
	ControlParams    string   `parquet:"control_params"`              // control.params as JSON with sorted keys ("{}" if none)
	// AlignS is where 5-minute analysis windows are aligned: trigger.end_s,
	// else control.start_s, else 0 (run-format.md).
	AlignS float64 `parquet:"align_s"`
	Labels string  `parquet:"labels"` // labels as JSON with sorted keys ("{}" if none)

	ManifestSHA256  string `parquet:"manifest_sha256"`   // sha256 of run.yaml as read (hex)
	GatewaySHA256   string `parquet:"gateway_sha256"`    // sha256 of the gateway log file bytes (hex)
	EngineLogSHA256 string `parquet:"engine_log_sha256"` // "" without an engine log
	MetricsSHA256   string `parquet:"metrics_sha256"`    // "" without metrics
	OutlastVersion  string `parquet:"outlast_version,dict"`
	SchemaVersion   string `parquet:"schema_version,dict"`
	RejectedLines   int64  `parquet:"rejected_lines"` // lines rejected in --lenient mode (kept under _rejects/)

	// GatewayFormat names the format of the gateway log: outlast (the
	// native gateway.jsonl), aiperf, guidellm or inference-perf; "" in
	// datasets written before the load generators were read.
	GatewayFormat string `parquet:"gateway_format,dict"`
	// CacheReported says whether any turn carried an engine-reported
	// cached-token figure. False: the engine was not asked to report them
	// (vLLM --enable-prompt-tokens-details, SGLang --enable-cache-report)
	// or the load generator does not record them, so the turns'
	// cached_tokens are unknown, not 0, and there is no hit ratio. Null
	// when the run has no turn to tell from, and in datasets written before
	// the column existed.
	CacheReported *bool `parquet:"cache_reported,optional"`
	// ExcludedRecords counts the load generator's records that are not
	// part of the run: AIPerf's warmup phase, GuideLLM's requests outside
	// the benchmark's measured window. Null for outlast's own format.
	ExcludedRecords *int64 `parquet:"excluded_records,optional"`
	// Benchmark is the index of the GuideLLM benchmark the run is (a sweep
	// gives one run per benchmark); null for other formats.
	Benchmark *int64 `parquet:"benchmark,optional"`
	// LoadStrategy is the load generator's scheduling (GuideLLM's strategy
	// type, e.g. concurrent, constant, poisson; AIPerf's or
	// inference-perf's load type from the manifest's workload.load_strategy);
	// "" when not known. LoadRate (requests/s) and LoadConcurrency are its
	// target rate and concurrency, null when it has none.
	LoadStrategy    string   `parquet:"load_strategy,dict"`
	LoadRate        *float64 `parquet:"load_rate,optional"`
	LoadConcurrency *int64   `parquet:"load_concurrency,optional"`
	// ClockAnchor says how a gateway log on a monotonic clock
	// (inference-perf) was put on the wall clock: per_session (the
	// per-session file's epoch times), created (the server's "created"
	// seconds in the responses) or manifest (files.clock_offset_s); ""
	// when the log's times are wall-clock already. ClockUncertaintyS is
	// the half-width of the anchor's interval, seconds; null without one
	// or when the manifest gave it.
	ClockAnchor       string   `parquet:"clock_anchor,dict"`
	ClockUncertaintyS *float64 `parquet:"clock_uncertainty_s,optional"`
}

// Session is one row per session that arrived at the gateway.
type Session struct {
	Run          string   `parquet:"-"`
	Session      string   `parquet:"session"`                       // session id
	Origin       string   `parquet:"origin,dict"`                   // base | burst | ...
	ArriveS      float64  `parquet:"arrive_s"`                      // session_start time
	EndS         *float64 `parquet:"end_s,optional"`                // session_end time; null if it never ended
	Status       string   `parquet:"status,dict"`                   // done | aborted | open (no session_end)
	TurnsPlanned *int64   `parquet:"turns_planned,optional"`        // from session_start, null if not given
	TurnsDone    int64    `parquet:"turns_done,delta,uncompressed"` // session_end.turns_done, else turn records seen
	// ContextTokens is the initial context (session_start.context_tokens), null if not given.
	ContextTokens *int64 `parquet:"context_tokens,optional"`
}

// Turn is one row per completed (or failed) turn.
type Turn struct {
	Run          string   `parquet:"-"`
	Session      string   `parquet:"session,dict"`
	Turn         int32    `parquet:"turn,delta,uncompressed"` // 0-based
	Origin       string   `parquet:"origin,dict"`             // the session's origin
	ReadyS       *float64 `parquet:"ready_s,optional"`        // agent asked for the turn
	SentS        *float64 `parquet:"sent_s,optional"`         // forwarded to the engine
	FirstTokenS  *float64 `parquet:"first_token_s,optional"`  // first output token
	DoneS        float64  `parquet:"done_s"`                  // completion (the record's ts)
	PromptTokens int64    `parquet:"prompt_tokens,delta,uncompressed"`
	CachedTokens int64    `parquet:"cached_tokens,delta,uncompressed"` // engine-reported cached prompt tokens (null in the log = 0; unknown when runs.cache_reported is false)
	OutputTokens int64    `parquet:"output_tokens,delta,uncompressed"`
	Status       string   `parquet:"status,dict"` // ok | error | aborted
}

// Event kinds.
const (
	EventPark    = "park"
	EventResume  = "resume"
	EventTrigger = "trigger"
	EventRate    = "rate"
	EventControl = "control"
)

// Event is one row per gateway park/resume/trigger/rate/control record.
// Columns that do not apply to a kind are null.
type Event struct {
	Run     string  `parquet:"-"`
	TS      float64 `parquet:"t_s"`
	Kind    string  `parquet:"kind,dict"`        // park | resume | trigger | rate | control
	Session *string `parquet:"session,optional"` // park/resume
	Turn    *int32  `parquet:"turn,optional"`    // park/resume: the turn held back / re-admitted

	TriggerKind *string `parquet:"trigger_kind,optional"` // trigger: burst | flush | ...
	Phase       *string `parquet:"phase,optional"`        // trigger: start | end

	ArrivalRate *float64 `parquet:"arrival_rate,optional"` // rate: new base rate, sessions/s

	Controller   *string  `parquet:"controller,optional"`    // control: controller name
	DemandTokens *float64 `parquet:"demand_tokens,optional"` // control: resident demand D, tokens
	Limit        *float64 `parquet:"limit,optional"`         // control: current limit (sessions or tokens)
	Active       *int64   `parquet:"active,optional"`        // control: admitted sessions
	Parked       *int64   `parquet:"parked,optional"`        // control: parked sessions
	Waiting      *int64   `parquet:"waiting,optional"`       // control: new sessions waiting for admission

	Extra string `parquet:"extra"` // other keys of the record as JSON with sorted keys ("{}" if none)
}

// Engine sample sources.
const (
	SourceLog     = "log"     // a periodic line of the engine log
	SourceMetrics = "metrics" // one Prometheus scrape
)

// Engine sample line kinds.
const (
	LineStats   = "stats"   // vLLM periodic stats line
	LinePrefill = "prefill" // SGLang prefill batch line
	LineDecode  = "decode"  // SGLang decode batch line
	LineScrape  = "scrape"  // a metrics scrape
)

// EngineSample is one row per engine-side observation: a vLLM stats line, an
// SGLang prefill/decode line, or a Prometheus scrape. Fields a source does
// not carry are null.
type EngineSample struct {
	Run         string  `parquet:"-"`
	TS          float64 `parquet:"t_s"`
	Source      string  `parquet:"source,dict"`                     // log | metrics
	Kind        string  `parquet:"kind,dict"`                       // stats | prefill | decode | scrape
	EngineIndex int32   `parquet:"engine_index,delta,uncompressed"` // vLLM "Engine NNN" / DP rank; -1 for an "N Engines Aggregated" line
	Line        int64   `parquet:"line,delta,uncompressed"`         // 1-based line in the source file (a scrape: its first line)

	Running    *float64 `parquet:"running,optional"`     // requests running
	Waiting    *float64 `parquet:"waiting,optional"`     // requests waiting (queue)
	KVUsage    *float64 `parquet:"kv_usage,optional"`    // KV pool usage, fraction 0..1
	TokensUsed *int64   `parquet:"tokens_used,optional"` // SGLang #token / #full token: KV tokens in use

	PromptTput *float64 `parquet:"prompt_tput,optional"` // prompt tokens/s (vLLM: computed only since 2026-02)
	GenTput    *float64 `parquet:"gen_tput,optional"`    // generation tokens/s
	// LoggedHitRate is the engine's printed prefix-cache hit rate, fraction 0..1.
	// vLLM's covers the last 1000 requests, not the interval.
	LoggedHitRate *float64 `parquet:"logged_hit_rate,optional"`

	// Counter deltas since the previous scrape (metrics source); null on the
	// first scrape, after a counter reset, and where the metric is absent.
	IntervalS        *float64 `parquet:"interval_s,optional"`        // seconds since the previous scrape
	PrefixQueries    *float64 `parquet:"prefix_queries,optional"`    // prefix-cache query tokens
	PrefixHits       *float64 `parquet:"prefix_hits,optional"`       // prefix-cache hit tokens
	PromptTokens     *float64 `parquet:"prompt_tokens,optional"`     // prompt tokens
	GenerationTokens *float64 `parquet:"generation_tokens,optional"` // generation tokens
	Preemptions      *float64 `parquet:"preemptions,optional"`       // vLLM preemptions (log: in the interval); SGLang retractions
	CounterReset     bool     `parquet:"counter_reset"`              // a counter went down: the engine restarted

	NewSeqs      *int64 `parquet:"new_seqs,optional"`      // SGLang prefill #new-seq
	NewTokens    *int64 `parquet:"new_tokens,optional"`    // SGLang prefill #new-token (computed)
	CachedTokens *int64 `parquet:"cached_tokens,optional"` // SGLang prefill #cached-token (radix hits)
}

// RunData is one run's tables in memory, the unit the stats and report
// packages work on. Slices are sorted as in the dataset: sessions by
// (arrive_s, session), turns by (done_s, session, turn), events and engine
// samples by (t_s, source, line).
type RunData struct {
	Run      Run
	Sessions []Session
	Turns    []Turn
	Events   []Event
	Engine   []EngineSample
}
