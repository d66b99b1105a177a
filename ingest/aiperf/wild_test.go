package aiperf

import (
	"math"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
)

// TestRealExport reads two records of a profile_export.jsonl written by
// AIPerf 0.10.0 (fixtures/real/aiperf-0.10-qwen36): their values are the
// file's, each session keyed by its x_correlation_id, ready at the
// credit's issue, the first token at request_start_ns plus
// time_to_first_token in ms.
func TestRealExport(t *testing.T) {
	text := string(readertest.ReadFile(t, readertest.FixturePath("aiperf-0.10-qwen36", "profile_export.jsonl")))
	lr, err := lineio.NewReader(strings.NewReader(text), "profile_export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	rd := NewReader(lr, readertest.UTC("2026-07-29T06:00:00Z"))
	t.Cleanup(rd.Close)
	got := readertest.Collect(rd)
	if len(got.Errs) > 0 || len(got.Turns) != 2 {
		t.Fatalf("turns %d, errors %v", len(got.Turns), got.Errs)
	}
	want := []struct {
		session                  string
		ready, sent, first, done float64
		prompt, cached, output   int64
	}{
		{"c921112b-4833-4d4b-a4ab-5fa09467808d", 1.662802811, 1.664008267, 1.664008267 + 12.881482693, 83.700099279, 680, 343, 284},
		{"9c773716-8128-439d-ada4-1f20c5ec45f1", 1.662834379, 1.663707003, 1.663707003 + 49.738868882999996, 109.243832120, 998, 42, 292},
	}
	for i, w := range want {
		tu := got.Turns[i]
		if tu.Session != w.session || tu.Turn != 0 || tu.Status != schema.TurnOK {
			t.Errorf("turn %d: %s/%d %s", i, tu.Session, tu.Turn, tu.Status)
		}
		for _, c := range []struct {
			name string
			got  *float64
			want float64
		}{{"ready", tu.ReadyS, w.ready}, {"sent", tu.SentS, w.sent}, {"first token", tu.FirstTokenS, w.first}, {"done", &tu.DoneS, w.done}} {
			if c.got == nil || math.Abs(*c.got-c.want) > 1e-6 {
				t.Errorf("turn %d %s: %v, want %.9f", i, c.name, readertest.Ptr(c.got), c.want)
			}
		}
		if tu.PromptTokens != w.prompt || tu.CachedTokens != w.cached || tu.OutputTokens != w.output {
			t.Errorf("turn %d tokens %d/%d/%d, want %d/%d/%d", i, tu.PromptTokens, tu.CachedTokens, tu.OutputTokens, w.prompt, w.cached, w.output)
		}
	}
	if ws := strings.Join(rd.Warnings(), "\n"); strings.Contains(ws, "client tokenizer") {
		t.Errorf("warnings %q", ws)
	}
}

// TestCancelledRecordProducedNothing checks a cancelled record as AIPerf
// writes it (workers/worker.py: a RequestRecord without responses,
// was_cancelled, error code 499; an invalid record gets only the
// ERROR_ONLY metrics, error_isl among them, metrics/base_metric.py
// _require_valid_record): no output count, so 0 tokens out, aborted.
func TestCancelledRecordProducedNothing(t *testing.T) {
	line := `{"metadata":{"session_num":4,"x_request_id":"r","x_correlation_id":"c","conversation_id":"session_000006","turn_index":0,` +
		`"credit_issued_ns":1793102401000000000,"request_start_ns":1793102401000100000,"request_end_ns":1793102403000000000,` +
		`"benchmark_phase":"profiling","was_cancelled":true,"cancellation_time_ns":1793102403000000000},` +
		`"metrics":{"error_isl":{"value":680,"unit":"tokens"}},` +
		`"error":{"code":499,"type":"RequestCancellationError","message":"Request was cancelled after 2.000 seconds"}}` + "\n"
	got := readertest.Collect(reader(t, line))
	if len(got.Errs) > 0 || len(got.Turns) != 1 {
		t.Fatalf("turns %d, errors %v", len(got.Turns), got.Errs)
	}
	if tu := got.Turns[0]; tu.Status != schema.TurnAborted || tu.PromptTokens != 680 || tu.OutputTokens != 0 {
		t.Errorf("status %s, prompt %d, output %d; want aborted, 680, 0", tu.Status, tu.PromptTokens, tu.OutputTokens)
	}
}
