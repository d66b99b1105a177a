package runinit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/ingest/manifest"
	"github.com/outlast-dev/outlast/internal/golden"
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
// anchors gets placeholders for its start, length and clock offset.
func TestInitWithoutClockAnchor(t *testing.T) {
	dir := copyDir(t, filepath.Join(readertest.FixturesDir, "inference-perf-0.6.1"), "r")
	p := filepath.Join(dir, "per_request_lifecycle_metrics.json")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.ReplaceAll(string(b), `\"created\":`, `\"created_at\":`)), 0o644)
	if _, err := Init(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "run.yaml"))
	for _, want := range []string{"started_at: <fill in>", "duration_s: <fill in>", "clock_offset_s: <fill in>", "# per_request_lifecycle_metrics.json: its times are inference-perf's"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("no %q in\n%s", want, got)
		}
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
