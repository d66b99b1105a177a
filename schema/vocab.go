package schema

// The shared vocabulary: the names runs.yaml, the gateway log, the
// simulator, the statistics and the report all use for designs, arms,
// triggers, controls and session origins. They are declared here once, so
// that a name added for one (a new design, a new controller) is known to
// all.

// Designs as written in runs.design (manifest design:).
const (
	DesignPaired      = "paired"
	DesignRecovery    = "recovery"
	DesignCalibration = "calibration"
	DesignDrain       = "drain"
	DesignMixShift    = "mix-shift"
	DesignPrevention  = "prevention"
	DesignObserve     = "observe"
	DesignNoCache     = "nocache"
	DesignFlush       = "flush"
	// DesignReplay marks the runs outlast replay simulates from an observed
	// run: the run as it was and its counterfactual variants, one arm each.
	DesignReplay = "replay"
)

// Designs lists every design a manifest may name.
var Designs = []string{DesignPaired, DesignRecovery, DesignCalibration, DesignDrain, DesignMixShift,
	DesignPrevention, DesignObserve, DesignNoCache, DesignFlush, DesignReplay}

// Engine names (manifest engine.name).
const (
	EngineVLLM   = "vllm"
	EngineSGLang = "sglang"
	EngineOther  = "other"
)

// EngineNames lists the engines a manifest may name.
var EngineNames = []string{EngineVLLM, EngineSGLang, EngineOther}

// Trigger kinds (runs.trigger_kind, events.trigger_kind).
const (
	TriggerBurst      = "burst"
	TriggerFlush      = "flush"
	TriggerRateChange = "rate-change"
	TriggerMixShift   = "mix-shift"
	TriggerNone       = "none"
)

// TriggerKinds lists the trigger kinds a manifest may name.
var TriggerKinds = []string{TriggerBurst, TriggerFlush, TriggerRateChange, TriggerMixShift, TriggerNone}

// Control kinds (runs.control_kind): the gateway controllers of the
// paper's §5.
const (
	ControlNone         = "none"
	ControlAdmissionCap = "admission-cap"
	ControlSessionCap   = "session-cap"
	ControlAdaptiveCap  = "adaptive-cap"
	ControlAIMD         = "aimd"
	ControlBudgeter     = "budgeter"
)

// ControlKinds lists the control kinds a manifest may name.
var ControlKinds = []string{ControlNone, ControlAdmissionCap, ControlSessionCap, ControlAdaptiveCap, ControlAIMD, ControlBudgeter}

// Arm names of a paired experiment: the burst arm and its twin without the
// burst. ArmTwinAliases are other names a twin arm goes by in manifests
// written by hand.
const (
	ArmBurst   = "burst"
	ArmNoBurst = "no-burst"
)

// ArmNone is the arm without a controller: an arm of a control design
// (recovery, prevention) is named after its controller.
const ArmNone = ControlNone

// ArmTwinAliases lists the names of a paired experiment's twin arm.
var ArmTwinAliases = []string{ArmNoBurst, "twin", "noburst"}

// Session origins (sessions.origin, turns.origin).
const (
	OriginBase  = "base"
	OriginBurst = "burst"
)

// Turn statuses (turns.status).
const (
	TurnOK      = "ok"
	TurnError   = "error"
	TurnAborted = "aborted"
)

// Session statuses (sessions.status).
const (
	SessionDone    = "done"
	SessionAborted = "aborted"
	SessionOpen    = "open"
)

// Metrics formats (runs.metrics_format, manifest files.metrics_format): the
// forms of Prometheus data outlast reads (docs/run-format.md, metrics).
const (
	MetricsScrapes        = "scrapes"         // /metrics dumps, each after a "# scrape <unix seconds>" line
	MetricsPrometheusText = "prometheus-text" // text format, samples with millisecond timestamps (/federate)
	MetricsOpenMetrics    = "openmetrics"     // OpenMetrics, samples with timestamps in seconds (promtool tsdb dump-openmetrics)
	MetricsQueryRange     = "query-range"     // JSON of the HTTP API's query_range, a file or a directory of them
)

// MetricsFormats lists the metrics formats a manifest may name.
var MetricsFormats = []string{MetricsScrapes, MetricsPrometheusText, MetricsOpenMetrics, MetricsQueryRange}

// Gateway log formats (runs.gateway_format, manifest files.gateway_format):
// outlast's own log and the load generators' per-request exports
// (docs/run-format.md). The formats ingest reads, and how, are the rows of
// ingest/inputs' table, each named by one of these.
const (
	GatewayOutlast       = "outlast"
	GatewayAIPerf        = "aiperf"
	GatewayGuideLLM      = "guidellm"
	GatewayInferencePerf = "inference-perf"
)

// DatasetLockName is the lock file at the root of every dataset
// (dataset.LockName). A directory holding it is a dataset, not a run or a
// campaign: ingest does not search it for run directories, however many
// partitions it has.
const DatasetLockName = ".outlast.lock"
