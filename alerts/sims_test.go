package alerts_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/sim"
	"github.com/outlast-dev/outlast/stats"
)

// The simulated runs the rules are tested on: each run's metrics as
// Prometheus would have scraped them, and its batch verdict as outlast
// computes it from the run directory (ingest, then stats).

// scrapeS is the scrape interval of the tests' series: the simulator
// writes a scrape every 5 s, Prometheus setups scrape every 15 s to 1 min.
const scrapeS = 15

// simSpec is one group of simulated runs.
type simSpec struct {
	design   string
	engine   string
	seed     uint64
	seeds    int
	lambda   float64 // 0: the design's
	duration float64 // 0: the design's
	arms     []string
	class    string // a class that overrides the verdict's (idle)
}

// simRun is one simulated run as the tests see it.
type simRun struct {
	Name, Engine string
	Verdict      string
	Class        string
	// OnsetS is the start of the first degraded 5-minute window from t=0,
	// or of the 5 minutes before control began when the run was collapsed
	// then (§6: those 5 minutes need not be an analysis window);
	// DegradedFromS is when the verdict says the run's degradation began
	// (stats.RunSummary), at or after ReferenceS (the trigger's end); EndS
	// the run's end. Seconds from t=0; NaN when none.
	OnsetS, DegradedFromS, ReferenceS, EndS float64
	// T0 is t=0 in Unix seconds.
	T0     int64
	Series []series
}

// series is one scraped series: its name, the engine's labels, and its
// points, Unix seconds.
type series struct {
	Name   string
	Labels [][2]string
	Type   string // "counter", "gauge"
	T      []int64
	V      []float64
}

// Run classes: the batch verdicts the agreement is measured against, and
// idle (a server that seldom holds a request).
const (
	classPersistent       = string(stats.VerdictPersistent)
	classNeverDegraded    = string(stats.VerdictNeverDegraded)
	classRecoveredAlone   = string(stats.VerdictRecoveredAlone)
	classRecoveredControl = string(stats.VerdictRecoveredUnderControl)
	classIdle             = "idle"
)

// simulate simulates the runs of specs, two at a time, and reads each
// back as outlast ingest does.
func simulate(t testing.TB, specs []simSpec) []*simRun {
	t.Helper()
	type job struct {
		cfg  sim.Config
		arm  sim.Arm
		seed uint64
		spec simSpec
	}
	var jobs []job
	for _, sp := range specs {
		cfg, err := sim.Defaults(sp.design)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Engine = sp.engine
		if sp.lambda > 0 {
			cfg.SetLambda(sp.lambda)
		}
		if sp.duration > 0 {
			cfg.DurationS = sp.duration
		}
		cfg.FirstSeed, cfg.Seeds = sp.seed, sp.seeds
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, seed := range cfg.SeedList() {
			for _, arm := range cfg.Arms {
				if sp.arms == nil || contains(sp.arms, arm.Name) {
					jobs = append(jobs, job{cfg, arm, seed, sp})
				}
			}
		}
	}
	dir := t.TempDir()
	out := make([]*simRun, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 2 {
		wg.Go(func() {
			for i := range next {
				out[i], errs[i] = simulateOne(dir, jobs[i].cfg, jobs[i].arm, jobs[i].seed)
				if errs[i] == nil && jobs[i].spec.class != "" {
					out[i].Class = jobs[i].spec.class
				}
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for _, r := range out {
		if seen[r.Name] {
			t.Fatalf("two simulated runs are named %s", r.Name)
		}
		seen[r.Name] = true
	}
	return out
}

func simulateOne(dir string, cfg sim.Config, arm sim.Arm, seed uint64) (*simRun, error) {
	r := sim.Simulate(cfg, arm, seed)
	name := r.Name
	if cfg.Lambda != mustDefaults(cfg.Design).Lambda {
		name += "-l" + strconv.FormatFloat(cfg.Lambda, 'f', -1, 64)
	}
	sub := filepath.Join(dir, name)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return nil, err
	}
	path, err := sim.WriteRun(sub, r)
	if err != nil {
		return nil, err
	}
	res, err := rundir.Read(path, rundir.Options{Version: "test"})
	if err != nil {
		return nil, err
	}
	x := stats.NewRunIndex(res.Data)
	s := x.Summarize()
	run := &simRun{
		Name: name, Engine: cfg.Engine, Verdict: string(s.Verdict), Class: string(s.Verdict),
		OnsetS: stats.OnsetS(x.Turns.Windows(stats.AnalysisWindows(res.Data))), DegradedFromS: s.DegradedFromS,
		ReferenceS: x.ReferenceS(), EndS: stats.RunEnd(res.Data), T0: r.StartedAt.Unix(),
	}
	if run.DegradedFromS < run.OnsetS || math.IsNaN(run.OnsetS) && !math.IsNaN(run.DegradedFromS) {
		run.OnsetS = run.DegradedFromS // collapsed when control began
	}
	run.Series, err = scrapes(r.Metrics, run.T0)
	return run, err
}

func mustDefaults(design string) sim.Config {
	c, err := sim.Defaults(design)
	if err != nil {
		panic(err)
	}
	return c
}

// scrapes reads a simulated metrics.prom (a "# scrape UNIX" line before
// each scrape's exposition text) with expfmt, keeping the scrapes every
// scrapeS seconds from t0.
func scrapes(prom []byte, t0 int64) ([]series, error) {
	var out []series
	index := map[string]int{}
	for _, block := range bytes.Split(prom, []byte("# scrape "))[1:] {
		nl := bytes.IndexByte(block, '\n')
		ts, err := strconv.ParseFloat(string(block[:nl]), 64)
		if err != nil {
			return nil, err
		}
		at := int64(math.Round(ts))
		if (at-t0)%scrapeS != 0 {
			continue
		}
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(bytes.NewReader(block[nl+1:]))
		if err != nil {
			return nil, fmt.Errorf("scrape %s: %v", block[:nl], err)
		}
		for name, f := range fams {
			for _, m := range f.Metric {
				var labels [][2]string
				for _, l := range m.Label {
					labels = append(labels, [2]string{l.GetName(), l.GetValue()})
				}
				key := name + fmt.Sprint(labels)
				i, ok := index[key]
				if !ok {
					i = len(out)
					index[key] = i
					typ := "gauge"
					if f.GetType() == dto.MetricType_COUNTER {
						typ = "counter"
					}
					out = append(out, series{Name: name, Labels: labels, Type: typ})
				}
				v := m.GetGauge().GetValue()
				if f.GetType() == dto.MetricType_COUNTER {
					v = m.GetCounter().GetValue()
				}
				out[i].T = append(out[i].T, at)
				out[i].V = append(out[i].V, v)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Name+fmt.Sprint(out[i].Labels) < out[j].Name+fmt.Sprint(out[j].Labels)
	})
	return out, nil
}

// targetLabels are the labels Prometheus would add to the run's series:
// its target's instance and job, and one of the user's own.
func (r *simRun) targetLabels() [][2]string {
	return [][2]string{{"cluster", "sim"}, {"instance", r.Name}, {"job", r.Engine}}
}

// selector writes a series' name and labels, with the run's target labels,
// in PromQL's notation.
func (r *simRun) selector(s series) string {
	labels := append(append([][2]string(nil), s.Labels...), r.targetLabels()...)
	sort.Slice(labels, func(i, j int) bool { return labels[i][0] < labels[j][0] })
	var parts []string
	for _, l := range labels {
		parts = append(parts, l[0]+"="+strconv.Quote(l[1]))
	}
	return s.Name + "{" + strings.Join(parts, ",") + "}"
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
