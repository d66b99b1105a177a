// Package compare answers "did the collapse threshold move?" between
// datasets (engine releases, pool sizes, any runs column) the way benchstat
// answers for Go benchmarks: matched configurations, a test per measure,
// the baseline column, then each other column's change or "~" with
// (p=… n=…), warnings as footnotes.
//
// The layers follow benchstat's: config.go, column.go and compare.go group
// runs (benchproc: the configuration key, SplitBy, seed pairing, the rows
// of a table); measure.go, runtable.go, delta.go, fit.go and finish.go
// summarize and test them (benchmath: medians, intervals, Fisher, McNemar,
// Mann-Whitney, sign test, z-test and Holm all come from package stats);
// result.go is the table model; text.go and encode.go (CSV, JSON) render it, and
// subpackage page renders it as an HTML report. Subpackage check is
// the CI gate built on it.
//
// # Matching
//
// Each column is a labelled set of runs: one dataset per column, or one
// dataset split by a runs-table column (SplitBy: engine_version,
// kv_pool_tokens, label.gpu, ...). Runs are matched across columns by their
// configuration, the key fields design, arm, lambda (arrival_rate), pool
// (kv_pool_tokens), caching (prefix_caching), trigger (kind, times, rates),
// control (kind, start, parameters) and workload (turns, think time, token
// sizes). The engine's own columns are never in the key. The field of the
// column the runs were split by leaves the key, as do fields named in
// Options.Ignore ("--ignore pool" compares a release that shrank the pool
// with its predecessor). A configuration missing from a column shows as an
// empty cell with a footnote; runs in one column that differ in a column
// outside the key (engine_version, engine_model, engine_name, experiment,
// or an ignored field) give a warning, since the grouping hides that
// difference.
//
// # Pairing
//
// Within one configuration (so one arm), the runs of the baseline and of
// another column are paired by seed when every run of both cells has a
// seed, no seed repeats within a cell, and at least one seed is in both.
// Paired tests use the shared seeds only; runs without a partner are left
// out with a footnote. Otherwise the two cells are independent samples.
// Paired runs share their base arrival stream, which is what makes a
// paired test stronger.
//
// # Measures and tests
//
//   - collapse rate: k/n runs persistently degraded (§3), of the runs with
//     prefix caching on: a run without a cache has every turn cold and no
//     second regime to collapse into (the report's verdict: uncached), so
//     it is left out, with a footnote. Fisher's exact test; exact McNemar
//     on seed pairs. The change is in percentage points.
//   - hit ratio and turn throughput of runs not collapsed over the last 10
//     minutes: runs neither persistently degraded nor still collapsed after
//     control (partially degraded ones included), so these measure the
//     cache apart from collapse. The median
//     with its order-statistic interval; Mann-Whitney U, or the sign test
//     on seed pairs (the change is then the median paired difference).
//   - sessions in the system over the last 5 minutes: likewise, all runs.
//   - recovery time after control began, for runs collapsed then (§6), per
//     controller (the control is in the key): likewise; a run that did not
//     recover ranks above every time and prints as n.r., and one that
//     recovered within the first 5-minute window (0 minutes) prints "<5",
//     as in the report.
//   - latency, what users feel (stats.RunIndex.Latency, every run with
//     the value, collapsed ones included): the p90 of each run's completed
//     turns' time to first token, of the TTFT of the turns sent in its
//     last 10 minutes, of its time per output token and of its end-to-end
//     latency, and its goodput (the share of completed turns with TTFT ≤
//     2 s and TPOT ≤ 100 ms, stats.DefaultSLO): the median over runs,
//     tested as above. Lower latency and higher goodput are better: a
//     significant change the other way is a regression, flagged "worse"
//     (Delta.Worse).
//   - cold-turn cost slope b and drain bound 1/S (§4): one fit per column
//     over its caching-off runs; the difference with a normal interval from
//     the fits' standard errors (1/S by the delta method) and a z-test.
//
// p-values are two-sided and Holm-adjusted across the rows of each table,
// per column (Options.NoHolm reports raw ones); a change is shown when the
// adjusted p is at most α, else "~". When the smallest p a test can give
// with the runs at hand exceeds α, a footnote says that no difference
// could have been detected; for a paired test only the pairs that do not
// tie count (exact McNemar and the sign test are binomial tests of them:
// with u untied pairs the smallest p is 2·2⁻ᵘ), and when every pair ties
// the seeds agree and there is no such footnote. A median's interval needs 6 runs at 95%; with
// fewer it prints "± n/a (one run)" (or "(3 runs)"); one wider than ±50%
// of the median prints its ends, "7.7 [5.9, 22.0]".
//
// # Examples
//
// The examples run as tests (cmd/outlast/doc_test.go) against simulated
// datasets: v1, the paper's paired design (λ = 0.035, 8 seeds, 60 minutes)
// on a 400,000-token pool; v2, the same seeds on a pool of 200,000; v3, the
// v1 engine on seeds 601–608; and both, v2 and v3 in one dataset.
//
// Halving the pool makes the twins collapse too:
//
//	$ outlast compare --ignore pool --measures collapse_rate,end_sessions v1 v2
//	design: paired
//	lambda: 0.035
//	caching: on
//	control: none
//	workload: 25×(2048+4096, +300+1024) Z=5s {"shape":"synthetic"}
//	not matched on: pool
//
//	collapse rate: share of runs persistently degraded
//	             │    v1     │                   v2                   │
//	             │ collapsed │ collapsed            vs base           │
//	arm=burst            5/8        8/8¹        ~ (p=0.250 n=8 pairs)
//	arm=no-burst         0/8         8/8  +100 pp (p=0.016 n=8 pairs)
//	test: exact McNemar on seed pairs; ~: not significant at α = 0.05; p Holm-adjusted across 2 rows
//	¹ too few runs to detect a difference at α = 0.05: 5 of 8 pairs tie, and with 3 untied the smallest possible p is 0.250
//
//	sessions in the system, last 5 minutes
//	             │        v1         │                    v2                     │
//	             │     sessions      │  sessions              vs base            │
//	arm=burst      85.5 [6.9, 109.8]   106.0 ± 27%   +21.98% (p=0.016 n=8 pairs)
//	arm=no-burst     7.7 [6.3, 21.8]    76.4 ± 31%  +846.73% (p=0.016 n=8 pairs)
//	test: sign test on seed pairs; ~: not significant at α = 0.05; p Holm-adjusted across 2 rows
//
// The same engine on other seeds: nothing to report.
//
//	$ outlast compare --ignore pool --measures collapse_rate,end_hit_ratio v1 v3
//	design: paired
//	lambda: 0.035
//	caching: on
//	control: none
//	workload: 25×(2048+4096, +300+1024) Z=5s {"shape":"synthetic"}
//	not matched on: pool
//
//	collapse rate: share of runs persistently degraded
//	             │    v1     │             v3             │
//	             │ collapsed │ collapsed      vs base     │
//	arm=burst            5/8         7/8  ~ (p=1.000 n=8)
//	arm=no-burst         0/8         0/8  ~ (p=1.000 n=8)
//	test: Fisher's exact test; ~: not significant at α = 0.05; p Holm-adjusted across 2 rows
//
//	hit ratio of runs not collapsed, last 10 minutes
//	             │          v1          │                    v3                     │
//	             │      hit ratio       │       hit ratio              vs base      │
//	arm=burst      0.945 ± n/a (3 runs)   0.949 ± n/a (one run)¹  ~ (p=1.000 n=3+1)
//	arm=no-burst            0.946 ± 11%               0.947 ± 0%    ~ (p=1.000 n=8)
//	test: Mann-Whitney U; ~: not significant at α = 0.05; p Holm-adjusted across 2 rows
//	¹ too few runs to detect a difference at α = 0.05: the smallest possible p is 0.500
//
// One dataset split by a runs column; seeds differ, so the tests are
// independent:
//
//	$ outlast compare --by kv_pool_tokens --measures collapse_rate both
//	design: paired
//	lambda: 0.035
//	caching: on
//	control: none
//	workload: 25×(2048+4096, +300+1024) Z=5s {"shape":"synthetic"}
//	not matched on: pool
//
//	collapse rate: share of runs persistently degraded
//	             │  200000   │              400000              │
//	             │ collapsed │ collapsed         vs base        │
//	arm=burst            8/8         7/8        ~ (p=1.000 n=8)
//	arm=no-burst         8/8         0/8  -100 pp (p=0.000 n=8)
//	test: Fisher's exact test; ~: not significant at α = 0.05; p Holm-adjusted across 2 rows
package compare
