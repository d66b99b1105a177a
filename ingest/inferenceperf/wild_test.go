package inferenceperf

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
)

// TestRealExport reads a per_request_lifecycle_metrics.json written by a
// real run (fixtures/real/inference-perf-slo-lab-smoke: an excerpt of the
// smoke run kuotunyu/vllm-single-gpu-slo-lab commits as evidence, against
// vLLM serving Qwen/Qwen3-8B-FP8): its request becomes one turn whose
// values are the file's, its clock anchored by the server's "created".
func TestRealExport(t *testing.T) {
	dir := filepath.Join(readertest.FixturesDir, "inference-perf-slo-lab-smoke")
	// The anchor puts the request near created 1788885388 (2026-09-08
	// 16:36:28Z); t=0 one minute before.
	start := time.Unix(1788885328, 0).UTC()
	rd := open(t, filepath.Join(dir, "per_request_lifecycle_metrics.json"), Options{T0: start, PerSession: filepath.Join(dir, PerSessionFile)})
	got := readertest.Collect(rd)
	if len(got.Errs) > 0 || len(got.Turns) != 1 {
		t.Fatalf("turns %d, errors %v, warnings %q", len(got.Turns), got.Errs, rd.Warnings())
	}
	tu := got.Turns[0]
	if tu.Status != schema.TurnOK || tu.PromptTokens != 89 || tu.OutputTokens != 61 || tu.CachedTokens != 0 {
		t.Errorf("status %s, tokens %d/%d/%d; want ok, 89 prompt, 0 cached, 61 output", tu.Status, tu.PromptTokens, tu.CachedTokens, tu.OutputTokens)
	}
	a := rd.Anchor()
	if a.Method != "created" || a.UncertaintyS == nil || *a.UncertaintyS > 1 {
		t.Fatalf("anchor %+v", a)
	}
	// Durations are the file's to the nanosecond, whatever the offset.
	if tu.SentS == nil || tu.FirstTokenS == nil {
		t.Fatal("sent or first token unknown")
	}
	if d := tu.DoneS - *tu.SentS - (35361.955248335 - 35360.96036574); math.Abs(d) > 1e-9 {
		t.Errorf("latency off by %g s", d)
	}
	if d := *tu.FirstTokenS - *tu.SentS - (35361.013038747 - 35360.96036574); math.Abs(d) > 1e-9 {
		t.Errorf("time to first token off by %g s", d)
	}
	// The request reached the server in the second "created" names.
	if at := start.Unix() + int64(*tu.SentS); at < 1788885387 || at > 1788885389 {
		t.Errorf("sent at Unix %d, want near 1788885388", at)
	}
	if ws := strings.Join(rd.Warnings(), "\n"); strings.Contains(ws, "failed") {
		t.Errorf("warnings %q", ws)
	}
}
