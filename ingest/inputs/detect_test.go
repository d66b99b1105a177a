package inputs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/outlast-dev/outlast/schema"
)

func fixture(name string) string { return filepath.Join("..", "..", "fixtures", "real", name) }

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// aiperfDevRecord is the first line of a profile_export.jsonl written by
// an AIPerf development build (ai-dynamo/aiperf@7c31f57933ad8a452db7737d05dba2b29cd6bf8c,
// examples/artifacts/run1/profile_export.jsonl, 2025-10-03): credit_phase
// and timestamp_ns where released builds write benchmark_phase and
// request_start_ns, so no first-bytes sniff knows it.
const aiperfDevRecord = `{"metadata":{"x_request_id":"c087da26-5552-4785-958a-cad75c7b22de","x_correlation_id":"51a3af05-bcd3-4ad6-ab75-3eec065ffe6c",` +
	`"conversation_id":"82c50e66-608b-4cc1-bcab-a71090077120","turn_index":0,"timestamp_ns":1759522419154829652,"worker_id":"worker_1d62deaa",` +
	`"record_processor_id":"record_processor_ef1716ef","credit_phase":"profiling"},"metrics":{"error_request_count":{"value":1,"unit":"requests"}},` +
	`"error":{"code":499,"type":"RequestCancellationError","message":"Request was cancelled after 0.000 seconds"}}`

// TestDetectByContentThenName checks that a load generator's export is
// recognised in any JSON layout, and by its name when its first bytes
// show no format outlast knows.
func TestDetectByContentThenName(t *testing.T) {
	pretty := readFile(t, fixture("guidellm-0.3-pretty")+"/benchmarks.json")
	aiperf25, _, _ := strings.Cut(readFile(t, fixture("aiperf-2025")+"/profile_export.jsonl"), "\n")
	spaced := jsontext.Value(aiperf25)
	if err := spaced.Format(jsontext.SpaceAfterColon(true), jsontext.SpaceAfterComma(true)); err != nil {
		t.Fatal(err)
	}
	const outlastLine = `{"ts":1.5,"ev":"turn","session":"s","turn":0}` + "\n"
	tests := []struct{ name, file, head, want string }{
		{"GuideLLM v0.3.1 indent=4", "benchmarks.json", pretty, schema.GatewayGuideLLM},
		{"GuideLLM indent=4 under another name", "gateway.jsonl", pretty, schema.GatewayGuideLLM},
		{"GuideLLM v0.7+ indent=1", "x.json", "{\n \"metadata\": {\n  \"version\": 2,\n  \"guidellm_version\": \"0.8.0.dev18\"\n },\n \"config\": {", schema.GatewayGuideLLM},
		{"AIPerf record re-dumped with spaces", "x.jsonl", string(spaced) + "\n", schema.GatewayAIPerf},
		{"inference-perf indent=2", "x.json", "[\n  {\n    \"start_time\": 1.5,", schema.GatewayInferencePerf},
		{"AIPerf dev build by name", "profile_export.jsonl", aiperfDevRecord + "\n", schema.GatewayAIPerf},
		{"AIPerf dev build by name, compressed", "profile_export.jsonl.zst", aiperfDevRecord + "\n", schema.GatewayAIPerf},
		{"AIPerf dev build under another name", "run1.jsonl", aiperfDevRecord + "\n", schema.GatewayOutlast},
		{"an empty GuideLLM report by name", "benchmarks.json", "", schema.GatewayGuideLLM},
		{"a GuideLLM YAML report by name", "benchmarks.yaml", "# a comment first\nbenchmarks: []\n", schema.GatewayGuideLLM},
		{"inference-perf by name", "per_request_lifecycle_metrics.json", "[]", schema.GatewayInferencePerf},
		{"outlast's own log", "gateway.jsonl", outlastLine, schema.GatewayOutlast},
		{"content decides over the name", "profile_export.jsonl", pretty, schema.GatewayGuideLLM},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			head := tc.head
			if len(head) > 4096 {
				head = head[:4096] // what Detect reads
			}
			if got := detect(tc.file, []byte(head)).Name; got != tc.want {
				t.Errorf("detect(%s) = %s, want %s", tc.file, got, tc.want)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	for path, want := range map[string]string{
		fixture("vllm-2026") + "/gateway.jsonl":                                 "outlast",
		fixture("aiperf-2025") + "/profile_export.jsonl":                        "aiperf",
		fixture("aiperf-2026") + "/profile_export.jsonl":                        "aiperf",
		fixture("guidellm-main") + "/benchmarks.json":                           "guidellm",
		"../guidellm/testdata/main.yaml":                                        "guidellm",
		"../guidellm/testdata/v0.3.1-stripped.yaml":                             "guidellm",
		fixture("inference-perf-0.6.1") + "/per_request_lifecycle_metrics.json": "inference-perf",
	} {
		if got, err := Detect(path); err != nil || got != want {
			t.Errorf("%s: %s, %v; want %s", path, got, err, want)
		}
	}
}

// FuzzDetect feeds any bytes to detect, which must not panic, and checks
// that the format of a JSON document does not depend on its layout: the
// same value compact, with spaces after colons and commas, or indented
// (not a JSON-lines record then) is detected alike.
func FuzzDetect(f *testing.F) {
	f.Add(`{"benchmarks": []}`)
	f.Add(`{"metadata": {"version": 2}, "config": {}, "benchmarks": []}`)
	f.Add(`{"metadata":{"benchmark_phase":"profiling","request_start_ns":1},"metrics":{}}`)
	f.Add(`[{"start_time": 1.5, "end_time": 2}]`)
	f.Add(aiperfDevRecord)
	f.Add("benchmarks:\n- requests: {}\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, name := range []string{"gateway.jsonl", "profile_export.jsonl"} {
			detect(name, []byte(text)) // must not panic
			v := jsontext.Value(text)
			if !v.IsValid() {
				continue
			}
			compact, spaced, indented := v.Clone(), v.Clone(), v.Clone()
			if compact.Compact() != nil || spaced.Format(jsontext.SpaceAfterColon(true), jsontext.SpaceAfterComma(true)) != nil || indented.Indent() != nil {
				continue
			}
			c := detect(name, compact).Name
			if s := detect(name, spaced).Name; s != c {
				t.Errorf("%s: compact %s, spaced %s: %q", name, c, s, spaced)
			}
			if i := detect(name, indented).Name; i != c && c != schema.GatewayAIPerf {
				t.Errorf("%s: compact %s, indented %s: %q", name, c, i, indented)
			}
		}
	})
}
