package runinit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/ingest/manifest"
	"github.com/outlast-dev/outlast/internal/golden"
	"github.com/outlast-dev/outlast/schema"
)

// copyDir copies the files of src, except run.yaml, into a new directory
// named name.
func copyDir(t *testing.T, src, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || e.Name() == "run.yaml" || e.Name() == "README.md" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestInit writes the manifest of each fixture run from its files and
// compares it with its golden file; ingest must refuse it until the
// placeholders are filled in.
func TestInit(t *testing.T) {
	for _, name := range []string{"vllm-2026", "sglang-2026", "aiperf-2025", "aiperf-2026", "guidellm-0.6.1", "guidellm-main", "inference-perf-0.6.1"} {
		t.Run(name, func(t *testing.T) {
			dir := copyDir(t, filepath.Join(readertest.FixturesDir, name), name)
			if _, err := Init(dir, Options{}); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "run.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", name+".yaml"), got)
			_, err = manifest.Parse(got, "run.yaml")
			if err == nil || !strings.Contains(err.Error(), "run.yaml:6: experiment: still holds outlast init's placeholder") {
				t.Errorf("the manifest is not refused for its placeholder: %v", err)
			}
			// Filled in, it parses.
			filled := strings.NewReplacer(
				"experiment: <fill in>", "experiment: e", "design: <fill in>", "design: observe", "arm: <fill in>", "arm: none",
				"kind: <fill in>", "kind: none", "prefix_caching: <fill in>", "prefix_caching: true", "name: <fill in>", "name: vllm",
			).Replace(string(got))
			var lines []string
			for _, l := range strings.Split(filled, "\n") {
				if !strings.HasPrefix(l, "seed: ") {
					lines = append(lines, l)
				}
			}
			if _, err := manifest.Parse([]byte(strings.Join(lines, "\n")), "run.yaml"); err != nil {
				t.Errorf("filled in: %v", err)
			}
		})
	}
}

func TestInitNeverOverwrites(t *testing.T) {
	dir := copyDir(t, filepath.Join(readertest.FixturesDir, "aiperf-2026"), "r")
	os.WriteFile(filepath.Join(dir, "run.yaml"), []byte("mine"), 0o644)
	if _, err := Init(dir, Options{}); err == nil || !strings.Contains(err.Error(), "never overwrites") {
		t.Errorf("%v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "run.yaml")); string(b) != "mine" {
		t.Error("run.yaml was overwritten")
	}
}

func TestInitFilesInsideTheDirectory(t *testing.T) {
	dir := copyDir(t, filepath.Join(readertest.FixturesDir, "aiperf-2026"), "r")
	os.Rename(filepath.Join(dir, "engine.log"), filepath.Join(dir, "vllm.out"))
	f, err := Gather(dir, Options{EngineLog: "vllm.out"})
	if err != nil || f.EngineLog != "vllm.out" || f.Engine.Name != "vllm" || f.Engine.KVPoolTokens != 400000 {
		t.Errorf("%+v %v", f, err)
	}
	outside := filepath.Join(t.TempDir(), "engine.log")
	os.WriteFile(outside, []byte("x\n"), 0o644)
	if _, err := Gather(dir, Options{EngineLog: outside}); err == nil || !strings.Contains(err.Error(), "outside the run directory") {
		t.Errorf("%v", err)
	}
}

// TestInitWithoutClockAnchor checks that an inference-perf export nothing
// anchors gets placeholders for its start, length and clock offset, and
// that its requests are counted all the same (those that read without
// error, as for every format).
func TestInitWithoutClockAnchor(t *testing.T) {
	noCreated := func(s string) string { return strings.ReplaceAll(s, `\"created\":`, `\"created_at\":`) }
	tests := []struct {
		name     string
		edit     func(string) string
		requests int
	}{
		{"no created stamps", noCreated, 48},
		{"and a bad record", func(s string) string {
			return strings.Replace(noCreated(s), `"start_time": 734514.4219684772`, `"start_time": "soon"`, 1)
		}, 47},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, filepath.Join(readertest.FixturesDir, "inference-perf-0.6.1"), "r")
			p := filepath.Join(dir, "per_request_lifecycle_metrics.json")
			b, _ := os.ReadFile(p)
			edited := tc.edit(string(b))
			if edited == string(b) {
				t.Fatal("the edit changes nothing")
			}
			os.WriteFile(p, []byte(edited), 0o644)
			f, err := Init(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !f.ClockUnknown || f.Requests != tc.requests {
				t.Errorf("clock unknown %v, %d requests; want true, %d", f.ClockUnknown, f.Requests, tc.requests)
			}
			got, _ := os.ReadFile(filepath.Join(dir, "run.yaml"))
			for _, want := range []string{"started_at: <fill in>", "duration_s: <fill in>", "clock_offset_s: <fill in>", "# per_request_lifecycle_metrics.json: its times are inference-perf's"} {
				if !strings.Contains(string(got), want) {
					t.Errorf("no %q in\n%s", want, got)
				}
			}
		})
	}
}

func TestInitSweep(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sw")
	os.MkdirAll(dir, 0o755)
	b, _ := os.ReadFile("../guidellm/testdata/sweep.json")
	os.WriteFile(filepath.Join(dir, "benchmarks.json"), b, 0o644)
	f, err := Init(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "run.yaml"))
	if f.Benchmarks != 2 || !strings.Contains(string(got), "ingest makes one run per benchmark") || !strings.Contains(string(got), "sw-b0 ... sw-b1") {
		t.Errorf("%d benchmarks:\n%s", f.Benchmarks, got)
	}
}

// TestInitFindsTheFormat checks the format and request count init finds
// for exports whose first bytes are not the usual: an indented GuideLLM
// report (v0.3.1's json.dump indent=4), and an AIPerf development build's
// records, known by the file's name, none of which reads.
func TestInitFindsTheFormat(t *testing.T) {
	aiperfDev := `{"metadata":{"x_request_id":"c087da26-5552-4785-958a-cad75c7b22de","x_correlation_id":"51a3af05-bcd3-4ad6-ab75-3eec065ffe6c",` +
		`"conversation_id":"82c50e66-608b-4cc1-bcab-a71090077120","turn_index":0,"timestamp_ns":1759522419154829652,"worker_id":"worker_1d62deaa",` +
		`"record_processor_id":"record_processor_ef1716ef","credit_phase":"profiling"},"metrics":{"error_request_count":{"value":1,"unit":"requests"}},` +
		`"error":{"code":499,"type":"RequestCancellationError","message":"Request was cancelled after 0.000 seconds"}}` + "\n"
	pretty, err := os.ReadFile(filepath.Join(readertest.FixturesDir, "guidellm-0.3-pretty", "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file, text, format string
		requests           int
	}{
		{"benchmarks.json", string(pretty), schema.GatewayGuideLLM, 1},
		// ai-dynamo/aiperf@7c31f579 examples/artifacts/run1/profile_export.jsonl, line 1.
		{"profile_export.jsonl", aiperfDev, schema.GatewayAIPerf, 0},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "r")
			os.MkdirAll(dir, 0o755)
			if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Gather(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if f.Gateway != tc.file || f.GatewayFormat != tc.format || f.Requests != tc.requests {
				t.Errorf("%s (%s, %d requests), want %s (%s, %d requests)", f.Gateway, f.GatewayFormat, f.Requests, tc.file, tc.format, tc.requests)
			}
		})
	}
}

// TestInitFromMetrics checks what init takes from the metrics when the
// engine log does not say it: the engine from the series' names, the KV
// pool, and prefix caching from cache_config_info, before the engine's
// default (as ingest takes them).
func TestInitFromMetrics(t *testing.T) {
	tests := []struct {
		name, from, to string
		want           []string
	}{
		{"stated on", "", "", []string{
			"  name: vllm                       # from metrics.prom's series names",
			"  prefix_caching: true             # from metrics.prom's cache_config_info (enable_prefix_caching)",
			"  kv_pool_tokens: 400000           # from metrics.prom",
			"  # version: unknown: no engine log to say it",
		}},
		{"stated off", `enable_prefix_caching="True"`, `enable_prefix_caching="False"`, []string{
			"  prefix_caching: false            # from metrics.prom's cache_config_info (enable_prefix_caching)",
		}},
		{"not stated", `enable_prefix_caching="True",`, ``, []string{
			"  prefix_caching: true             # the engine's default: no engine log says otherwise",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, filepath.Join(readertest.FixturesDir, "vllm-2026"), "r")
			os.Remove(filepath.Join(dir, "engine.log"))
			p := filepath.Join(dir, "metrics.prom")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if tc.from != "" {
				if !strings.Contains(string(b), tc.from) {
					t.Fatalf("fixture has no %s", tc.from)
				}
				os.WriteFile(p, []byte(strings.ReplaceAll(string(b), tc.from, tc.to)), 0o644)
			}
			if _, err := Init(dir, Options{}); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(filepath.Join(dir, "run.yaml"))
			for _, w := range tc.want {
				if !strings.Contains(string(got), w) {
					t.Errorf("no line %q in\n%s", w, got)
				}
			}
		})
	}
}

// TestInitSampledGuideLLM checks that init says when a GuideLLM report's
// requests were sampled, which ingest refuses.
func TestInitSampledGuideLLM(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	os.MkdirAll(dir, 0o755)
	b, err := os.ReadFile(filepath.Join("..", "guidellm", "testdata", "sampled.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "benchmarks.json"), b, 0o644)
	if _, err := Init(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "run.yaml"))
	for _, w := range []string{"were sampled", "outlast ingest refuses", "--lenient"} {
		if !strings.Contains(string(got), w) {
			t.Errorf("no %q in\n%s", w, got)
		}
	}
}
