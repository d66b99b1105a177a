// Package replay answers what-if questions about one observed run: would
// a controller, a bigger KV pool, less load or no burst have changed its
// fate? It fits the mechanistic simulator (sim) to the run, from
// the run itself, and simulates the run as it was (the as-is variant) and
// its counterfactual variants over several seeds, writing each simulated
// run as a run directory in outlast's input format (design replay,
// experiment RUN-replay, arm the variant), so that ingest, report and
// compare take replays like any other run.
//
// # The model
//
// Workload (workload.go): every session that arrived, at its time and with
// its origin, and each completed turn's prompt and output tokens and think
// time (ready_s − the previous turn's done_s; sent_s − done_s where the
// gateway gives no ready_s, which then also counts time a controller held
// the turn; the median of the known gaps where neither is given). Failed
// turns are left out. Sessions still open at the run's end (no end_s;
// ingest leaves open a load generator's session its stop left in the
// system: docs/run-format.md) are extended to their turns_planned, or to
// a turn count drawn from the
// ended sessions that got further, growing by their median context growth
// with gaps drawn from the run's (without that, a collapsed run's backlog
// would replay as sessions that end early). The shared prefix is the manifest's
// system_tokens, else the median cached tokens of the sessions' first turns
// that hit. The arrival process (model.go) is the manifest's arrival_rate
// (else the gateway's first rate event, else the base sessions per
// second), its rate change, and its burst's extra rate over the trigger's
// window (else the burst sessions per second of it). That process is
// tested against the run's base arrivals (arrivalfit.go: their count,
// exact Poisson, and their times rescaled by its cumulative rate,
// chi-square, each at 0.0005): a manifest names the rate a load generator
// aimed at, and a run whose arrivals fell away part-way (a rate change it
// does not declare) would otherwise replay at a load it never had. Where
// it does not fit, the observed rate replaces it, else the likeliest
// single rate change (maximum likelihood over the arrival times, an
// untagged burst's window left out), with a warning; a replay with a
// fitted rate change writes it as its trigger (kind rate-change, the
// burst as extra keys, so its windows align to the change). Seed 1 replays
// the sessions exactly; other seeds draw arrivals from that process and give
// each a whole observed session of its stream (burst or not; on its side
// of a mix shift), drawn at random (sim.Trace).
//
// Engine (engine.go, busy.go, regress.go, calibrate.go): the KV pool C and
// the engine from the run (the simulator's 400,000 tokens, with a warning,
// when the run gives none); prefill and decode speed as multiples of the
// simulator's default step costs (sim.Cost.Scaled). They are fitted on the
// run's 2-minute windows, and on those of the dataset's calibration runs
// of the same engine and model (prefix caching off: every turn cold), by
// regressing the time the engine was busy in each window (while any turn
// was in flight, by the gateway's sent_s and done_s; without them, whole
// windows in which the engine's running samples never fell below one)
// through the origin on the prefill and decode time the default costs
// give the work the engine reported in it (each turn's computed prompt
// tokens, prompt − cached, at their context positions; its output tokens
// at its context; a step cost per decode step). This is the paper's §4
// regression with the step-time model in place of c(L): it needs no
// all-miss windows, and a healthy run's hit turns pin the prefill speed
// too. A run that reports no cached tokens per turn gives each turn the
// engine's own hit ratio of its window (prefix-cache counters, SGLang's
// prefill lines); without those its windows are not fitted at all, since
// prefill cannot be told from hits. With fewer than 3 windows the speeds
// are medians over single turns (decode time per token, time to first
// token), and without turn timings the defaults, with a warning.
//
// The regression is biased as an estimator of the simulator's costs (it
// counts decode steps from the turns' mean token rates and misses the
// fixed cost of steps without a decode: decode is overstated by 1–2%,
// prefill understated by up to 8% in healthy runs), and its windows are
// serially correlated. So its standard errors come from a moving-block
// bootstrap over each run's windows (blocks of about n^(1/3) windows,
// spread from the replicates' central 68%), and Correct measures the bias
// on a replay of the run's own sessions simulated with the fitted factors
// and divides it out (indirect inference, one step; the standard errors
// of the two fits combined). Measured with TestValidationCoverage (go test
// -run ValidationCoverage -full -v), on 58 simulated runs whose factors
// are known: at the default costs (true factors exactly 1.0; the paired,
// recovery, flush, mix-shift and prevention designs, SGLang, trace
// shapes; 38 runs) ±2 SE covers the truth in 76 of 76 intervals, the
// largest error 1.7 SE, prefill within 4% in most runs (12% on a flush
// run the windows barely pin down, at 0.8 SE) and decode within 1%; on
// engines ×2/×0.5 and ×0.6/×1.5 slower in 16 of 16; with the cached
// tokens withheld (fitted by the engine's hit ratio) in 21 of 24, the
// largest error 2.8 SE; 113 of 116 (97%) in all. Uncorrected, the same
// bootstrap intervals covered 55 of the 116. Each seed but the exact one
// replays an engine drawn from that uncertainty (Engine.Draw: log-normal,
// with the two factors' correlation; the same draw in every variant), so
// the spread over seeds includes the engine's calibration error. The
// counterfactuals follow: replayed at 0.75 times their pool, three healthy
// 60-minute paired twins (seeds 501–503) end, in the replay of their own
// sessions, as direct simulations of the same seeds at that pool do:
// persistent, with 30.0, 46.0 and 70.8 sessions in the system against
// 30.1, 45.5 and 70.6 (and 3 or 4 of their 8 seeds persistent).
// The paper's own c(L) fit (stats.FitColdCost) over the calibration runs
// or the run's all-miss windows is printed beside it.
//
// # The as-is gate
//
// Before any variant, the run replayed as it was must end as it did
// (gate.go): a seed reproduces the run when it ends with its verdict, an
// end hit ratio within 0.15 and end sessions within ×1.5 (or 5 sessions)
// of the run's; the run is not reproduced when the one-sided 95% upper
// bound of the share of seeds that reproduce it is below 0.25, over at
// least GateSeeds (11) seeds, the fewest that can show it. The share asked
// for is low because the regimes are metastable: of the simulator's own
// paired runs (16 seeds of 90 minutes, 16 as-is seeds each), a burst run
// that escaped or a twin that collapsed on its own is reproduced by only
// 1 to 5 of 16 seeds, yet the model is exact for it; a run whose low hit
// ratio has another cause is reproduced by none (TestGateNotReproduced).
// Not reproduced means the run's collapse is not the mechanism the model
// knows, or the model is miscalibrated for it, and a variant then says
// nothing about the run. A run whose engine cannot be fitted or that
// reports no cached tokens is refused before any simulation (Refusal).
// The gate's result is written into every replayed run's manifest labels
// (grounded, grounding), where outlast report reads it.
//
// # Variants and output
//
// A Variant changes one thing: the pool, the controller (every kind the
// simulator has, from a start time), the base arrival rate, or drops an
// origin (drop-burst is the run's synthetic twin: no burst sessions, the
// trigger's slot kept). Replay runs each variant's seeds on every core,
// writes the run directories and reads each back with the reader it is
// given (the CLI gives the run-directory reader, strict, as outlast ingest
// reads), so every printed number is what the dataset will hold; the
// package itself stays above dataset and stats and below the CLI. An
// Outcome counts a variant's seeds by verdict, each share with its exact
// (Clopper–Pearson) interval, and the share not persistently degraded; a
// controller's seeds are split by whether control began before they
// collapsed (prevention) or after (rescue). FindPool searches for the
// smallest pool whose one-sided 95% lower bound of P(not persistent)
// meets a target, doubling a pool's seeds until the bounds decide (Decide)
// or a most is reached. The same dataset and flags give byte-identical run
// directories.
package replay
