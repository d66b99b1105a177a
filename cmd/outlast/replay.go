package main

import (
	"fmt"
	"io"
	"math"
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
the run's own arrival process. It prints the fitted workload and engine,
how far the as-is replay lands from the observed run (trust the
counterfactuals no further), and a line per variant: verdicts, end hit
ratio and sessions in the system (median [range] over seeds), recovery.

Each replayed run is written to DIR as a run directory (design replay,
experiment NAME-replay, arm the variant, seed N) that "outlast ingest"
reads; ingest them beside the observed run and "outlast report" sets them
side by side. The same dataset and flags give byte-identical directories.

Workload: sessions, origins, each turn's prompt and output tokens and
think time (ready − previous done, else sent − previous done); sessions
open at the end are extended to their planned turns. Engine: the run's KV
pool; prefill and decode speed fitted on its busy windows (and those of
calibration runs of the same engine and model in the dataset); the
simulator's defaults, with a warning, when the run has no timings.

Variants (each flag may be repeated; each value is one arm):
  --pool TOKENS|Nx         the KV pool, in tokens or as a multiple of the run's
  --control KIND@SECONDS   a controller from a time: KINDS
  --arrival-scale X        X times the base arrivals (the burst unchanged)
  --drop-origin ORIGIN     without that origin's sessions; burst: the twin
  --find-pool              the smallest pool (within 5%) at which 90% of the
                           as-is seeds stay healthy: the search printed as a
                           table, the pool found added as a variant

Examples:
  outlast replay ds --run s501-burst --out replays --control budgeter@1200
  outlast replay ds --run s501-burst --out replays --drop-origin burst --pool 2x
  outlast replay ds --run s501-burst --out replays --arrival-scale 0.8 --find-pool
  outlast ingest --out ds replays && outlast report ds --out report

An unknown run, a run with too few turns to fit and a flag out of range
are bad input: exit status 2, with the reason.
`

// variantFlag collects the variant flags in the order given.
type variantFlag struct {
	kind string
	list *[][2]string
}

func (v variantFlag) String() string     { return "" }
func (v variantFlag) Set(s string) error { *v.list = append(*v.list, [2]string{v.kind, s}); return nil }

func runReplay(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("replay", strings.Replace(replayHelp, "KINDS", strings.Join(sim.ControlKinds, ", "), 1))
	run := fs.String("run", "", "the observed `RUN` to replay (required)")
	out := fs.out("`DIR` to write the replayed run directories to (required)")
	seeds := fs.Int("seeds", 16, "`N` seeds per variant: seed 1 replays the trace, the others resample it")
	findPool := fs.Bool("find-pool", false, "search for the smallest KV pool at which 90% of the as-is seeds stay healthy")
	var given [][2]string
	fs.Var(variantFlag{"pool", &given}, "pool", "a variant with this KV pool: `TOKENS|Nx`, tokens or N times the run's")
	fs.Var(variantFlag{"control", &given}, "control", "a variant under a controller from a time: `KIND@SECONDS`; KIND: "+strings.Join(sim.ControlKinds, ", "))
	fs.Var(variantFlag{"arrival-scale", &given}, "arrival-scale", "a variant with `X` times the base arrivals, X in (0, 100]")
	fs.Var(variantFlag{"drop-origin", &given}, "drop-origin", "a variant without the sessions of this `ORIGIN` (burst: the run's twin)")
	if err := fs.parse(stdout, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *run == "" || *out == "" {
		return usageErrorf("replay needs one DATASET, --run NAME and --out DIR")
	}
	if *seeds < 1 || *seeds > replay.MaxSeeds {
		return usageErrorf("replay: --seeds %d: want 1 to %d", *seeds, replay.MaxSeeds)
	}
	if err := checkOutDir("replay", *out); err != nil {
		return err
	}
	if err := datasetDir(fs.Arg(0)); err != nil {
		return err
	}
	m, err := loadReplay(fs.Arg(0), *run)
	if err != nil {
		return inputError(err)
	}
	variants := []replay.Variant{{Name: replay.AsIs}}
	seen := map[string]bool{replay.AsIs: true}
	for _, g := range given {
		v, err := parseVariant(g[0], g[1], m.Engine.Pool)
		if err != nil {
			return usageErrorf("replay: --%s: %v", g[0], err)
		}
		if seen[v.Name] {
			return usageErrorf("replay: variant %s is given twice", v.Name)
		}
		seen[v.Name] = true
		if err := m.Check(v); err != nil {
			return inputError(err)
		}
		if why := m.SameAsIs(v); why != "" {
			// Not refused: a script sweeping values may pass the run's
			// own, and its replays are as valid as the as-is ones.
			fmt.Fprintf(stderr, "outlast: replay: variant %s changes nothing: %s; its runs repeat %s's\n", v.Name, why, replay.AsIs)
		}
		variants = append(variants, v)
	}
	opt := replay.Options{Seeds: *seeds, Out: *out, Read: readRunDir}
	// The pool search and the replay each draw a bar, cleared before
	// their results are printed: on a terminal, standard output shares
	// the bar's line.
	var bar *progress
	opt.Progress = func(done, total int, run string) {
		if bar == nil || bar.n != total {
			bar = fs.bar(stderr, "replay", total)
		}
		bar.stepDone(done, run)
	}
	endBar := func() {
		if bar != nil {
			bar.done()
			bar = nil
		}
	}
	defer endBar()
	replay.PrintFit(stdout, m)
	var search *replay.PoolSearch
	if *findPool {
		ps, err := replay.FindPool(m, variants[0], opt)
		endBar()
		if err != nil {
			return inputError(err)
		}
		search = &ps
		if ps.Pool > 0 && ps.Pool != m.Engine.Pool && !seen[replay.PoolVariant(ps.Pool).Name] {
			variants = append(variants, replay.PoolVariant(ps.Pool))
		}
	}
	before := runDirsIn(*out)
	res, err := replay.Replay(m, variants, opt)
	endBar()
	if err != nil {
		return inputError(err)
	}
	var written []string
	for _, v := range res {
		for _, r := range v.Runs {
			written = append(written, r.Dir)
		}
	}
	warnStale(stderr, "replay", *out, before, written)
	replay.PrintMatch(stdout, m.NewMatch(&res[0]))
	outs := make([]replay.Outcome, len(res))
	for i := range res {
		outs[i] = res[i].Outcome()
	}
	replay.PrintOutcomes(stdout, outs)
	fmt.Fprintln(stdout)
	if search != nil {
		replay.PrintPoolSearch(stdout, *search, *seeds)
	}
	for _, r := range res {
		for _, run := range r.Runs {
			for _, w := range run.Warnings {
				fmt.Fprintf(stderr, "outlast: %s: %s\n", run.Name, w)
			}
		}
	}
	if !fs.quiet {
		fmt.Fprintf(stdout, "wrote %s (%s × %s) into %s\n", countNouns(len(res)*(*seeds), "run directory", "run directories"),
			countNoun(len(res), "variant"), countNoun(*seeds, "seed"), *out)
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
