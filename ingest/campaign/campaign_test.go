package campaign

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/internal/slowtest"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
)

var (
	campaignOnce sync.Once
	campaignRuns []string
	campaignErr  error
	campaignRoot string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if campaignRoot != "" {
		os.RemoveAll(campaignRoot)
	}
	os.Exit(code)
}

// campaignDirs returns a small campaign, written once for the tests, which
// only read it: simulated runs of two designs (turns, sessions, events,
// engine log and scrapes) and copies of the real fixtures, in the order an
// ingest is given them.
func campaignDirs(t *testing.T) []string {
	t.Helper()
	campaignOnce.Do(func() {
		campaignRoot, campaignErr = os.MkdirTemp("", "outlast-campaign-")
		if campaignErr == nil {
			campaignRuns, campaignErr = writeCampaign(campaignRoot)
		}
	})
	if campaignErr != nil {
		t.Fatal(campaignErr)
	}
	return campaignRuns
}

func writeCampaign(root string) ([]string, error) {
	var dirs []string
	for _, design := range []string{schema.DesignRecovery, schema.DesignPaired} {
		cfg, err := sim.Defaults(design)
		if err != nil {
			return nil, err
		}
		cfg.Seeds, cfg.DurationS = 1, 600
		paths, err := sim.WriteExperiment(filepath.Join(root, design), cfg)
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, paths...)
	}
	real, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "real", "*"))
	if err != nil || len(real) == 0 {
		return nil, fmt.Errorf("no real fixtures: %v", err)
	}
	for _, src := range real {
		if !rundir.IsRunDir(src) {
			continue
		}
		dst := filepath.Join(root, "real", filepath.Base(src))
		if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
			return nil, err
		}
		dirs = append(dirs, dst)
	}
	// A GuideLLM sweep: one directory, two runs (sw-b0, sw-b1), among the
	// others.
	sweep := filepath.Join(root, "sweep")
	if err := os.MkdirAll(sweep, 0o755); err != nil {
		return nil, err
	}
	real2026 := filepath.Join("..", "..", "fixtures", "real", "vllm-2026")
	for src, dst := range map[string]string{
		filepath.Join("..", "guidellm", "testdata", "sweep.json"): "benchmarks.json",
		filepath.Join(real2026, "engine.log"):                     "engine.log",
		filepath.Join(real2026, "metrics.prom"):                   "metrics.prom",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(sweep, dst), b, 0o644); err != nil {
			return nil, err
		}
	}
	m := "format: outlast-run/1\nrun: sw\nexperiment: e\ndesign: observe\narm: none\nstarted_at: 2026-10-27T12:00:02Z\nduration_s: 225\n" +
		"engine: {name: vllm, model: Qwen/Qwen3-8B, prefix_caching: true}\nfiles:\n  gateway: benchmarks.json\n"
	if err := os.WriteFile(filepath.Join(sweep, rundir.ManifestName), []byte(m), 0o644); err != nil {
		return nil, err
	}
	dirs = slices.Insert(dirs, len(dirs)/2, sweep)
	return dirs, nil
}

// result is what a caller sees of one run.
type result struct {
	run                              string
	turns, sessions, events, samples int
	rejects, warnings                int
}

func resultOf(res *rundir.Result) result {
	d := res.Data
	return result{d.Run.Run, int(res.Turns), int(res.Sessions), len(d.Events), len(d.Engine), len(res.Rejects), len(res.Warnings)}
}

// inTurn ingests dirs one after another, as before campaigns were read in
// parallel, and returns the dataset's files and the results.
func inTurn(t *testing.T, dirs []string, opt rundir.Options) (map[string][]byte, []result, error) {
	t.Helper()
	root := t.TempDir()
	st, err := dataset.NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	var out []result
	for _, dir := range dirs {
		results, err := rundir.StreamAll(dir, opt, func(name string) (rundir.Sink, error) { return st.BeginRun(name) })
		if err != nil {
			st.Abort()
			return nil, out, err
		}
		for _, res := range results {
			if err := st.WriteRejects(res.Data.Run.Run, res.Rejects); err != nil {
				t.Fatal(err)
			}
			out = append(out, resultOf(res))
		}
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	return files(t, root), out, nil
}

// inParallel ingests dirs with Ingest, each run delayed at random as it
// begins, as it adds its first turn and as it finishes, so that runs finish
// in an order of their own.
func inParallel(t *testing.T, dirs []string, opt rundir.Options, workers int, seed uint64) (map[string][]byte, []result, error) {
	t.Helper()
	root := t.TempDir()
	st, err := dataset.NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, 7))
	delay := func() {
		mu.Lock()
		d := time.Duration(rng.IntN(3000)) * time.Microsecond
		mu.Unlock()
		time.Sleep(d)
	}
	begin := func(name string) (rundir.Sink, error) {
		delay()
		rw, err := st.BeginRun(name)
		if err != nil {
			return nil, err
		}
		return &slowSink{Sink: rw, delay: delay}, nil
	}
	var out []result
	var handed int // directories handed back
	var progressed []string
	o := Options{Run: opt, Workers: workers, Progress: func(done int, dir string, _, _ int64) {
		progressed = append(progressed, fmt.Sprint(done, " ", dir))
	}}
	err = Ingest(dirs, o, begin, func(i int, results []*rundir.Result) error {
		if i != handed {
			t.Errorf("results of directory %d handed back after %d others", i, handed)
		}
		handed++
		for _, res := range results {
			if err := st.WriteRejects(res.Data.Run.Run, res.Rejects); err != nil {
				t.Fatal(err)
			}
			out = append(out, resultOf(res))
		}
		return nil
	})
	if err != nil {
		st.Abort()
		return nil, out, err
	}
	for i, p := range progressed {
		if want := fmt.Sprint(i+1, " ", dirs[i]); p != want {
			t.Errorf("progress %d: %q, want %q", i, p, want)
			break
		}
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	return files(t, root), out, nil
}

// slowSink delays a run's first turn and its end.
type slowSink struct {
	rundir.Sink
	delay   func()
	delayed bool
}

func (s *slowSink) AddTurn(tn schema.Turn) error {
	if !s.delayed {
		s.delayed = true
		s.delay()
	}
	return s.Sink.AddTurn(tn)
}

func (s *slowSink) Finish(d *schema.RunData) error {
	s.delay()
	return s.Sink.Finish(d)
}

// files returns the files of the dataset at root by relative path: the
// tables' partitions and the rejects.
func files(t *testing.T, root string) map[string][]byte {
	t.Helper()
	parts, err := filepath.Glob(filepath.Join(root, "*", "run=*", dataset.FileName))
	if err != nil {
		t.Fatal(err)
	}
	rejects, _ := filepath.Glob(filepath.Join(root, dataset.RejectsDir, "*"))
	out := map[string][]byte{}
	for _, p := range append(parts, rejects...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(p, root)] = b
	}
	return out
}

func sameFiles(t *testing.T, got, want map[string][]byte, what string) {
	t.Helper()
	if len(got) != len(want) || len(want) == 0 {
		t.Errorf("%s: %d files, want %d", what, len(got), len(want))
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s: %s differs from the file written run by run", what, name)
		}
	}
}

// TestParallelSameBytesAsInTurn ingests a campaign run by run, then in
// parallel with runs finishing in random orders (3 workers; 1, 3 and 8 in
// make test-all), and checks that every file of the dataset has the same
// bytes and the results come back in the same order with the same counts.
func TestParallelSameBytesAsInTurn(t *testing.T) {
	dirs := campaignDirs(t)
	for _, lenient := range []bool{false, true} {
		opt := rundir.Options{Version: "test", Lenient: lenient}
		want, wantRes, err := inTurn(t, dirs, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(wantRes) <= len(dirs) {
			t.Fatalf("%d runs from %d directories: the campaign lacks a directory of several runs", len(wantRes), len(dirs))
		}
		workers := []int{3}
		if slowtest.All() { // make test-all sweeps the pool's sizes
			workers = []int{1, 3, 8}
		}
		for _, workers := range workers {
			got, gotRes, err := inParallel(t, dirs, opt, workers, uint64(workers))
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("lenient=%v workers=%d", lenient, workers)
			sameFiles(t, got, want, what)
			if !slices.Equal(gotRes, wantRes) {
				t.Errorf("%s: results %v, want %v", what, gotRes, wantRes)
			}
		}
	}
}

// TestFirstErrorInOrder puts a bad run and two runs of one name in a
// campaign: the error is the one met reading the runs in turn, and the
// results handed back are those of the runs before it.
func TestFirstErrorInOrder(t *testing.T) {
	dirs := campaignDirs(t)
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.CopyFS(bad, os.DirFS(dirs[1])); err != nil {
		t.Fatal(err)
	}
	gw := filepath.Join(bad, "gateway.jsonl")
	b, err := os.ReadFile(gw)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gw, append(b, "{not json\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(bad, rundir.ManifestName)
	if b, err = os.ReadFile(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m, regexp.MustCompile(`(?m)^run: .*$`).ReplaceAll(b, []byte("run: bad")), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := rundir.Options{Version: "test"}
	cases := map[string][]string{
		"bad line":      slices.Insert(slices.Clone(dirs), 4, bad),
		"name twice":    slices.Insert(slices.Clone(dirs), 5, dirs[2]),
		"both, in turn": slices.Insert(slices.Insert(slices.Clone(dirs), 6, bad), 3, dirs[7]),
	}
	for name, dirs := range cases {
		_, wantRes, wantErr := inTurn(t, dirs, opt)
		if wantErr == nil {
			t.Fatalf("%s: no error in turn", name)
		}
		for _, workers := range []int{2, 5} {
			_, gotRes, err := inParallel(t, dirs, opt, workers, uint64(workers)+10)
			if err == nil {
				t.Fatalf("%s, %d workers: no error", name, workers)
			}
			if !slices.Equal(gotRes, wantRes) {
				t.Errorf("%s, %d workers: results %v before the error, want %v", name, workers, gotRes, wantRes)
			}
			if name != "name twice" && err.Error() != wantErr.Error() {
				t.Errorf("%s, %d workers: error %q, want %q", name, workers, err, wantErr)
			}
			if name == "name twice" && !strings.Contains(err.Error(), filepath.Base(dirs[2])) {
				t.Errorf("%s: error %q does not name the run given twice", name, err)
			}
		}
	}
}

// TestDoneErrorStops checks that an error from Done stops the ingest at
// that run.
func TestDoneErrorStops(t *testing.T) {
	dirs := campaignDirs(t)
	st, err := dataset.NewStage(t.TempDir(), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Abort()
	stop := errors.New("stop")
	var seen []int
	err = Ingest(dirs, Options{Run: rundir.Options{Version: "test"}, Workers: 3},
		func(name string) (rundir.Sink, error) { return st.BeginRun(name) },
		func(i int, _ []*rundir.Result) error {
			seen = append(seen, i)
			if i == 2 {
				return stop
			}
			return nil
		})
	if !errors.Is(err, stop) || !slices.Equal(seen, []int{0, 1, 2}) {
		t.Errorf("error %v after runs %v; want %v after 0, 1, 2", err, seen, stop)
	}
}

// countingSink counts the Sinks open at once.
type countingSink struct {
	rundir.Sink
	open *atomic.Int64
}

func (s *countingSink) Finish(d *schema.RunData) error {
	defer s.open.Add(-1)
	return s.Sink.Finish(d)
}

func (s *countingSink) Abort() {
	defer s.open.Add(-1)
	s.Sink.Abort()
}

// TestRunsInFlightBounded checks that no more than Workers runs are read
// at once, and one at a time when their inputs exceed MaxBytes together.
func TestRunsInFlightBounded(t *testing.T) {
	dirs := campaignDirs(t)
	for _, c := range []struct {
		workers  int
		maxBytes int64
		want     int64
	}{{3, 1 << 40, 3}, {8, 1, 1}} {
		st, err := dataset.NewStage(t.TempDir(), "test")
		if err != nil {
			t.Fatal(err)
		}
		var open, most atomic.Int64
		begin := func(name string) (rundir.Sink, error) {
			rw, err := st.BeginRun(name)
			if err != nil {
				return nil, err
			}
			n := open.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(time.Millisecond)
			return &countingSink{Sink: rw, open: &open}, nil
		}
		err = Ingest(dirs, Options{Run: rundir.Options{Version: "test"}, Workers: c.workers, MaxBytes: c.maxBytes}, begin,
			func(int, []*rundir.Result) error { return nil })
		st.Abort()
		if err != nil {
			t.Fatal(err)
		}
		if most.Load() > c.want {
			t.Errorf("%d workers, %d bytes at most: %d runs read at once, want at most %d", c.workers, c.maxBytes, most.Load(), c.want)
		}
	}
}
