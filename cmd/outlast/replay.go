package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/replay"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
)

func init() {
	commands["replay"] = command{summary: "what-if: replay an observed run with a controller, another pool, other load or no burst", run: writesFiles(runReplay)}
}

const replayHelp = `Usage: outlast replay DATASET --run NAME --out DIR [flags]

Replay fits the simulator to one observed run of the dataset, from the run
itself, and simulates it as it was (the as-is variant) and with what you
change (one variant per flag), over --seeds seeds: seed 1 replays the run's
sessions exactly, the others resample whole sessions and draw arrivals from
the run's own arrival process, and an engine from the fit's uncertainty.
The arrival process the manifest gives is tested against the run's
arrivals; where they reject it, the seeds draw from the observed one (one
rate, else one rate change), with a warning.

First the as-is gate: the run replayed as it was must end as it did. A
seed reproduces the run when it ends with the run's verdict, an end hit
ratio within 0.15 of the run's and end sessions within x1.5 (or 5
sessions) of the run's. The run is not reproduced when, with 95%
confidence, fewer than a quarter of the seeds would reproduce it (the
one-sided exact upper bound of the share that do is below 0.25); the gate
replays at least 11 as-is seeds, the fewest that can show that. Only a
reproduced run's variants are grounded in it, and replayed.

Not reproduced means the run's collapse (or health) is not the mechanism
the model knows (a cache that missed for another reason, a workload the
model cannot express), or the model is miscalibrated for this run: what a
variant changes would then say nothing about the run. Replay says so on
standard error, gives the variants no verdict ("not grounded") and exits
with status 1. A run whose engine cannot be fitted (no turn timings, no KV
pool size) or that reports no cached tokens is refused the same way,
before any simulation. --ungrounded replays the variants anyway, each
labelled "not grounded"; the exit status stays 1.

It prints the fitted workload and engine (prefill and decode step times as
multiples of the simulator's defaults, with standard errors from a block
bootstrap over the run's windows, corrected for the regression's own bias
on a replay of the run), the gate, and per variant the seeds by verdict,
each with the 95% exact (Clopper-Pearson) interval of its share, end hit
ratio and sessions in the system (median [range] over seeds), recovery,
and for a controller how many seeds it caught before they collapsed
(prevention) or after (rescue).

Each replayed run is written to DIR as a run directory (design replay,
experiment NAME-replay, arm the variant, seed N; labels with the seed's
engine factors and the gate's result) that "outlast ingest" reads; ingest
them beside the observed run and "outlast report" sets them side by side.
The same dataset and flags give byte-identical directories.

Variants (each flag may be repeated; each value is one arm):
  --pool TOKENS|Nx         the KV pool, in tokens or as a multiple of the run's
  --control KIND@SECONDS   a controller from a time: KINDS
  --arrival-scale X        X times the base arrivals (the burst unchanged)
  --drop-origin ORIGIN     without that origin's sessions; burst: the twin
  --find-pool              the smallest pool (within 5%) whose one-sided 95%
                           lower bound of P(not persistent) over the as-is
                           seeds is at least --target; seeds are added
                           (doubling from --seeds) until the bounds decide,
                           up to --max-seeds; the pool found is added as a
                           variant

Examples:
  outlast replay ds --run s501-burst --out replays --control budgeter@1200
  outlast replay ds --run s501-burst --out replays --drop-origin burst --pool 2x
  outlast replay ds --run s501-burst --out replays --arrival-scale 0.8 --find-pool
  outlast replay ds --run odd-run --out replays --pool 2x --ungrounded
  outlast ingest --out ds replays && outlast report ds --out report

Exit status: 0 when the run is grounded; 1 when it is refused or not
reproduced (with --ungrounded too); 2 for bad input: an unknown run, a
run with too few turns to fit, a flag out of range.
`

// variantFlag collects the variant flags in the order given.
type variantFlag struct {
	kind string
	list *[][2]string
}

func (v variantFlag) String() string     { return "" }
func (v variantFlag) Set(s string) error { *v.list = append(*v.list, [2]string{v.kind, s}); return nil }

// replayFlags are replay's own flags.
type replayFlags struct {
	run, out             *string
	seeds, maxSeeds      *int
	findPool, ungrounded *bool
	target               *float64
	given                [][2]string
}

func runReplay(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("replay", strings.Replace(replayHelp, "KINDS", strings.Join(sim.ControlKinds, ", "), 1))
	f := replayFlags{
		run:        fs.String("run", "", "the observed `RUN` to replay (required)"),
		out:        fs.out("`DIR` to write the replayed run directories to (required)"),
		seeds:      fs.Int("seeds", 16, "`N` seeds per variant: seed 1 replays the trace, the others resample it"),
		findPool:   fs.Bool("find-pool", false, "search for the smallest KV pool whose 95% lower bound of P(not persistent) meets --target"),
		target:     fs.Float64("target", replay.DefaultTarget, "--find-pool's `SHARE` of seeds not persistently degraded, by its one-sided 95% lower bound"),
		maxSeeds:   fs.Int("max-seeds", replay.DefaultMaxSeeds, "the most seeds `N` --find-pool tries a pool with before it calls it undecided"),
		ungrounded: fs.Bool("ungrounded", false, "replay the variants of a run the as-is gate refuses, labelled not grounded (exit status stays 1)"),
	}
	fs.Var(variantFlag{"pool", &f.given}, "pool", "a variant with this KV pool: `TOKENS|Nx`, tokens or N times the run's")
	fs.Var(variantFlag{"control", &f.given}, "control", "a variant under a controller from a time: `KIND@SECONDS`; KIND: "+strings.Join(sim.ControlKinds, ", "))
	fs.Var(variantFlag{"arrival-scale", &f.given}, "arrival-scale", "a variant with `X` times the base arrivals, X in (0, 100]")
	fs.Var(variantFlag{"drop-origin", &f.given}, "drop-origin", "a variant without the sessions of this `ORIGIN` (burst: the run's twin)")
	if err := fs.parse(stdout, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *f.run == "" || *f.out == "" {
		return usageErrorf("replay needs one DATASET, --run NAME and --out DIR")
	}
	if *f.seeds < 1 || *f.seeds > replay.MaxSeeds {
		return usageErrorf("replay: --seeds %d: want 1 to %d", *f.seeds, replay.MaxSeeds)
	}
	if *f.findPool && (*f.maxSeeds < *f.seeds || *f.maxSeeds > replay.MaxSeeds) {
		return usageErrorf("replay: --max-seeds %d: want --seeds (%d) to %d", *f.maxSeeds, *f.seeds, replay.MaxSeeds)
	}
	if !(*f.target > 0 && *f.target < 1) {
		return usageErrorf("replay: --target %g: want a share in (0, 1)", *f.target)
	}
	if err := checkOutDir("replay", *f.out); err != nil {
		return err
	}
	if err := datasetDir(fs.Arg(0)); err != nil {
		return err
	}
	m, err := loadReplay(fs.Arg(0), *f.run)
	if err != nil {
		return inputError(err)
	}
	variants, err := replayVariants(m, f.given, stderr)
	if err != nil {
		return err
	}
	return replayRun(stdout, stderr, fs, m, variants, f)
}

// replayVariants parses the variant flags, as-is first.
func replayVariants(m *replay.Fitted, given [][2]string, stderr io.Writer) ([]replay.Variant, error) {
	variants := []replay.Variant{{Name: replay.AsIs}}
	seen := map[string]bool{replay.AsIs: true}
	for _, g := range given {
		v, err := parseVariant(g[0], g[1], m.Engine.Pool)
		if err != nil {
			return nil, usageErrorf("replay: --%s: %v", g[0], err)
		}
		if seen[v.Name] {
			return nil, usageErrorf("replay: variant %s is given twice", v.Name)
		}
		seen[v.Name] = true
		if err := m.Check(v); err != nil {
			return nil, inputError(err)
		}
		if why := m.SameAsIs(v); why != "" {
			// Not refused: a script sweeping values may pass the run's
			// own, and its replays are as valid as the as-is ones.
			fmt.Fprintf(stderr, "outlast: replay: variant %s changes nothing: %s; its runs repeat %s's\n", v.Name, why, replay.AsIs)
		}
		variants = append(variants, v)
	}
	return variants, nil
}

// replayRun corrects the fit, runs the as-is gate and, when the run is
// grounded (or --ungrounded), the pool search and the variants.
func replayRun(stdout, stderr io.Writer, fs *cmdFlags, m *replay.Fitted, variants []replay.Variant, f replayFlags) error {
	opt := replay.Options{Seeds: *f.seeds, Out: *f.out, Read: readRunDir}
	// Each phase draws a bar, cleared before its results are printed: on
	// a terminal, standard output shares the bar's line.
	var bar *progress
	phase := func(name string) {
		opt.Progress = func(done, total int, run string) {
			if bar == nil {
				bar = fs.bar(stderr, name, total)
			}
			bar.stepDone(done, run)
		}
	}
	endBar := func() {
		if bar != nil {
			bar.done()
			bar = nil
		}
	}
	defer endBar()
	if why := m.Refusal(); why != "" && !*f.ungrounded {
		replay.PrintFit(stdout, m)
		return findingError(fmt.Errorf("replay: run %s is not grounded, refused: %s; --ungrounded replays it anyway, its variants labelled not grounded", m.Run, why))
	}
	before := runDirsIn(*f.out)
	phase("replay: fit")
	err := m.Correct(opt)
	endBar()
	if err != nil {
		return inputError(err)
	}
	replay.PrintFit(stdout, m)
	phase("replay: as-is")
	gate := opt
	gate.Seeds = max(opt.Seeds, replay.GateSeeds)
	asIs, err := replay.Replay(m, variants[:1], gate)
	endBar()
	if err != nil {
		return inputError(err)
	}
	g := m.Ground(&asIs[0])
	if err := replay.Relabel(&asIs[0], g.Labels()); err != nil {
		return inputError(err)
	}
	replay.PrintGrounding(stdout, &g)
	res := asIs
	var search *replay.PoolSearch
	if g.Grounded || *f.ungrounded {
		opt.Labels = g.Labels()
		if *f.findPool {
			phase("replay: find-pool")
			ps, err := replay.FindPool(m, variants[0], opt, *f.target, *f.maxSeeds)
			endBar()
			if err != nil {
				return inputError(err)
			}
			search = &ps
			if v := replay.PoolVariant(ps.Pool); ps.Pool > 0 && ps.Pool != m.Engine.Pool && !slices.ContainsFunc(variants, func(x replay.Variant) bool { return x.Name == v.Name }) {
				variants = append(variants, v)
			}
		}
		if len(variants) > 1 {
			phase("replay")
			more, err := replay.Replay(m, variants[1:], opt)
			endBar()
			if err != nil {
				return inputError(err)
			}
			res = append(res, more...)
		}
		replay.PrintOutcomes(stdout, m.Outcomes(res), g.Grounded)
		fmt.Fprintln(stdout)
		if search != nil {
			replay.PrintPoolSearch(stdout, *search)
		}
	} else {
		replay.PrintNotGrounded(stdout, variants, *f.findPool)
	}
	var written []string
	for _, v := range res {
		for _, r := range v.Runs {
			written = append(written, r.Dir)
			for _, w := range r.Warnings {
				fmt.Fprintf(stderr, "outlast: %s: %s\n", r.Name, w)
			}
		}
	}
	warnStale(stderr, "replay", *f.out, before, written)
	if !fs.quiet {
		by := countNoun(len(res), "variant") + " × " + countNoun(*f.seeds, "seed")
		if n := len(res[0].Runs); n != *f.seeds {
			by = "as-is × " + countNoun(n, "seed")
			if len(res) > 1 {
				by += ", " + countNoun(len(res)-1, "variant") + " × " + countNoun(*f.seeds, "seed")
			}
		}
		fmt.Fprintf(stdout, "wrote %s (%s) into %s\n", countNouns(len(written), "run directory", "run directories"), by, *f.out)
	}
	switch {
	case g.Refused != "":
		return findingError(fmt.Errorf("replay: run %s is not grounded, refused: %s; its variants, replayed with --ungrounded, say nothing about the run", m.Run, g.Refused))
	case !g.Grounded:
		return findingError(fmt.Errorf("replay: run %s is not grounded: the as-is replay does not reproduce it: %s; its variants say nothing about the run (see \"Not reproduced\" in outlast replay --help)",
			m.Run, strings.TrimPrefix(g.Reason(), "not reproduced: ")))
	}
	return nil
}

// parseVariant parses one variant flag's value; pool is the run's KV pool.
func parseVariant(kind, value string, pool int) (replay.Variant, error) {
	switch kind {
	case "pool":
		if x, ok := strings.CutSuffix(value, "x"); ok {
			f, err := strconv.ParseFloat(x, 64)
			if err != nil || !(f > 0) || math.IsInf(f, 0) || f*float64(pool) > math.MaxInt32 {
				return replay.Variant{}, fmt.Errorf("%q: want TOKENS or a positive multiple such as 1.5x", value)
			}
			return replay.PoolVariant(int(math.Round(f*float64(pool)/16)) * 16), nil
		}
		n, err := strconv.Atoi(value)
		if err != nil || n <= 0 {
			return replay.Variant{}, fmt.Errorf("%q: want TOKENS or a positive multiple such as 1.5x", value)
		}
		return replay.PoolVariant(n), nil
	case "control":
		c, err := sim.ParseControl(value)
		if err != nil {
			return replay.Variant{}, err
		}
		return replay.ControlVariant(c), nil
	case "arrival-scale":
		x, err := strconv.ParseFloat(value, 64)
		if err != nil || !(x > 0) || x > replay.MaxScale {
			return replay.Variant{}, fmt.Errorf("%q: want a number in (0, %d]", value, replay.MaxScale)
		}
		return replay.ScaleVariant(x), nil
	}
	return replay.DropVariant(value), nil
}

// readRunDir reads a replayed run directory back strictly, as outlast
// ingest reads it.
func readRunDir(dir string) (*schema.RunData, []string, error) {
	res, err := rundir.Read(dir, rundir.Options{Version: version})
	if err != nil {
		return nil, nil, err
	}
	return res.Data, res.Warnings, nil
}
