package rundir

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// sniffManifest is the manifest of the run directories of these tests:
// it names no gateway log nor its format, so the log is found by name and
// its format by Detect.
const sniffManifest = "format: outlast-run/1\nrun: sniff\nexperiment: e\ndesign: observe\narm: none\nstarted_at: 2025-06-05T20:59:28Z\nduration_s: 31\n" +
	"engine: {name: vllm, model: example_model, prefix_caching: true}\n"

// sniffRun writes a run directory holding the file name with text and the
// manifest sniffManifest.
func sniffRun(t *testing.T, name, text string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sniff")
	writeFile(t, filepath.Join(dir, name), text)
	writeFile(t, filepath.Join(dir, ManifestName), sniffManifest)
	return dir
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

// TestPrettyGuideLLMReportIngests reads a run directory holding the
// indented GuideLLM v0.3 report of fixtures/real/guidellm-0.3-pretty with
// no files.gateway_format: the format is found from the file, strict
// reading refuses it in GuideLLM's terms (the report is sampled), lenient
// reading gives its one request and keeps the sampling as the run's reject
// (runs.rejected_lines), so that the dataset says the run is a sample.
func TestPrettyGuideLLMReportIngests(t *testing.T) {
	dir := sniffRun(t, "benchmarks.json", readFile(t, fixture("guidellm-0.3-pretty")+"/benchmarks.json"))
	_, err := Read(dir, Options{Version: "test"})
	if err == nil || !strings.Contains(err.Error(), "benchmarks.json:1067:31: benchmarks[0]: the file holds 1 of the 46 successful, 0 of the 1 incomplete requests GuideLLM counted") {
		t.Errorf("strict: %v, want GuideLLM's sampled-report error", err)
	}
	res := read(t, dir, Options{Version: "test", Lenient: true})
	r := res.Data.Run
	if r.GatewayFormat != schema.GatewayGuideLLM || len(res.Data.Turns) != 1 || len(res.Rejects) != 1 || r.RejectedLines != 1 {
		t.Fatalf("format %q, %d turns, rejects %v", r.GatewayFormat, len(res.Data.Turns), res.Rejects)
	}
	tr := res.Data.Turns[0]
	got := fmt.Sprintf("%s sent=%.6f first=%.6f done=%.6f %d/%d %s", tr.Session, *tr.SentS, *tr.FirstTokenS, tr.DoneS, tr.PromptTokens, tr.OutputTokens, tr.Status)
	if want := "73054dd1-486f-4894-a861-075750b82453 sent=0.182700 first=0.203982 done=0.871885 257/128 ok"; got != want {
		t.Errorf("turn %s\nwant %s", got, want)
	}
}

// TestAIPerfExportRefusedInAIPerfTerms reads a run whose
// profile_export.jsonl comes from an AIPerf development build: it is read
// as AIPerf's export because of its name, and refused with the AIPerf
// reader's reason, not as a bad line of outlast's own gateway log.
func TestAIPerfExportRefusedInAIPerfTerms(t *testing.T) {
	dir := sniffRun(t, "profile_export.jsonl", aiperfDevRecord+"\n")
	_, err := Read(dir, Options{Version: "test"})
	want := "profile_export.jsonl:1: missing required field metadata.benchmark_phase: the record has credit_phase instead, the shape of an AIPerf development build"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestSummaryFilesAreRefusedByName checks that a run directory offering
// a load generator's summary (aggregate statistics, no request) as its
// gateway log is refused by what the file is, naming the per-request
// export to use, not as a bad line of outlast's own gateway log. The
// inference-perf files are real (fixtures/real/inference-perf-demo-kubecon-na-2025).
func TestSummaryFilesAreRefusedByName(t *testing.T) {
	demo := fixture("inference-perf-demo-kubecon-na-2025")
	tests := []struct{ name, text, want string }{
		{"stage_0_lifecycle_metrics.json", readFile(t, demo+"/stage_0_lifecycle_metrics.json"),
			"stage_0_lifecycle_metrics.json: not a gateway log: an inference-perf summary report (distributions, no request records): " +
				"outlast reads per_request_lifecycle_metrics.json, which inference-perf writes with report.request_lifecycle.per_request: true in its config"},
		{"summary_lifecycle_metrics.json", readFile(t, demo+"/summary_lifecycle_metrics.json"), "summary_lifecycle_metrics.json: not a gateway log: an inference-perf summary report"},
		{"stage_0_prometheus_metrics.json", readFile(t, demo+"/stage_0_prometheus_metrics.json"), "stage_0_prometheus_metrics.json: not a gateway log: an inference-perf summary report"},
		{"per_session_lifecycle_metrics.json", `[{"session_id": "s"}]`, "per_session_lifecycle_metrics.json: not a gateway log: inference-perf's per-session report"},
		{"profile_export_aiperf.json", readFile(t, fixture("aiperf-2026")+"/profile_export_aiperf.json"),
			"profile_export_aiperf.json: not a gateway log: AIPerf's summary (aggregate statistics, no request records): outlast reads its per-request export, profile_export.jsonl"},
		{"profile_export_aiperf_timeslices.csv", "Timeslice,Metric\n", "profile_export_aiperf_timeslices.csv: not a gateway log: AIPerf's summary"},
		{"run7.json (--profile-export-prefix run7)", readFile(t, fixture("aiperf-2026")+"/profile_export_aiperf.json"), "run7.json: not a gateway log: AIPerf's summary"},
		{"benchmarks.csv", "Benchmark,Run Index\n", "benchmarks.csv: not a gateway log: GuideLLM's summary (per-benchmark statistics, no request records): outlast reads the report, benchmarks.json or benchmarks.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sniff")
			file, _, _ := strings.Cut(tc.name, " ")
			writeFile(t, filepath.Join(dir, file), tc.text)
			writeFile(t, filepath.Join(dir, ManifestName), sniffManifest+"files: {gateway: "+file+"}\n")
			_, err := Read(dir, Options{Version: "test"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}

// TestSummaryBesideNoGatewayIsNamed reads a run directory holding only
// run.yaml and inference-perf's stage summary, with no files.gateway:
// the error names the summary and what to give instead, not only the
// missing gateway.jsonl.
func TestSummaryBesideNoGatewayIsNamed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sniff")
	writeFile(t, filepath.Join(dir, "stage_0_lifecycle_metrics.json"), readFile(t, fixture("inference-perf-demo-kubecon-na-2025")+"/stage_0_lifecycle_metrics.json"))
	writeFile(t, filepath.Join(dir, ManifestName), sniffManifest)
	_, err := Read(dir, Options{Version: "test"})
	if want := "missing gateway.jsonl, and stage_0_lifecycle_metrics.json is not one: an inference-perf summary report"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}
