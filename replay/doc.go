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
// turns are left out. Sessions still open at the run's end are extended
// to their turns_planned, or to a turn count drawn from the ended sessions
// that got further, growing by their median context growth with gaps
// drawn from the run's (without that, a collapsed run's backlog would
// replay as sessions that end early). The shared prefix is the manifest's
// system_tokens, else the median cached tokens of the sessions' first turns
// that hit. The arrival process (model.go) is the manifest's arrival_rate
// (else the gateway's first rate event, else the base sessions per
// second), its rate change, and its burst's extra rate over the trigger's
// window (else the burst sessions per second of it). Seed 1 replays the
// sessions exactly; other seeds draw arrivals from that process and give
// each a whole observed session of its stream (burst or not; on its side
// of a mix shift), drawn at random (sim.Trace).
//
// Engine (engine.go): the KV pool C and the engine from the run (the
// simulator's 400,000 tokens, with a warning, when the run gives none);
// prefill and decode speed as multiples of the simulator's default step
// costs (sim.Cost.Scaled). They are fitted on the run's 2-minute windows,
// and on those of the dataset's calibration runs of the same engine and
// model (prefix caching off: every turn cold), by regressing the time the
// engine was busy in each window (while any turn was in flight, by the
// gateway's sent_s and done_s; without them, whole windows in which the
// engine's running samples never fell below one) through the origin on the
// prefill and decode time the default costs give the work the engine
// reported in it (each turn's computed prompt tokens, prompt − cached, at
// their context positions; its output tokens at its context; a step cost
// per decode step). This is the paper's §4 regression with the step-time
// model in place of c(L): it needs no all-miss windows, and a healthy run's
// hit turns pin the prefill speed too. On simulated runs it recovers the
// simulator's costs to within a few percent (decode is overstated by
// 1–2%, the decode steps in a window being estimated from the turns'
// mean token rates). With fewer than 3 windows the speeds are medians over
// single turns (decode time per token, time to first token), and without
// turn timings the defaults, with a warning.
// The paper's own c(L) fit (stats.FitColdCost) over the calibration runs
// or the run's all-miss windows is printed beside it.
//
// Validation: the as-is variant's seed 1 against the observed run (Match)
// says how far to trust the counterfactuals; the replay_test.go tests check
// it on simulated runs, where the truth is known.
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
// package itself stays above dataset and stats and below the CLI.
// FindPool searches for the smallest pool at which 90% of the seeds stay
// healthy. The same dataset and flags give byte-identical run directories.
package replay
