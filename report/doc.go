// Package report builds the report of an outlast dataset: the paper's
// tables and figures for each experiment, as a document (package
// report/document) and as numbers (Summary, written as summary.json).
//
// BuildFrom turns the runs a Source gives into findings, an overview, a
// section per experiment chosen by its design (paired, recovery,
// calibration, drain, mix-shift, prevention, flush, observe), a regime map
// and provenance, with every number also in the Summary; Build does the
// same for runs in memory. Write puts index.html, summary.json and tables/
// in a directory through package report/render, and WriteFindings prints
// the findings for a terminal.
//
// Building has two steps. The per-run step (run.go) measures one run from
// that run alone, as it is read, on every core: its overview row, the
// engine's side of it, its per-minute series for figures (series.go) and
// the few windows the dataset-wide parts need (calibration and all-miss
// windows, a drain run's remaining-cold-work terms); the run's tables are
// then dropped, so a report of a dataset read through a Source holds a few
// runs' tables at a time however many runs the dataset has. The aggregation
// (build.go and the sections_*.go files, one per design) groups the
// measured runs into experiments, fits the cold-turn cost c(L) over the
// dataset and lays out the sections. Printing a value for a reader
// (p-values, recovery times, trigger and control labels) is done here, in
// format.go: the stats package returns plain numbers.
//
// Findings (findings.go) open the page: per experiment, the design's result
// in a sentence (added by its section), the verdict counts, and the
// warnings that change how the numbers read: lines rejected in lenient
// mode, an engine log or metrics file that gave no sample (format drift),
// cached tokens never reported (runs.cache_reported false: no hit-ratio
// verdict, stats.VerdictCacheUnreported; in a dataset written before that
// column, a run none of whose turns carried cached tokens, unless the
// engine's own count confirms zero hits),
// runs cut short (stats.RunIndex.CutShort), and engine and gateway hit
// ratios that disagree (stats.HitAgreement), with the likely cause.
//
// The engine's view (engineview.go) sets what the engine logged or
// exported (its own hit ratio, from counter deltas, SGLang prefill lines or
// the rate its log printed, see stats.RunIndex.EngineHitRatios; requests
// running and waiting; KV cache usage; preemptions) beside the gateway's
// hit ratio and sessions in the system, for each experiment's featured runs
// and, for observed runs, per run with the verdict and the onset of
// degradation (stats.OnsetS).
//
// Latency, what users feel (latency.go, sections_latency.go): each run's
// exact percentiles of TTFT, TPOT, end-to-end and queue wait over its
// completed turns, its end TTFT and goodput under Options.SLO
// (stats.RunIndex.Latency), kept with a run's percentiles 0–100 of TTFT
// and end-to-end latency for the arms' distributions; per experiment a
// table per arm, TTFT per minute beside the hit ratio, the distributions
// and goodput, a finding (paired, recovery, observe) and a warning for
// gateway logs without first-token times.
//
// At campaign size (campaign.go) small multiples are shared among the
// experiments, the most telling runs drawn first and the others named in a
// note; every run keeps its row in the overview, which the page sorts and
// filters in place, and in tables/.
//
// summary.json is the report's JSON model: the Summary types, their keys
// in the order of their fields (render.WriteJSON), floats as jsonnum.Float
// (rounded to 12 significant digits, so that a dataset gives the same
// bytes on any CPU; null when missing). SummaryVersion changes when a key changes meaning or
// disappears. Besides the paper's numbers it holds the findings
// (SummaryFinding: experiment, design, kind, warning, text, runs and the
// numbers quoted) and, per run, the engine's side (engine_hit_source,
// engine_end_hit_ratio over the same last 10 minutes as end_hit_ratio,
// kv_usage_peak, preemptions), cache_reported, onset_s, engine_agreement,
// gateway_end_s and cut_short; the field comments of SummaryRun and
// docs/report.md give each one's exact meaning.
package report
