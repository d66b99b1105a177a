// Package check is outlast's CI gate: a small set of rules, from a YAML
// file or flags, each printed with its verdict and the numbers behind it.
//
// A rule either checks runs or compares datasets:
//
//	rules:
//	  - name: prevention never collapses
//	    where: {design: prevention}
//	    require: {persistent_runs: 0}
//	  - name: healthy arms keep the cache
//	    where: {arm: no-burst}
//	    require: {min_end_hit_ratio: 0.9}
//	  - name: B not worse than A
//	    compare: {baseline: A, candidate: B}
//	    require: {collapse_rate_not_worse: true, alpha: 0.05}
//
// where selects runs by runs-table column (design, arm, engine_version,
// kv_pool_tokens, label.KEY, ...; numbers compare as numbers); a run's
// verdict is an outcome, not a column, and where: {verdict: ...} is
// refused with a message naming the verdicts (stats.Verdict). Run
// requirements hold in every dataset (or in the one named by dataset:):
//
//	persistent_runs: N      at most N selected runs persistently degraded (caching-off runs, uncached, not counted)
//	min_end_hit_ratio: X    every selected run's end hit ratio (last 10 min) ≥ X
//	max_end_sessions: X     every selected run's end sessions in the system ≤ X
//	max_recovery_min: X     every run collapsed when control began recovered within X min
//	min_runs: N             at least N runs selected (default 1: a rule that
//	                        selects nothing fails rather than passing vacuously)
//	max_ttft_p90_s: S       every selected run's TTFT p90 ≤ S seconds
//	max_end_ttft_p90_s: S   every selected run's TTFT p90 over the turns sent in
//	                        its last 10 minutes ≤ S (a CI gate on a new engine)
//	max_tpot_p90_s: S       every selected run's TPOT p90 ≤ S
//	max_e2e_p90_s: S        every selected run's end-to-end p90 ≤ S
//	min_goodput: X          every selected run's goodput (the share of completed
//	                        turns with TTFT ≤ 2 s and TPOT ≤ 100 ms) ≥ X
//
// The latency measures are stats.RunIndex.Latency's, over a run's
// completed turns. With flags, a bound may be written as one:
// --require 'end_ttft_p90_s<=5' is max_end_ttft_p90_s=5, and
// 'goodput>=0.9' is min_goodput=0.9.
//
// A run without the value (no end hit ratio; no first-token time, or no
// turn sent in the last 10 minutes, for latency) fails the requirement, and
// so does a rule with nothing to judge: persistent_runs over runs none of
// which could be judged (caching off, persistence unknown), or
// max_recovery_min over runs none of which had a control whose start
// could be judged (after t=0 and before the run's end, caching on, turns
// in the 5 minutes before it).
// Comparison requirements compare a candidate with a baseline, as
// "outlast compare" does (matched configurations, paired seeds, Holm across
// configurations), and fail where the candidate is significantly worse at
// alpha (default 0.05), where too few runs were compared for any outcome
// to be significant, whichever way the candidate went (the smallest p the
// test could give with them exceeds alpha, or after Holm the table's
// smallest times its number of tests does: six seed pairs cannot reach
// 0.01, five cannot reach 0.05; a row that came out significant is
// tested whatever the bound; a gate that cannot fail would pass
// anything, and no data is no pass), or where no configuration could be
// compared:
//
//	collapse_rate_not_worse: true   collapse rate not significantly higher
//	hit_ratio_not_worse: true       uncollapsed runs' hit ratio not significantly lower
//	throughput_not_worse: true      uncollapsed runs' turn throughput not significantly lower
//	ttft_p90_not_worse: true        runs' TTFT p90 not significantly higher
//	end_ttft_p90_not_worse: true    runs' TTFT p90 over the last 10 minutes not significantly higher
//	tpot_p90_not_worse: true        runs' TPOT p90 not significantly higher
//	e2e_p90_not_worse: true         runs' end-to-end p90 not significantly higher
//	goodput_not_worse: true         runs' goodput not significantly lower
//
// Without compare:, the first dataset is the baseline of every other.
// Bad rules files are *textpos.ParseError values at the offending node,
// "file:line:column: reason", as a run's manifest errors are: YAML syntax
// (placed at the fault: internal/yamlpos), unknown keys (with the key
// most likely meant), duplicate keys, unknown columns and ill-typed values
// (a requirement's number or true/false must be a YAML number or boolean:
// a quoted "0.5" is refused, as in run.yaml). Evaluate returns a Report
// whose verdict (every rule holds or not) is what the command's exit
// status says.
//
// A Report is written as text (WriteText: each rule, then its details
// marked ok or FAIL), as JSON (WriteJSON: pass, passed, failed and every
// verdict with its Details: the measure checked, the value found, the
// limit, a comparison's p-value and the runs behind the value) or as
// Markdown for a CI job's summary page (WriteMarkdown: a table of the
// rules, then each rule's details).
package check
