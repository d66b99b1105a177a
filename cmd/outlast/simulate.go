package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/sim"
)

func init() {
	commands["simulate"] = command{summary: "simulate an experiment's runs mechanistically (writes run directories)", run: writesFiles(runSimulate)}
}

// repeatedFlag collects every value of a flag given several times.
type repeatedFlag []string

func (r *repeatedFlag) String() string     { return strings.Join(*r, ",") }
func (r *repeatedFlag) Set(v string) error { *r = append(*r, v); return nil }

const simulateHelp = `Usage: outlast simulate --design DESIGN --out DIR [flags]

Simulates closed-loop agent sessions on a prefix-caching engine (vLLM or
SGLang) behind a gateway, and writes one run directory per arm and seed
(run.yaml, gateway.jsonl, engine.log, metrics.prom) in the format that
"outlast ingest" reads. Runs are named s<seed>-<arm> (s501-burst) in the
paired vLLM design and <design>-s<seed>-<arm> otherwise (recovery-s501-budgeter),
prefixed by sglang- or trace- when those apply, so several experiments can
share one dataset. The same flags and seeds give byte-identical output.

Designs and their arms (the paper's Table 1 parameters):
  paired       burst / no-burst: lambda 0.035, +1.5 lambda for 5 min at minute 15, 90 min
  nocache      burst / no-burst with prefix caching off: lambda 0.0086, +16 sessions over 5 min
  calibration  caching off, no burst, one arm per lambda (0.0086 .. 0.02): fits c(L)
  flush        none / budgeter (from 0): lambda 0.04, cache flush with preemption at minute 10
  recovery     none / admission-cap / session-cap / aimd / budgeter: lambda 0.04,
               2x arrivals for 4 min at minute 10, control from minute 20, 60 min
  mix-shift    none / cap-10 / cap-14 / cap-22 / cap-34 / adaptive-cap / budgeter:
               lambda 0.075, short -> long sessions at minute 30, 80 min
  drain        one arm per rate after minute 20 (0.006 .. 0.018): lambda 0.04,
               +1.5 lambda for 5 min at minute 10, 120 min
  prevention   none / budgeter (from 0): lambda 0.04, 2x arrivals for 2 min at minute 10

Examples:
  outlast simulate --design paired --seeds 12 --out runs/paired
  outlast simulate --design recovery --seeds 4 --engine sglang --out runs/recovery
  outlast simulate --design paired --burst 0.07@900+120 --duration 60m --seed 701 --out runs/p
  outlast simulate --design paired --control budgeter@0 --seed 801 --out runs/guarded
  outlast simulate --design paired --burst none --flush 600 --duration 60m --seed 901 --out runs/f
  outlast simulate --design drain --rate-change 0.012@1200 --out runs/drain12
  outlast simulate --design calibration --seeds 3 --out runs/cal
`

// runSimulate parses the simulate flags, builds the design's configuration
// and writes its runs.
func runSimulate(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("simulate", simulateHelp)
	design := fs.String("design", "paired", "experiment `DESIGN`: "+strings.Join(sim.Designs, ", "))
	seeds := fs.Int("seeds", 1, "number of seeds `N`; arms of one seed share the base arrivals")
	seed := fs.Uint64("seed", 501, "first `SEED`")
	out := fs.out("output `DIR` (created); one run directory per arm and seed (required)")
	duration := fs.String("duration", "", "run length `DURATION`, e.g. 90m or 5400 (seconds); default: the design's")
	lambda := fs.Float64("lambda", 0, "base session arrival `RATE`, sessions/s; default: the design's")
	pool := fs.Int("pool", 0, "KV pool size C in `TOKENS`; default 400000")
	burst := fs.String("burst", "", "burst as `RATE@START+LEN` (extra sessions/s, s, s), e.g. 0.0525@900+300; \"none\" removes it")
	var controls repeatedFlag
	fs.Var(&controls, "control", "controller as `KIND@START` (s), e.g. budgeter@1200; repeat for several arms.\n"+
		"KIND: "+strings.Join(sim.ControlKinds, ", ")+".\nFor designs whose arms are controllers it replaces the arms; otherwise every arm gets it")
	rateChange := fs.String("rate-change", "", "base rate change as `RATE@START` (sessions/s, s), e.g. 0.01@1200, for every arm (drain, whose arms are rates: one arm at RATE); \"none\" removes it")
	flushAt := fs.Float64("flush", -1, "cache flush (with preemption) at this time, `SECONDS`, for every arm; default: the design's")
	engine := fs.String("engine", "vllm", "`ENGINE` to simulate, and its log format: vllm or sglang")
	workload := fs.String("workload", "synthetic", "session shapes `WORKLOAD`: synthetic (the design's) or trace (the embedded heterogeneous set)")
	caching := fs.String("prefix-caching", "", "prefix caching `on|off`; default: the design's")
	experiment := fs.String("experiment", "", "experiment `NAME` in the manifests; default <design>-8b")
	if err := fs.parse(stdout, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("simulate: unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		return usageErrorf("simulate: --out DIR is required")
	}
	if err := checkOutDir("simulate", *out); err != nil {
		return err
	}
	cfg, err := sim.Defaults(*design)
	if err != nil {
		return usageErrorf("simulate: --design: %v", err)
	}
	// The design's configuration is valid: the first flag whose value
	// makes it invalid is the one the error names.
	valid := func(name string) error {
		if err := cfg.Validate(); err != nil {
			return usageErrorf("simulate: --%s: %v", name, err)
		}
		return nil
	}
	// 0 is each flag's "the design's", so a 0 given is refused here,
	// where it is known to have been given, rather than read as that.
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["seeds"] && *seeds < 1 {
		return usageErrorf("simulate: --seeds %d: want 1 or more", *seeds)
	}
	cfg.FirstSeed, cfg.Seeds = *seed, *seeds
	if err := valid("seeds"); err != nil {
		return err
	}
	cfg.Engine = *engine
	if err := valid("engine"); err != nil {
		return err
	}
	if *experiment != "" {
		cfg.Experiment = *experiment
	}
	if *duration != "" {
		d, err := parseSeconds(*duration)
		if err != nil {
			return usageErrorf("simulate: --duration: %v", err)
		}
		cfg.DurationS = d
		if err := valid("duration"); err != nil {
			return err
		}
	}
	if given["lambda"] && !(*lambda > 0) {
		return usageErrorf("simulate: --lambda %g: want a rate > 0 sessions/s", *lambda)
	}
	if *lambda > 0 {
		cfg.SetLambda(*lambda)
		if err := valid("lambda"); err != nil {
			return err
		}
	}
	if given["flush"] && !(*flushAt >= 0 && !math.IsInf(*flushAt, 1)) {
		return usageErrorf("simulate: --flush %g: want a time ≥ 0 seconds", *flushAt)
	}
	if given["pool"] && *pool <= 0 {
		return usageErrorf("simulate: --pool %d: want a KV pool > 0 tokens", *pool)
	}
	if *pool != 0 {
		cfg.PoolTokens = *pool
		if err := valid("pool"); err != nil {
			return err
		}
	}
	switch *caching {
	case "":
	case "on":
		cfg.PrefixCaching = true
	case "off":
		cfg.PrefixCaching = false
	default:
		return usageErrorf("simulate: --prefix-caching: want on or off")
	}
	switch *workload {
	case "synthetic":
	case "trace":
		cfg.UseTraceShapes()
		if err := valid("workload"); err != nil {
			return err
		}
	default:
		return usageErrorf("simulate: --workload: want synthetic or trace")
	}
	if err := override("burst", *burst, sim.ParseBurst, cfg.SetBurst, valid); err != nil {
		return err
	}
	if err := override("rate-change", *rateChange, sim.ParseRateChange, cfg.SetRateChange, valid); err != nil {
		return err
	}
	if *flushAt >= 0 {
		cfg.SetFlush(*flushAt)
		if err := valid("flush"); err != nil {
			return err
		}
	}
	if len(controls) > 0 {
		var ctls []sim.Control
		for _, c := range controls {
			ctl, err := sim.ParseControl(c)
			if err != nil {
				return usageErrorf("simulate: --control: %v", err)
			}
			ctls = append(ctls, ctl)
		}
		cfg.SetControls(ctls)
		if err := valid("control"); err != nil {
			return err
		}
	}
	if err := cfg.Validate(); err != nil {
		return usageErrorf("simulate: %v", err)
	}
	for _, w := range cfg.Warnings() {
		fmt.Fprintf(stderr, "outlast: simulate: warning: %s\n", w)
	}
	before := runDirsIn(*out)
	if err := os.MkdirAll(*out, 0o777); err != nil {
		return inputError(err)
	}
	bar := fs.bar(stderr, "simulate", cfg.Seeds*len(cfg.Arms))
	paths, err := sim.WriteExperimentEach(*out, cfg, inOrder(bar))
	bar.done()
	if err != nil {
		return inputError(err)
	}
	warnStale(stderr, "simulate", *out, before, paths)
	if !fs.quiet {
		fmt.Fprintf(stdout, "simulated %s (%s, %s from %d, %s) into %s\n", countNoun(len(paths), "run"), cfg.Design,
			countNoun(cfg.Seeds, "seed"), cfg.FirstSeed, countNoun(len(cfg.Arms), "arm"), *out)
	}
	return nil
}

// parseOrNone parses the value of a flag that changes a design's default:
// "" keeps it (set is false), "none" removes it (a nil value), anything
// else is parsed.
func parseOrNone[T any](v string, parse func(string) (T, error)) (_ *T, set bool, _ error) {
	switch v {
	case "":
		return nil, false, nil
	case "none":
		return nil, true, nil
	}
	x, err := parse(v)
	if err != nil {
		return nil, false, err
	}
	return &x, true, nil
}

// override applies the value v of the flag name, parsed by parseOrNone,
// through set, and checks the configuration with valid; a value not given
// changes nothing.
func override[T any](name, v string, parse func(string) (T, error), set func(*T), valid func(string) error) error {
	x, given, err := parseOrNone(v, parse)
	if err != nil {
		return usageErrorf("simulate: --%s: %v", name, err)
	}
	if !given {
		return nil
	}
	set(x)
	return valid(name)
}

// parseSeconds accepts a Go duration (90m) or a number of seconds.
func parseSeconds(s string) (float64, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return 0, fmt.Errorf("%q: want a positive duration", s)
		}
		return d.Seconds(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q: want a duration such as 90m or a number of seconds", s)
	}
	return v, nil
}

// inOrder returns the progress callback of sim.WriteExperimentEach that
// shows the runs on bar in their order (seed, then arm), as ingest shows
// its run directories: a run that finishes early waits for those before
// it.
func inOrder(bar *progress) func(i int, path string) {
	var names []string // by index; "" while not written
	shown := 0
	return func(i int, path string) {
		for len(names) <= i {
			names = append(names, "")
		}
		names[i] = filepath.Base(path)
		for shown < len(names) && names[shown] != "" {
			shown++
			bar.stepDone(shown, names[shown-1])
		}
	}
}
