package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/internal/golden"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

func parseFile(t testing.TB, path string) (*Manifest, error) {
	t.Helper()
	return Parse(readertest.ReadFile(t, path), "run.yaml")
}

// runJSON renders the flattened run as indented JSON for golden files.
func runJSON(t testing.TB, m *Manifest) []byte {
	t.Helper()
	b, err := json.MarshalIndent(m.Run(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestBad checks the exact message of each invalid manifest in
// testdata/bad against its golden file.
func TestBad(t *testing.T) {
	for _, file := range golden.Glob(t, "testdata/bad/*.yaml") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			m, err := parseFile(t, file)
			if err == nil {
				t.Fatalf("parsed: %+v", m)
			}
			var perr *textpos.ParseError
			if !errors.As(err, &perr) || perr.Pos.File != "run.yaml" || perr.Pos.Line < 1 {
				t.Errorf("%v (%T) is not a positioned ParseError", err, err)
			}
			golden.Check(t, strings.TrimSuffix(file, ".yaml")+".golden", []byte(err.Error()+"\n"))
		})
	}
}

// TestMessages pins the messages the format's documentation quotes.
func TestMessages(t *testing.T) {
	tests := map[string]string{
		"testdata/bad/bool-yes-please.yaml": `run.yaml:10: engine.prefix_caching: want true or false, got "yes please"`,
		"testdata/bad/format-v2.yaml":       `run.yaml:1: format: unsupported version "outlast-run/2": this outlast reads outlast-run/1`,
		"testdata/bad/unknown-top-key.yaml": `run.yaml:9: unknown key "desing" (did you mean design?); known keys: format, run, experiment, design, seed, arm, started_at, duration_s, engine, workload, trigger, control, labels, files`,
	}
	for file, want := range tests {
		_, err := parseFile(t, file)
		if err == nil || err.Error() != want {
			t.Errorf("%s:\ngot  %v\nwant %s", file, err, want)
		}
	}
}

func TestGood(t *testing.T) {
	for _, file := range golden.Glob(t, "testdata/good/*.yaml") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			m, err := parseFile(t, file)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, strings.TrimSuffix(file, ".yaml")+".golden.json", runJSON(t, m))
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestSpecExample checks the example of docs/run-format.md field by field.
func TestSpecExample(t *testing.T) {
	m, err := parseFile(t, "testdata/good/spec-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := schema.Run{
		Run: "s501-burst", Experiment: "paired-8b", Design: "paired", Seed: ptr[int64](501), Arm: "burst",
		StartedAt: time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC), DurationS: 5400,
		EngineName: "vllm", EngineVersion: "0.20.2rc1.dev253", EngineModel: "Qwen/Qwen3-8B", PrefixCaching: true,
		KVPoolTokens: ptr[int64](400000), KVPoolSource: "manifest", CPUOffloadTokens: ptr[int64](0), LogTZ: "UTC",
		ArrivalRate: ptr(0.035), Turns: ptr[int64](25), ThinkMeanS: ptr(5.0), SystemTokens: ptr[int64](2048),
		TaskTokens: ptr[int64](4096), OutputTokens: ptr[int64](300), ToolTokens: ptr[int64](1024), WorkloadExtra: "{}",
		TriggerKind: "burst", TriggerStartS: ptr(900.0), TriggerEndS: ptr(1200.0), TriggerExtraRate: ptr(0.0525),
		TriggerRateAfter: ptr(0.010), TriggerExtra: "{}",
		ControlKind: "budgeter", ControlStartS: ptr(1200.0), ControlParams: `{"high":0.95,"low":0.75}`,
		AlignS: 1200, Labels: `{"gpu":"MI300X"}`,
	}
	got, _ := json.Marshal(m.Run())
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("Run()\ngot  %s\nwant %s", got, wantJSON)
	}
	if !reflect.DeepEqual(m.Files, Files{Gateway: "gateway.jsonl", EngineLog: "engine.log", Metrics: "metrics.prom"}) {
		t.Errorf("Files = %+v, want the defaults", m.Files)
	}
}

func TestExtras(t *testing.T) {
	m, err := parseFile(t, "testdata/good/extras.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := m.Run()
	checks := []struct{ name, got, want string }{
		// Unquoted 0.10 is a YAML float; the text as written is kept.
		{"version", r.EngineVersion, "0.10"},
		{"arm through an alias", r.Arm, "session-cap"},
		{"workload extra", r.WorkloadExtra, `{"alpha":{"a":{"c":"<&>"},"b":1},"turns_dist":"session-cap","zeta":[1,2.5,"three",true,null]}`},
		{"trigger extra", r.TriggerExtra, `{"note":"halves"}`},
		{"params", r.ControlParams, `{"max":12}`},
		{"labels", r.Labels, `{"gpu":"H100","site":"","tp":"2"}`},
		{"files", m.Files.Gateway + " " + m.Files.EngineLog + " " + m.Files.Metrics + " " + m.Files.MetricsFormat, "logs/gateway.jsonl.zst engine.log.gz metrics.prom query-range"},
		{"log tz", r.LogTZ, "Europe/Paris"},
		{"kv source without a pool", r.KVPoolSource, ""},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
	if r.Seed != nil || r.PrefixCaching || m.Engine.PrefixCaching == nil || r.EngineModel != "" {
		t.Errorf("seed %v, prefix caching %v (%v), model %q: want null seed, explicit false, empty model", r.Seed, r.PrefixCaching, m.Engine.PrefixCaching, r.EngineModel)
	}
	// A rate-change trigger without end_s: windows align to control.start_s.
	if r.AlignS != 50 {
		t.Errorf("AlignS = %v, want control.start_s 50", r.AlignS)
	}
	loc, err := m.Location()
	if err != nil || loc.String() != "Europe/Paris" {
		t.Errorf("Location() = %v, %v", loc, err)
	}
}

func TestMinimal(t *testing.T) {
	m, err := parseFile(t, "testdata/good/minimal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := m.Run()
	// 23:59:59.5 at +01:00 is 22:59:59.5 UTC.
	if want := time.Date(2025, 12, 31, 22, 59, 59, 5e8, time.UTC); !r.StartedAt.Equal(want) || r.StartedAt.Location() != time.UTC {
		t.Errorf("StartedAt = %v, want %v", r.StartedAt, want)
	}
	if r.AlignS != 0 || r.LogTZ != "UTC" || r.TriggerKind != "" || r.ControlKind != "" || r.Labels != "{}" || r.WorkloadExtra != "{}" || r.TriggerExtra != "{}" || r.ControlParams != "{}" {
		t.Errorf("defaults wrong: %+v", r)
	}
	if r.PrefixCaching || m.Engine.PrefixCaching != nil {
		t.Errorf("prefix caching not stated: want nil and false")
	}
	if loc, err := m.Location(); err != nil || loc != time.UTC {
		t.Errorf("Location() = %v, %v; want UTC", loc, err)
	}
}

// TestFixtures parses the fixture runs' manifests and checks the values
// each fixture was written with.
func TestFixtures(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(readertest.FixturesDir, "*", "run.yaml"))
	if len(dirs) != 10 {
		t.Fatalf("%d fixture manifests, want 10", len(dirs))
	}
	want := map[string]string{
		"vllm-0.8":    "observe none 2025-03-20T14:00:00Z vllm 0.8.2 pool=- source= align=0",
		"vllm-0.10":   "paired burst 2025-09-02T05:20:00Z vllm 0.10.1 pool=400000 source=manifest align=180",
		"vllm-2026":   "recovery budgeter 2026-10-27T12:00:00Z vllm 0.28.0 pool=- source= align=180",
		"sglang-0.4":  "observe none 2025-03-20T08:00:00Z sglang 0.4.4 pool=- source= align=0",
		"sglang-2026": "paired no-burst 2026-07-20T10:15:00Z sglang 0.5.15 pool=- source= align=180",
		// Written by outlast init, completed by hand.
		"aiperf-2025":          "observe none 2025-10-07T15:13:21Z vllm  pool=- source= align=0",
		"aiperf-2026":          "observe none 2026-10-27T12:00:20Z vllm 0.28.0 pool=400000 source=manifest align=0",
		"guidellm-0.6.1":       "observe none 2026-10-27T12:00:02Z vllm 0.28.0 pool=400000 source=manifest align=0",
		"guidellm-main":        "observe none 2026-10-27T12:00:02Z vllm 0.28.0 pool=400000 source=manifest align=0",
		"inference-perf-0.6.1": "observe none 2026-10-27T12:00:02Z vllm 0.28.0 pool=400000 source=manifest align=0",
	}
	for _, path := range dirs {
		run := filepath.Base(filepath.Dir(path))
		t.Run(run, func(t *testing.T) {
			m, err := parseFile(t, path)
			if err != nil {
				t.Fatal(err)
			}
			r := m.Run()
			pool := "-"
			if r.KVPoolTokens != nil {
				pool = fmt.Sprint(*r.KVPoolTokens)
			}
			got := fmt.Sprintf("%s %s %s %s %s pool=%s source=%s align=%v", r.Design, r.Arm, r.StartedAt.Format(time.RFC3339),
				r.EngineName, r.EngineVersion, pool, r.KVPoolSource, r.AlignS)
			if got != want[run] {
				t.Errorf("got  %s\nwant %s", got, want[run])
			}
			// The load generators' runs last from their first request to
			// their last (outlast init); the others were planned for 300 s.
			if r.Run != run || (r.DurationS != 300 && m.Files.GatewayFormat == "") || r.EngineModel != "Qwen/Qwen3-8B" || !r.PrefixCaching {
				t.Errorf("run %q duration %v model %q caching %v", r.Run, r.DurationS, r.EngineModel, r.PrefixCaching)
			}
			golden.Check(t, filepath.Join("testdata", "fixtures", run+".golden.json"), runJSON(t, m))
		})
	}
}

func FuzzManifest(f *testing.F) {
	for _, pattern := range []string{"testdata/good/*.yaml", "testdata/bad/*.yaml", readertest.FixturesDir + "/*/run.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			f.Add(readertest.ReadFile(f, file))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data, "run.yaml")
		if err != nil {
			var perr *textpos.ParseError
			if !errors.As(err, &perr) || perr.Pos.Line < 1 {
				t.Fatalf("error %v (%T) is not positioned", err, err)
			}
			return
		}
		r := m.Run()
		if r.Run == "" || r.Experiment == "" || r.Arm == "" || r.EngineName == "" || r.DurationS <= 0 || r.StartedAt.IsZero() {
			t.Fatalf("required field empty: %+v", r)
		}
		if r.TriggerStartS != nil && r.TriggerEndS != nil && *r.TriggerEndS < *r.TriggerStartS {
			t.Fatalf("trigger ends before it starts")
		}
		for _, s := range []string{r.WorkloadExtra, r.TriggerExtra, r.ControlParams, r.Labels} {
			if !json.Valid([]byte(s)) {
				t.Fatalf("not JSON: %q", s)
			}
		}
		if _, err := m.Location(); err != nil {
			t.Fatalf("Location: %v", err)
		}
	})
}
