package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/internal/cputime"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
)

// tinyRuns writes n runs of one session of one turn each: what ingesting a
// run costs whatever its size.
func tinyRuns(b *testing.B, n int) []string {
	b.Helper()
	root := b.TempDir()
	var dirs []string
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("r%04d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		manifest := fmt.Sprintf("format: outlast-run/1\nrun: r%04d\nexperiment: tiny\ndesign: observe\narm: none\n"+
			"started_at: 2026-01-01T00:00:00Z\nduration_s: 60\nengine:\n  name: vllm\n  version: 0.10.0\n  model: m\n  prefix_caching: true\n", i)
		gw := `{"ts":1767225601,"ev":"session_start","session":"s1","origin":"base"}` + "\n" +
			`{"ts":1767225602,"ev":"turn","session":"s1","turn":0,"prompt_tokens":100,"cached_tokens":0,"output_tokens":10}` + "\n" +
			`{"ts":1767225603,"ev":"session_end","session":"s1","status":"done","turns_done":1}` + "\n"
		if err := os.WriteFile(filepath.Join(dir, rundir.ManifestName), []byte(manifest), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "gateway.jsonl"), []byte(gw), 0o644); err != nil {
			b.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

// ingestAll ingests dirs into a new dataset under root and commits it.
func ingestAll(b *testing.B, root string, dirs []string, workers int) {
	b.Helper()
	out, err := os.MkdirTemp(root, "ds")
	if err != nil {
		b.Fatal(err)
	}
	st, err := dataset.NewStage(out, "bench")
	if err != nil {
		b.Fatal(err)
	}
	err = Ingest(dirs, Options{Run: rundir.Options{Version: "bench"}, Workers: workers},
		func(name string) (rundir.Sink, error) { return st.BeginRun(name) },
		func(_ int, results []*rundir.Result) error {
			for _, res := range results {
				if err := st.WriteRejects(res.Data.Run.Run, res.Rejects); err != nil {
					return err
				}
			}
			return nil
		})
	if err != nil {
		b.Fatal(err)
	}
	if err := st.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRunFixedCost ingests a campaign of runs of three gateway lines
// each, as outlast ingest does (on every core): the time per run is what a
// run costs beside its data (manifest, five Parquet files written and
// synced, staging and commit). cpu-ms/run is the process's CPU time (user
// and system) per run, which a busy machine moves far less.
func BenchmarkRunFixedCost(b *testing.B) {
	dirs := tinyRuns(b, 100)
	out := b.TempDir()
	b.ReportAllocs()
	defer cputime.Report(b, "cpu-ms/run", len(dirs))()
	for b.Loop() {
		ingestAll(b, out, dirs, 0)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(dirs)), "ms/run")
}

// BenchmarkCampaign ingests 20 simulated 60-minute paired runs (gateway
// log and manifest only, about 0.6 MB each, as in the campaign of
// docs/performance.md) on every core.
func BenchmarkCampaign(b *testing.B) { benchCampaign(b, false) }

// BenchmarkCampaignWhole ingests the same runs whole (with their engine
// logs and scrapes, about 1.7 MB each), as the whole-run campaign of
// docs/performance.md does.
func BenchmarkCampaignWhole(b *testing.B) { benchCampaign(b, true) }

func benchCampaign(b *testing.B, whole bool) {
	cfg, err := sim.Defaults(schema.DesignPaired)
	if err != nil {
		b.Fatal(err)
	}
	cfg.Seeds, cfg.DurationS = 10, 3600
	paths, err := sim.WriteExperiment(b.TempDir(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	var bytes int64
	for _, p := range paths {
		for _, f := range []string{"engine.log", "metrics.prom"} {
			if !whole {
				if err := os.Remove(filepath.Join(p, f)); err != nil {
					b.Fatal(err)
				}
			}
		}
		bytes += Size(p)
	}
	out := b.TempDir()
	b.SetBytes(bytes)
	b.ReportAllocs()
	defer cputime.Report(b, "cpu-ms/run", len(paths))()
	for b.Loop() {
		ingestAll(b, out, paths, 0)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(paths)), "ms/run")
}
