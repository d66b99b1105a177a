package report

import (
	"github.com/outlast-dev/outlast/internal/jsonnum"
)

// SummaryVersion is the version of summary.json's layout, written as its
// schema_version. Bump it when a key changes meaning or disappears; adding
// keys does not need a bump.
const SummaryVersion = "3"

// Summary is summary.json: every number the report shows, its keys in the
// order of the fields (render.WriteJSON; a map's sorted). Floats are
// jsonnum.Float: rounded to jsonnum.SignificantDigits significant digits,
// so that the same dataset gives the same bytes on any CPU, and null,
// never NaN, when missing.
type Summary struct {
	SchemaVersion string `json:"schema_version"`
	Title         string `json:"title"`
	// Dataset is Options.Dataset, the dataset's label.
	Dataset     string              `json:"dataset"`
	Provenance  SummaryProvenance   `json:"provenance"`
	Runs        []SummaryRun        `json:"runs"`
	Experiments []SummaryExperiment `json:"experiments"`
	// CostFit is the c(L) fit used for 1/S outside the calibration
	// experiments (regime map, drain); nil when none could be fitted.
	CostFit   *SummaryFit          `json:"cost_fit"`
	RegimeMap []SummaryRegimePoint `json:"regime_map"`
	// Findings are the report's conclusions and the warnings that change
	// how its numbers read, in the order the page shows them.
	Findings []SummaryFinding `json:"findings"`
	// SLO is the objective goodput is judged by (report --slo).
	SLO SummarySLO `json:"slo"`
}

// SummarySLO is a service-level objective: the bound on each measure of a
// completed turn, seconds, null when the SLO does not bound it.
type SummarySLO struct {
	TTFTS jsonnum.Float `json:"ttft_s"`
	TPOTS jsonnum.Float `json:"tpot_s"`
	E2ES  jsonnum.Float `json:"e2e_s"`
	// Text states it as the page does: "TTFT ≤ 2s, TPOT ≤ 100ms".
	Text string `json:"text"`
}

// SummaryLatency is the latency of a run's completed turns
// (stats.RunIndex.Latency), in seconds: queue wait (sent − ready), TTFT
// (first token − sent), TPOT ((done − first token)/(output tokens − 1), turns
// of at least 2 output tokens) and end-to-end (done − sent), each's 50th,
// 90th and 99th percentile (linear interpolation, as DuckDB's
// quantile_cont); null where no completed turn has the times. In
// experiments[].latency, per arm, each percentile is the median of the
// arm's runs' values and the counts and goodput are over the arm's turns.
type SummaryLatency struct {
	TTFTP50S  jsonnum.Float `json:"ttft_p50_s"`
	TTFTP90S  jsonnum.Float `json:"ttft_p90_s"`
	TTFTP99S  jsonnum.Float `json:"ttft_p99_s"`
	TPOTP50S  jsonnum.Float `json:"tpot_p50_s"`
	TPOTP90S  jsonnum.Float `json:"tpot_p90_s"`
	TPOTP99S  jsonnum.Float `json:"tpot_p99_s"`
	E2EP50S   jsonnum.Float `json:"e2e_p50_s"`
	E2EP90S   jsonnum.Float `json:"e2e_p90_s"`
	E2EP99S   jsonnum.Float `json:"e2e_p99_s"`
	QueueP50S jsonnum.Float `json:"queue_p50_s"`
	QueueP90S jsonnum.Float `json:"queue_p90_s"`
	QueueP99S jsonnum.Float `json:"queue_p99_s"`
	// EndTTFTP90S is the TTFT p90 of the completed turns sent in the last
	// 10 minutes (the end window of the verdicts).
	EndTTFTP90S jsonnum.Float `json:"end_ttft_p90_s"`
	// Goodput is the share of the completed turns the SLO could judge
	// (every time its bounds need recorded) that met it; GoodputTurns
	// counts those turns.
	Goodput      jsonnum.Float `json:"goodput"`
	GoodputTurns int           `json:"goodput_turns"`
	// TurnsCompleted (status ok), TurnsAborted and TurnsErrored count the
	// turns by status; only completed ones are measured. TurnsFirstToken
	// counts the completed turns with a sent and a first-token time.
	TurnsCompleted  int `json:"turns_completed"`
	TurnsAborted    int `json:"turns_aborted"`
	TurnsErrored    int `json:"turns_errored"`
	TurnsFirstToken int `json:"turns_first_token"`
}

// SummaryArmLatency is the latency of one arm of an experiment
// (SummaryLatency: medians of its runs' percentiles, its turns' goodput).
type SummaryArmLatency struct {
	Arm  string `json:"arm"`
	Runs int    `json:"runs"`
	SummaryLatency
}

// SummaryFinding is one conclusion or warning of the report, computed
// from the numbers it quotes.
type SummaryFinding struct {
	// Experiment and Design (and Engine, where the experiment has runs of
	// several engines or engine versions) name the experiment section it
	// is about.
	Experiment string `json:"experiment"`
	Design     string `json:"design"`
	Engine     string `json:"engine,omitempty"`
	// EngineName and EngineVersion are Engine's parts, as in
	// SummaryExperiment.
	EngineName    string `json:"engine_name,omitempty"`
	EngineVersion string `json:"engine_version,omitempty"`
	// Kind says what it is: the design's result (sign-test,
	// recovery, recovery-test, cost-fit, drain-bracket, mix-shift,
	// outcomes, onsets), the verdict counts (verdicts), or a warning
	// (rejected-lines, format-drift, cache-unreported, cut-short,
	// engine-disagrees).
	Kind string `json:"kind"`
	// Warning marks a statement that changes how the numbers read.
	Warning bool `json:"warning"`
	// Text is the sentence the page and the command print, beginning with
	// the experiment's name (and its design, when the experiment has runs
	// of several designs).
	Text string `json:"text"`
	// Runs are the runs it is about ([] when it is about all of them).
	Runs []string `json:"runs"`
	// Numbers are the numbers the sentence quotes, by name (null when
	// missing).
	Numbers map[string]jsonnum.Float `json:"numbers"`
}

// SummaryAgreement compares the engine's hit ratio with the gateway's over
// a run's 5-minute analysis windows (stats.HitAgreement).
type SummaryAgreement struct {
	// Windows is the number of windows where both ratios exist; Differing
	// how many differ by more than 0.1.
	Windows   int `json:"windows"`
	Differing int `json:"differing"`
	// MeanDiff is the mean of engine − gateway, MaxAbsDiff the largest
	// |engine − gateway|.
	MeanDiff   jsonnum.Float `json:"mean_diff"`
	MaxAbsDiff jsonnum.Float `json:"max_abs_diff"`
	// Disagree: at least 3 windows, and a quarter of them, differ.
	Disagree bool `json:"disagree"`
}

// SummaryProvenance says what the report was computed from.
type SummaryProvenance struct {
	// DatasetSchemaVersions and OutlastVersions are the distinct versions
	// recorded in the runs table, sorted.
	DatasetSchemaVersions []string `json:"dataset_schema_versions"`
	OutlastVersions       []string `json:"outlast_versions"`
	// ReportVersion is the version of outlast that wrote the report.
	ReportVersion string `json:"report_version"`
	// InputsSHA256 is a digest of every run's name and input hashes, in
	// run order: two reports with the same value read the same inputs.
	InputsSHA256 string `json:"inputs_sha256"`
	// Date is from SOURCE_DATE_EPOCH, "" when unset.
	Date string `json:"date"`
}

// SummaryRun is one run's overview row.
type SummaryRun struct {
	Run           string        `json:"run"`
	Experiment    string        `json:"experiment"`
	Design        string        `json:"design"`
	Arm           string        `json:"arm"`
	Seed          *int64        `json:"seed"`
	Engine        string        `json:"engine"`
	EngineVersion string        `json:"engine_version"`
	Model         string        `json:"model"`
	PrefixCaching bool          `json:"prefix_caching"`
	KVPoolTokens  jsonnum.Float `json:"kv_pool_tokens"`
	ArrivalRate   jsonnum.Float `json:"arrival_rate"`
	TriggerKind   string        `json:"trigger_kind"`
	TriggerStartS jsonnum.Float `json:"trigger_start_s"`
	TriggerEndS   jsonnum.Float `json:"trigger_end_s"`
	ControlKind   string        `json:"control_kind"`
	ControlStartS jsonnum.Float `json:"control_start_s"`
	// Verdict is never-degraded, recovered-alone, recovered-under-control,
	// persistent or partial for a judged run (stats.Verdict defines each);
	// unknown, no-turns, uncached (prefix caching off) or cache-unreported
	// (runs.cache_reported false, or, in a dataset written before that
	// column, no turn carried a cached-token count while the engine does
	// not confirm zero hits: its end hit ratio, degradation and recovery
	// are then null) for a run not judged.
	Verdict        string        `json:"verdict"`
	EndHitRatio    jsonnum.Float `json:"end_hit_ratio"`
	EndSessions    jsonnum.Float `json:"end_sessions"`
	FirstDegradedS jsonnum.Float `json:"first_degraded_s"`
	// DegradedFromS is when a judged run's degradation began (its first
	// degraded window after the trigger, or the window that found it
	// collapsed when control began), null when it never degraded;
	// RecoveredAtS where it recovered and DegradedMin the minutes between,
	// null unless its verdict is recovered-alone or
	// recovered-under-control; RecoveryReason says why a degraded run did
	// not recover ("" otherwise).
	DegradedFromS  jsonnum.Float `json:"degraded_from_s"`
	RecoveredAtS   jsonnum.Float `json:"recovered_at_s"`
	DegradedMin    jsonnum.Float `json:"degraded_min"`
	RecoveryReason string        `json:"recovery_reason"`
	// RecoveryMin is set for recovered runs (0 when recovered within the
	// first window); RecoveryStatus and RecoveryLabel (the paper's form:
	// "<5", "7", "not recovered", "insufficient follow-up") are "" for runs
	// not collapsed when control began.
	RecoveryMin     jsonnum.Float `json:"recovery_min"`
	RecoveryStatus  string        `json:"recovery_status"`
	RecoveryLabel   string        `json:"recovery_label"`
	MeanContext     jsonnum.Float `json:"mean_context_tokens"`
	NStar           jsonnum.Float `json:"n_star"`
	PeakDemandRatio jsonnum.Float `json:"peak_demand_ratio"`
	// CohortDone is the completion of the sessions arriving in the 20
	// minutes after control began (null without control).
	CohortDone jsonnum.Float `json:"cohort_done"`
	Warnings   []string      `json:"warnings"`
	// OnsetS is the start of the first degraded 5-minute analysis window
	// anywhere in the run (from t = 0, the trigger included); null if none,
	// for runs with prefix caching off (every window reads as degraded) and
	// for runs without cached-token counts (no window has a hit ratio).
	// FirstDegradedS counts only from the trigger's end.
	OnsetS jsonnum.Float `json:"onset_s"`
	// CacheReported is whether the gateway saw cached-token counts:
	// runs.cache_reported, else (a dataset written before that column)
	// whether some turn carried one; null without turns to tell from.
	CacheReported *bool `json:"cache_reported"`
	// EngineHitSource says where the engine's hit ratio comes from:
	// "counters" (prefix-cache counter deltas of the metrics scrapes),
	// "prefill" (SGLang prefill lines' cached and new tokens), "log" (the
	// rate the engine log printed, over the engine's own horizon), or ""
	// without one. EngineEndHitRatio is the engine's hit ratio over the
	// same last 10 minutes as EndHitRatio; null without engine data.
	EngineHitSource   string        `json:"engine_hit_source"`
	EngineEndHitRatio jsonnum.Float `json:"engine_end_hit_ratio"`
	// KVUsagePeak is the largest KV-pool usage fraction of any engine
	// sample of the run; null when the engine reports none.
	KVUsagePeak jsonnum.Float `json:"kv_usage_peak"`
	// KVUsageEndMean is the mean KV-pool usage fraction of the engine's
	// samples over the last 10 minutes: a single sample reaches 1 in
	// healthy runs too, the mean over the end separates a full pool from
	// a busy one (the report quotes it, not the peak); null without
	// samples.
	KVUsageEndMean jsonnum.Float `json:"kv_usage_end_mean"`
	// Mechanism checks the verdict against the mechanism of the degraded
	// regime (§4).
	Mechanism SummaryMechanism `json:"mechanism"`
	// Preemptions is the number of preemptions (SGLang: retractions) the
	// engine reported over the run, from the metrics counters when the run
	// has them, else from the log; null when the engine reports none.
	Preemptions jsonnum.Float `json:"preemptions"`
	// EngineAgreement compares the engine's and the gateway's hit ratio
	// per 5-minute window; null where the two do not both exist.
	EngineAgreement *SummaryAgreement `json:"engine_agreement"`
	// GatewayEndS is the time of the run's last gateway record; CutShort
	// is true when it falls more than 5 minutes before the planned end.
	GatewayEndS jsonnum.Float `json:"gateway_end_s"`
	CutShort    bool          `json:"cut_short"`
	// SummaryLatency is the latency of the run's completed turns, its
	// keys inline (ttft_p90_s, goodput, ...).
	SummaryLatency
	// Inputs are the sha256 of the run's input files ("" when absent).
	ManifestSHA256  string `json:"manifest_sha256"`
	GatewaySHA256   string `json:"gateway_sha256"`
	EngineLogSHA256 string `json:"engine_log_sha256"`
	MetricsSHA256   string `json:"metrics_sha256"`
}

// SummaryExperiment is one experiment: runs sharing runs.experiment. The
// design decides which of the optional fields are set.
type SummaryExperiment struct {
	Experiment string `json:"experiment"`
	Design     string `json:"design"`
	// Engine names the runs' engine and its version ("vllm 0.11.0") when
	// the experiment has runs of several engines or engine versions, a
	// section each; absent otherwise.
	Engine string `json:"engine,omitempty"`
	// EngineName and EngineVersion are Engine's parts, set with it, for
	// a script that selects by engine; EngineVersion is absent for the
	// section of runs whose version is unknown.
	EngineName    string   `json:"engine_name,omitempty"`
	EngineVersion string   `json:"engine_version,omitempty"`
	Runs          []string `json:"runs"`
	// FeaturedSeed is the seed of the experiment's single-seed figures.
	FeaturedSeed *int64 `json:"featured_seed,omitempty"`

	// paired
	Pairs    []SummaryPair `json:"pairs,omitempty"`
	SignTest *SummarySign  `json:"sign_test,omitempty"`

	// recovery
	Arms         []SummaryArm      `json:"arms,omitempty"`
	ArmsMatched  []SummaryArm      `json:"arms_matched,omitempty"`
	MatchedSeeds []int64           `json:"matched_seeds,omitempty"`
	Pairwise     []SummaryPairwise `json:"pairwise,omitempty"`

	// calibration
	Fit    *SummaryFit    `json:"fit,omitempty"`
	Shapes []SummaryShape `json:"shapes,omitempty"`

	// drain
	Slopes  []SummarySlope  `json:"slopes,omitempty"`
	Bracket *SummaryBracket `json:"bracket,omitempty"`

	// mix-shift
	Points []SummaryWaitPoint `json:"points,omitempty"`

	// prevention, flush
	Counts []SummaryCount `json:"counts,omitempty"`

	// Latency is each arm's latency, for every design.
	Latency []SummaryArmLatency `json:"latency,omitempty"`

	Warnings []string `json:"warnings,omitempty"`
}
