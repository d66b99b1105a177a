package guidellm

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
)

// TestReadyOfClosedLoopStrategies checks, on a real GuideLLM v0.5.0
// synchronous report (fixtures/real/guidellm-0.5-sync), that a request's
// ready time is when the worker took it, not targeted_start: from v0.4.0
// to v0.7.0 the worker never told the synchronous and concurrent
// strategies that a successful request completed (scheduler/worker.py
// cleared request_info before strategy.request_completed), so every
// request's targeted_start is the scheduler's start, and the 25 one-turn
// sessions of such a run all "arrived" at t=0.
func TestReadyOfClosedLoopStrategies(t *testing.T) {
	text := string(readertest.ReadFile(t, readertest.FixturePath("guidellm-0.5-sync", "benchmarks.json")))
	start := time.Unix(1771584288, 0).UTC()
	bs, _, err := readReport(t, text, Options{Lenient: true}, start)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 1 || len(bs[0].Turns) != 2 {
		t.Fatalf("benchmarks %d, turns %v", len(bs), bs)
	}
	// The timings of the two requests as written (info.timings):
	// targeted_start, dequeued, and the request before's request_end.
	rel := func(x float64) float64 { return x - 1771584288 }
	want := []struct{ targeted, dequeued, prevEnd float64 }{
		{1771584288.7050805, 1771584345.0501125, math.NaN()},
		{1771584288.7050805, 1771584347.6440828, 1771584347.643735},
	}
	for i, tu := range bs[0].Turns {
		if tu.ReadyS == nil {
			t.Fatalf("turn %d: ready unknown", i)
		}
		if d := *tu.ReadyS - rel(want[i].dequeued); math.Abs(d) > 1e-6 {
			t.Errorf("turn %d: ready %.6f, want the dequeue time %.6f (targeted_start %.6f is the scheduler's start)", i, *tu.ReadyS, rel(want[i].dequeued), rel(want[i].targeted))
		}
		if !math.IsNaN(want[i].prevEnd) && *tu.ReadyS-rel(want[i].prevEnd) > 0.01 {
			t.Errorf("turn %d: ready %.4f is not the end of the request before it (%.4f)", i, *tu.ReadyS, rel(want[i].prevEnd))
		}
	}
}

// TestReadyByStrategy checks the ready time each strategy gives, on one
// request whose targeted_start, dequeued and request_start differ: a
// per-request schedule (constant, poisson, trace) is the request's
// targeted_start; a closed loop (synchronous, concurrent, throughput)
// waits for a slot, and its request is ready when the worker takes it
// (timings.dequeued; v0.3 scheduler_info.dequeued_time); a strategy
// outlast does not know leaves ready unknown, with a warning.
func TestReadyByStrategy(t *testing.T) {
	r := edit(req, `"dequeued": 1793102401.0`, `"dequeued": 1793102401.05`, `"targeted_start": 1793102401.0`, `"targeted_start": 1793102400.5`)
	v03 := `{"type_": "generative_text_response", "request_id": "r1", "request_type": "text_completions", "scheduler_info": {"requested": true, "completed": true, ` +
		`"targeted_start_time": 1793102400.5, "queued_time": 1793102400.6, "dequeued_time": 1793102401.05, "request_start": 1793102401.2, "request_end": 1793102403.0, "worker_end": 1793102403.1}, ` +
		`"prompt": "p", "output": "o", "prompt_tokens": 5000, "output_tokens": 200, "start_time": 1793102401.2, "end_time": 1793102403.0, "first_token_time": 1793102401.5}`
	tests := []struct {
		strategy, request, want string
		warn                    string
	}{
		{`{"type_": "synchronous"}`, r, "1.050", ""},
		{`{"type_": "concurrent", "streams": 4}`, r, "1.050", ""},
		{`{"type_": "throughput", "max_concurrency": 64}`, r, "1.050", ""},
		{`{"type_": "constant", "rate": 2}`, r, "0.500", ""},
		{`{"type_": "poisson", "rate": 2}`, r, "0.500", ""},
		{`{"type_": "trace", "time_scale": 1.0}`, r, "0.500", ""},
		{`{"type_": "synchronous"}`, v03, "1.050", ""},
		{`{"type_": "constant", "rate": 2}`, v03, "0.500", ""},
		{`{"type_": "burst", "rate": 2}`, r, "null", `strategy "burst"`},
		{`null`, r, "null", "no strategy"},
	}
	for _, tc := range tests {
		t.Run(tc.strategy, func(t *testing.T) {
			bs, rd, err := readReport(t, report(tc.strategy, "", tc.request, "", ""), Options{}, t0)
			if err != nil {
				t.Fatal(err)
			}
			if len(bs) != 1 || len(bs[0].Turns) != 1 {
				t.Fatalf("benchmarks %v", bs)
			}
			got := "null"
			if p := bs[0].Turns[0].ReadyS; p != nil {
				got = fmt.Sprintf("%.3f", *p)
			}
			if got != tc.want {
				t.Errorf("ready %s, want %s", got, tc.want)
			}
			ws := strings.Join(rd.Warnings(), "\n")
			if tc.warn != "" && !strings.Contains(ws, tc.warn) {
				t.Errorf("warnings %q, want one naming %s", ws, tc.warn)
			}
		})
	}
}

// TestFailedRequestsProducedNothing checks that a request that did not
// complete stores the output it produced: GuideLLM v0.3 writes the
// request's requested output count when the server sent no usage
// (benchmark/aggregator.py _compile_tokens_count: response_tokens or
// requests_tokens), so a timed-out request with an empty output says 128.
// The record is the real v0.3.1 report's request
// (fixtures/real/guidellm-0.3-pretty) turned into the incomplete record
// v0.3.1 writes on a timeout (GenerativeTextErrorStats: error set, output
// empty, first_token_time null), its output_tokens left at 128.
func TestFailedRequestsProducedNothing(t *testing.T) {
	text := string(readertest.ReadFile(t, readertest.FixturePath("guidellm-0.3-pretty", "benchmarks.json")))
	i := strings.Index(text, `"successful": [`)
	j := strings.Index(text, `"total": null`)
	if i < 0 || j < i {
		t.Fatal("fixture layout changed")
	}
	// The successful request, as v0.3.1 would write it timed out.
	body := text[i+len(`"successful": [`) : strings.LastIndex(text[:j], "]")]
	timedOut := strings.NewReplacer(
		`"type_": "generative_text_response"`, `"type_": "generative_text_error"`,
		`"completed": true`, `"completed": false`,
		`"canceled": false`, `"canceled": true`,
	).Replace(body)
	k := strings.Index(timedOut, `"output": "`)
	end := strings.Index(timedOut[k:], `",`+"\n")
	timedOut = timedOut[:k] + `"error": "TimeoutError: The request timed out before completing.", "output": ""` + timedOut[k+end+1:]
	timedOut = strings.Replace(timedOut, `"first_token_time": 1749157168.2039824`, `"first_token_time": null`, 1)
	if !strings.Contains(timedOut, `"output_tokens": 128`) || !strings.Contains(timedOut, `"output": ""`) {
		t.Fatal("the timed-out record was not built")
	}
	doc := text[:i] + `"successful": [], "incomplete": [` + timedOut + `], ` + text[j:]
	bs, rd, err := readReport(t, doc, Options{Lenient: true}, time.Date(2025, 6, 5, 20, 59, 28, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 1 || len(bs[0].Turns) != 1 {
		t.Fatalf("benchmarks %v", bs)
	}
	tu := bs[0].Turns[0]
	if tu.Status != schema.TurnAborted || tu.OutputTokens != 0 || tu.PromptTokens != 257 {
		t.Errorf("status %s, prompt %d, output %d; want aborted, 257, 0", tu.Status, tu.PromptTokens, tu.OutputTokens)
	}
	if ws := strings.Join(rd.Warnings(), "\n"); !strings.Contains(ws, "empty output") {
		t.Errorf("warnings %q, want one about the empty output", ws)
	}
}
