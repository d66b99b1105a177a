package runinit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
)

// TestInitRealExports runs init on real load generators' exports, each
// version's layout of the model and the load: GuideLLM v0.3 (the model
// under worker.backend_model, the strategy under args), v0.5, AIPerf
// 0.10, and inference-perf 0.6.1's config.yaml of a concurrent run.
func TestInitRealExports(t *testing.T) {
	for _, tc := range []struct {
		name  string
		dirs  []string // fixture directories whose files are put together
		want  []string // lines run.yaml must hold
		never []string
	}{
		{"guidellm-0.3", []string{"guidellm-0.3-pretty"}, []string{
			"  model: example_model             # from benchmarks.json",
			"workload: # from benchmarks.json (benchmarks[0].args.strategy)",
			"  load_strategy: synchronous",
			"  concurrency: 1",
		}, []string{"request_rate"}},
		{"guidellm-0.5", []string{"guidellm-0.5-sync"}, []string{
			"  model: Qwen/Qwen3-0.6B           # from benchmarks.json",
			"workload: # from benchmarks.json (benchmarks[0].config.strategy)",
			"  load_strategy: synchronous",
		}, nil},
		// A sampled report (sample_requests 10: two requests kept, both in
		// the last 3 s) of a 60 s Poisson benchmark capped at 512 in
		// flight: the span is the benchmark's (scheduler_metrics
		// start_time 1771584883.08 to end_time 1771584943.27), not its
		// sample's, and max_concurrency caps a schedule, it is no load.
		{"guidellm-0.5-poisson", []string{"guidellm-0.5-poisson"}, []string{
			"started_at: 2026-02-20T10:54:43Z   # the benchmark's start, to the second (benchmarks.json)",
			"duration_s: 61                     # to the benchmark's end",
			"  load_strategy: poisson",
			"  request_rate: 5                  # requests/s",
		}, []string{"concurrency"}},
		{"aiperf-0.10", []string{"aiperf-0.10-qwen36"}, []string{
			"  model: Qwen3-VL-30B-A3B-Instruct-optimumxt # from profile_export_aiperf.json",
			"  load_strategy: concurrency",
			"  concurrency: 2",
		}, []string{"request_rate"}},
		{"inference-perf-0.6.1", []string{"inference-perf-slo-lab-smoke", "inference-perf-slo-lab-config"}, []string{
			"  model: Qwen/Qwen3-8B             # from config.yaml",
			"workload: # from config.yaml (load.stages[0].concurrency_level)",
			"  load_strategy: concurrent",
			"  concurrency: 8",
		}, []string{"request_rate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), tc.name)
			for _, d := range tc.dirs {
				src := copyDir(t, filepath.Join(readertest.FixturesDir, d), d)
				if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := Init(dir, Options{}); err != nil {
				t.Fatal(err)
			}
			got := readManifest(t, dir)
			for _, w := range tc.want {
				if !strings.Contains(got, w+"\n") {
					t.Errorf("run.yaml lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tc.never {
				if strings.Contains(got, n) {
					t.Errorf("run.yaml gives %s:\n%s", n, got)
				}
			}
		})
	}
}

// TestInitDisaggregated runs init on a real prefill/decode-disaggregated
// SGLang deployment's logs (fixtures/real-wild/sglang-pd-2026), named
// prefill_NODE0.log and decode_NODE1.log: init gives them by role, and
// takes the engine, prefix caching and the KV pool from the prefill log.
func TestInitDisaggregated(t *testing.T) {
	dir := copyDir(t, filepath.Join(readertest.FixturesDir, "..", "real-wild", "sglang-pd-2026"), "pd")
	if _, err := Init(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	got := readManifest(t, dir)
	for _, w := range []string{
		"  name: sglang                     # from prefill_NODE0.log",
		"  prefix_caching: false            # from prefill_NODE0.log's startup arguments",
		"  kv_pool_tokens: 3454165          # from prefill_NODE0.log",
		"  prefill_log: prefill_NODE0.log",
		"  decode_log: decode_NODE1.log",
	} {
		if !strings.Contains(got, w+"\n") {
			t.Errorf("run.yaml lacks %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, "engine_log:") {
		t.Errorf("run.yaml names an engine log:\n%s", got)
	}
}

func readManifest(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "run.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
