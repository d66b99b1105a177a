package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/outlast-dev/outlast/internal/atomicfile"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
	"github.com/outlast-dev/outlast/stats"
)

// Options set how variants are replayed.
type Options struct {
	// Seeds is the number of seeds per variant, from FirstSeed (0 means
	// ExactSeed): the exact seed replays the trace, the others resample
	// it.
	Seeds     int
	FirstSeed uint64
	// Out is the directory the run directories are written to.
	Out string
	// Read reads a written run directory back, as outlast ingest does
	// (the CLI passes the run-directory reader, strict); every number
	// Replay returns is measured on what it reads.
	Read ReadFunc
	// Workers is the number of runs simulated at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, when set, is called after each run is read back, with the
	// runs done so far, of total, and the run's name; calls do not overlap.
	Progress func(done, total int, run string)
	// Labels are further entries of every written run's manifest labels,
	// rendered YAML ("grounded: true"; Grounding.Labels).
	Labels []string

	// point replays every seed with the fitted factors, drawing none.
	point bool
}

// RunResult is one replayed run: its directory and its overview row, as
// outlast ingest and report read it.
type RunResult struct {
	Name    string
	Dir     string
	Seed    uint64
	Summary stats.RunSummary
	// Prefill and Decode are the engine factors the seed ran with (Draw).
	Prefill, Decode float64
	// Warnings are the run-directory reader's.
	Warnings []string

	run *sim.Run // its name, seed, arm and configuration, to relabel it
}

// VariantResult is a variant's runs, by seed.
type VariantResult struct {
	Variant Variant
	Runs    []RunResult
}

// ReadFunc reads a run directory into its tables, with the reader's
// warnings.
type ReadFunc func(dir string) (*schema.RunData, []string, error)

// Replay simulates every variant over opt.Seeds seeds, writes each run's
// directory under opt.Out in outlast's input format and reads it back
// with opt.Read, so that every number printed is the one the dataset will
// hold. Each seed but the exact one runs an engine drawn from the fit's
// uncertainty (Engine.Draw), the same in every variant. Runs are
// simulated on opt.Workers cores; the output does not depend on how many.
func Replay(m *Fitted, variants []Variant, opt Options) ([]VariantResult, error) {
	if opt.Read == nil {
		return nil, fmt.Errorf("replay: no reader for the run directories")
	}
	if opt.Seeds < 1 || opt.Seeds > MaxSeeds {
		return nil, fmt.Errorf("%w: --seeds %d: want 1 to %d", ErrVariant, opt.Seeds, MaxSeeds)
	}
	first := opt.FirstSeed
	if first == 0 {
		first = ExactSeed
	}
	type job struct {
		cfg  *sim.Config
		v, s int
	}
	out := make([]VariantResult, len(variants))
	var jobs []job
	for i, v := range variants {
		if err := m.Check(v); err != nil {
			return nil, err
		}
		cfg := m.Config(v, opt.Seeds)
		if err := cfg.Validate(); err != nil {
			return nil, fmt.Errorf("%w: variant %s: %v", ErrVariant, v.Name, err)
		}
		out[i] = VariantResult{Variant: v, Runs: make([]RunResult, opt.Seeds)}
		for s := range opt.Seeds {
			jobs = append(jobs, job{&cfg, i, s})
		}
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, err
	}
	errs := make([]error, len(jobs))
	var mu sync.Mutex
	done := 0
	forEach(len(jobs), opt.Workers, func(k int) {
		j := jobs[k]
		res, err := m.replayOne(*j.cfg, first+uint64(j.s), opt)
		out[j.v].Runs[j.s], errs[k] = res, err
		if opt.Progress != nil {
			mu.Lock()
			done++
			opt.Progress(done, len(jobs), res.Name)
			mu.Unlock()
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// replayOne simulates one seed of a configuration's arm with the seed's
// engine, writes it and reads it back.
func (m *Fitted) replayOne(cfg sim.Config, seed uint64, opt Options) (RunResult, error) {
	p, d := m.Engine.Prefill.Value, m.Engine.Decode.Value
	if !opt.point {
		p, d = m.Engine.Draw(seed)
	}
	cfg.Cost = sim.DefaultCost.Scaled(p, d)
	tr := *cfg.Workload.(*sim.Trace)
	tr.Labels = append(engineLabels(p, d), opt.Labels...)
	cfg.Workload = &tr
	r := sim.Simulate(cfg, cfg.Arms[0], seed)
	dir, err := sim.WriteRun(opt.Out, r)
	if err != nil {
		return RunResult{}, err
	}
	back, warnings, err := opt.Read(dir)
	if err != nil {
		return RunResult{}, fmt.Errorf("replay %s does not read back: %w", r.Name, err)
	}
	kept := &sim.Run{Name: r.Name, Seed: r.Seed, Arm: r.Arm, Config: r.Config, StartedAt: r.StartedAt}
	return RunResult{Name: r.Name, Dir: dir, Seed: seed, Summary: stats.NewRunIndex(back).Summarize(), Prefill: p, Decode: d,
		Warnings: warnings, run: kept}, nil
}

// engineLabels are the manifest labels naming a seed's engine factors.
func engineLabels(p, d float64) []string {
	return []string{"prefill_x: " + num(p, 4), "decode_x: " + num(d, 4)}
}

// Relabel rewrites the manifests of runs Replay wrote with further labels
// after the ones they have: the as-is runs learn whether they grounded the
// replay only once they are all read back.
func Relabel(res *VariantResult, labels []string) error {
	for _, r := range res.Runs {
		k := *r.run
		tr := *k.Config.Workload.(*sim.Trace)
		tr.Labels = append(slices.Clone(tr.Labels), labels...)
		k.Config.Workload = &tr
		if err := atomicfile.WriteFile(filepath.Join(r.Dir, "run.yaml"), k.Manifest()); err != nil {
			return err
		}
	}
	return nil
}

// forEach calls fn(0..n−1) on workers goroutines (0: GOMAXPROCS).
func forEach(n, workers int, fn func(int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for k := range next {
				fn(k)
			}
		})
	}
	for k := range n {
		next <- k
	}
	close(next)
	wg.Wait()
}
