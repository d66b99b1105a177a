// Package stats computes every number of an outlast report from the
// schema's tables, following the paper "Bursts That Outlast Themselves"
// (§ numbers below are the paper's). It is pure: no I/O, no clock, no
// randomness; results do not depend on the order of input rows, and sums run
// in a fixed order. Missing values are explicit: NaN for a measure that has
// no data (a window in which no turn completed has a NaN hit ratio, never
// 0), ok-bools or status fields where a yes/no cannot be given, and
// Warnings on summaries. Results are plain data, without JSON tags or
// display strings: the report's summary types are the JSON model and print
// them.
//
// Build a RunIndex once per run (NewRunIndex); every measure is then a
// binary search or a short scan. C is Run.KVPoolTokens: when it is null,
// every measure relative to C (D/C, N*, the healthy-side ratio) is NaN and
// the run's summary carries a warning; D itself is still computed.
//
// Windows (§3, run-format.md):
//   - AlignedWindows, AnalysisWindows: non-overlapping 5-minute windows
//     aligned to Run.AlignS in both directions, partial windows at the ends
//     dropped; MinuteWindows for figures; SlidingWindows (length, step).
//   - TurnSeries.Window: over turns completing in [a, b), the token-weighted
//     hit ratio Σc_i/Σp_i (§3), turn throughput, recomputed prompt tokens/s
//     Σ(p_i − c_i)/len (Figure 4), the share of turns with less than half
//     their prompt cached (§4).
//   - RunIndex.Population, SessionsInSystem: sessions in the system, arrived
//     and not finished (§3), as a step function and its time average.
//   - RunIndex.Demand, DemandRatio: resident demand D(t) = Σ over sessions
//     in the system of their latest context + output, and D/C (§4, §5,
//     Figure 4).
//   - RunIndex.EngineWindows: the engine's running, waiting, KV usage, hit
//     ratio from counter deltas (or SGLang prefill lines) and preemptions per
//     window (§4), to set beside the gateway's view; a counter delta covers
//     the interval before its scrape and counts in (start, end], the scrape
//     at the run's end included. RunIndex.Series puts both in one series
//     (Figures 1, 4, 5); RunIndex.EngineSummary the run's engine figures
//     (KV usage peak and its mean over the last 10 minutes).
//
// Regime (§3, §4, §6):
//   - Degraded (hit < 0.5), RunIndex.Regime (persistence, first degraded
//     window, end hit ratio), RunIndex.CollapsedAt, RunIndex.RecoveryFrom
//     and RunIndex.Recovery (the recovery rule: recovered, not recovered
//     with the reason, insufficient follow-up), NStar (N* = C/L̄).
//   - RunIndex.Summarize: the overview row, with the run's Verdict:
//     never-degraded, recovered-alone (with how long it was degraded),
//     recovered-under-control, persistent, partial, or, not judged,
//     unknown, no-turns, uncached, cache-unreported. Verdict's doc defines
//     each and the recovery rule with its thresholds; they are defined
//     there only. Analyze gathers a run's whole analysis.
//   - NewMechanism: beside a verdict, the regime's mechanism (§4): end D/C
//     against 1 and end sessions against twice the healthy twin's (else
//     the run's own before its trigger).
//
// Paper rows: NewTable2 (§3, Table 2, with the sign test over discordant
// pairs), NewTable3 (§6, Table 3, all collapsed runs and the seeds collapsed
// in every arm), PairedRecovery (the paired 2×2 for McNemar).
//
// Users (§3, §6): RunIndex.CohortCompletion and Cohorts (Figure 8),
// RunIndex.SessionLatency (arrival → completion, median and p90, unfinished
// counted apart), RunIndex.FirstTurnWait (Figure 6).
//
// Latency, what users feel (latency.go, defined there once): RunIndex.Latency
// over a run's completed turns (status ok; aborted and error turns counted
// apart): queue wait sent − ready, TTFT first token − sent, TPOT (done −
// first token)/(output tokens − 1) for turns of at least 2 output tokens,
// end-to-end done − sent; their 50th, 90th and 99th percentiles (Quantile:
// linear interpolation, as DuckDB's quantile_cont and numpy's default), the
// TTFT of the turns sent in the last 10 minutes, and goodput, the share of
// completed turns meeting an SLO (DefaultSLO: TTFT ≤ 2 s, TPOT ≤ 0.1 s).
// RunIndex.TTFTWindows gives the TTFT percentiles of the turns sent in
// each window (figures).
//
// Cold-turn cost (§4): RunIndex.ColdCostWindows, CalibrationWindows,
// AllMissWindows and FitColdCost regress window length on (completed turns,
// their prompt tokens) through the origin, c(L) = a + b·L with standard
// errors; CostFit.SessionCost is S = Σ_k c(L_k) over a workload shape
// (SyntheticShape, RunIndex.WorkloadShape) and DrainBound is 1/S.
//
// Drain (§4): RunIndex.RemainingColdWork samples the remaining cold work
// W(t) every 10 minutes after a rate change and fits its slope in
// engine-seconds per hour, with its 95% interval (Drain.SlopeCI) and
// verdict (drains, grows, undecided); NewDrainBracket sets the measured
// bracket beside 1/S, from the runs degraded when the rate changed only.
//
// Healthy side (§2, §4): NewHealthySide (λT(Z+R₀)L̄ against C) and
// RunIndex.LittlesLaw (N against λT(Z+R)).
//
// Tests for the compare command (§3, §6): SignTest, NewPairedSign (pairs,
// ties, wins, median difference with its interval, p), McNemarExact (of a
// Paired2x2 tallied with Add), FisherExact, Wilson, Median (+∞ for "not
// recovered" ranks last), NewMedianCI (order-statistic CI of a median, as
// benchstat), MannWhitneyU (exact for small samples without ties, normal
// approximation otherwise), ZTest and NormalInterval (independent normal
// estimates, such as two fits), Holm (step-down adjustment), and the
// smallest p each exact test can give with so many runs (SignTestMinP,
// FisherMinP, MannWhitneyMinP). Upper binomial tails use the regularized
// incomplete beta (BinomialUpper), never gonum's Survival, which cancels.
package stats
