package inferenceperf

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// t0 is the t=0 of the tests, Unix 1793102400. The tests' perf_counter
// clock reads 734512.5 then: Unix = perf + offset.
var t0 = readertest.T0

const offset = 1792367887.5

func open(t testing.TB, path string, opt Options) *Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return NewReader(f, filepath.Base(path), opt)
}

// TestGolden reads each export through the reader and the session
// derivation, with the clock anchored from its directory.
func TestGolden(t *testing.T) {
	for name, dir := range map[string]string{
		"shared-prefix-multiturn": filepath.Join(readertest.FixturesDir, "inference-perf-0.6.1"),
		"trace-session-replay":    "testdata/trace-session-replay",
	} {
		t.Run(name, func(t *testing.T) {
			rd := open(t, filepath.Join(dir, "per_request_lifecycle_metrics.json"), Options{T0: t0, PerSession: filepath.Join(dir, PerSessionFile)})
			got := readertest.Collect(rd)
			a := rd.Anchor()
			anchor := fmt.Sprintf("anchor %s %.4f ± %.4f\n", a.Method, a.OffsetS, *a.UncertaintyS)
			readertest.GoldenWarnings(t, name, anchor+got.Table(), rd.Warnings())
		})
	}
}

// TestTimesHaveNoFloatNoise reads the fixture and checks that every time
// is a whole number of nanoseconds as printed: a perf_counter reading plus
// the clock shift carries noise below that (0.7999999999999545 for 0.8),
// which exports and reports would print.
func TestTimesHaveNoFloatNoise(t *testing.T) {
	dir := filepath.Join(readertest.FixturesDir, "inference-perf-0.6.1")
	got := readertest.Collect(open(t, filepath.Join(dir, "per_request_lifecycle_metrics.json"), Options{T0: t0, PerSession: filepath.Join(dir, PerSessionFile)}))
	if len(got.Turns) == 0 {
		t.Fatal("no turns")
	}
	for _, tr := range got.Turns {
		for _, v := range []*float64{tr.SentS, tr.FirstTokenS, &tr.DoneS} {
			if v == nil {
				continue
			}
			s := strconv.FormatFloat(*v, 'f', -1, 64)
			if _, frac, ok := strings.Cut(s, "."); ok && len(frac) > 9 {
				t.Fatalf("session %s turn %d: time %s has float noise below the nanosecond", tr.Session, tr.Turn, s)
			}
		}
	}
}

// TestAnchorsContainTheTrueOffset checks that each anchor's interval holds
// the offset the fixtures were written with (Unix = perf + 1792367887.582).
func TestAnchorsContainTheTrueOffset(t *testing.T) {
	const truth = 1792367887.582
	for _, dir := range []string{filepath.Join(readertest.FixturesDir, "inference-perf-0.6.1"), "testdata/trace-session-replay"} {
		rd := open(t, filepath.Join(dir, "per_request_lifecycle_metrics.json"), Options{T0: t0, PerSession: filepath.Join(dir, PerSessionFile)})
		readertest.Collect(rd)
		a := rd.Anchor()
		if a.UncertaintyS == nil || truth < a.OffsetS-*a.UncertaintyS || truth > a.OffsetS+*a.UncertaintyS || *a.UncertaintyS > 0.5 {
			t.Errorf("%s: %s anchor %.4f ± %v does not hold %.3f within 0.5 s", dir, a.Method, a.OffsetS, a.UncertaintyS, truth)
		}
	}
}

// response is a streamed completion as the record keeps it: the SSE text,
// whose chunks carry the server's "created" seconds.
func response(created int64) string {
	chunk := fmt.Sprintf(`data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":%d,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\" a\"}],\"usage\":null}\n\n`, created)
	return `"` + chunk + chunk + `data: [DONE]\n\n"`
}

// rec06 is one record sent at run time sent (perf = run + 734512.5),
// done 2 s later, its first token 0.25 s after it was sent.
func rec06(sent float64, info string) string {
	perf := sent + 734512.5
	return fmt.Sprintf(`{"start_time": %.6f, "end_time": %.6f, "request": "{}", "response": %s, "info": %s, "error": null}`,
		perf, perf+2, response(int64(1793102400+sent+0.05)), info)
}

// info06 is a v0.6 info block (first token at perf first).
func info06(first float64, usage, extra string) string {
	return fmt.Sprintf(`{"request_metrics": {"text": {"input_tokens": 2304}, "image": null}, "response_metrics": {"output_tokens": 8, "server_usage": %s, `+
		`"response_chunks": [], "chunk_times": [%.6f], "output_token_times": [%.6f, %.6f]}, "extra_info": %s, "lora_adapter": null, "labels": {}, "input_tokens": 2304}`,
		usage, first, first, first+0.1, extra)
}

const usage = `{"prompt_tokens": 2305, "total_tokens": 2313, "completion_tokens": 8, "prompt_tokens_details": {"cached_tokens": 2048}}`

func list(recs ...string) string { return "[\n  " + strings.Join(recs, ",\n  ") + "\n]\n" }

func readText(t testing.TB, text string, opt Options) (readertest.Loadgen, *Reader) {
	t.Helper()
	if opt.T0.IsZero() {
		opt.T0 = t0
	}
	rd := NewReader(strings.NewReader(text), "per_request_lifecycle_metrics.json", opt)
	return readertest.Collect(rd), rd
}

// TestVersions checks the mapping of each version's record.
func TestVersions(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	at := offset
	first := 2.0 + 734512.5 + 0.25
	full := schema.Turn{Session: "user_session_3", Turn: 1, Origin: "base", SentS: f(2), FirstTokenS: f(2.25), DoneS: 4, PromptTokens: 2305, CachedTokens: 2048, OutputTokens: 8, Status: "ok"}
	extra := `{"user_session": "user_session_3", "chat_round": 2}`
	tests := []struct {
		name, info string
		want       schema.Turn
		cached     bool
	}{
		{"v0.6: response_metrics with server usage", info06(first, usage, extra), full, true},
		{"v0.6: usage without prompt_tokens_details", info06(first, `{"prompt_tokens": 2305, "completion_tokens": 8, "prompt_tokens_details": null}`, extra),
			with(full, func(t *schema.Turn) { t.CachedTokens = 0 }), false},
		{"v0.6: no server usage: client counts", info06(first, `null`, extra),
			with(full, func(t *schema.Turn) { t.PromptTokens, t.CachedTokens = 2304, 0 }), false},
		// api.type anthropic_messages (v0.6.1+, apis/anthropic_messages.py):
		// server_usage is the Anthropic usage merged from message_start and
		// message_delta, and request_metrics.text.input_tokens copies its
		// input_tokens. Anthropic's input_tokens is the uncached remainder:
		// the prompt is input + cache reads + cache writes (as AIPerf's
		// Usage.prompt_tokens adds them back, common/models/usage_models.py).
		{"anthropic messages: cache reads and writes are part of the prompt", strings.Replace(info06(first,
			`{"input_tokens": 225, "output_tokens": 8, "cache_read_input_tokens": 2048, "cache_creation_input_tokens": 32}`, extra), `"input_tokens": 2304}, "image"`, `"input_tokens": 225}, "image"`, 1),
			with(full, func(t *schema.Turn) { t.PromptTokens = 2305 }), true},
		{"anthropic messages as vLLM answers them: input_tokens is the whole prompt", info06(first, `{"input_tokens": 2305, "output_tokens": 8}`, extra),
			with(full, func(t *schema.Turn) { t.CachedTokens = 0 }), false},
		{"v0.5: response_info", fmt.Sprintf(`{"input_tokens": 2304, "extra_info": %s, "lora_adapter": null, "response_info": {"response_chunks": [], "chunk_times": [%.6f], `+
			`"output_tokens": 8, "output_token_times": [%.6f], "server_usage": %s}}`, extra, first, first, usage), full, true},
		{"v0.3-v0.4: info holds the counts", fmt.Sprintf(`{"input_tokens": 2305, "output_tokens": 8, "output_token_times": [%.6f], "extra_info": %s}`, first, extra),
			with(full, func(t *schema.Turn) { t.CachedTokens = 0 }), false},
		{"v0.1.1-v0.2: no session", fmt.Sprintf(`{"input_tokens": 2305, "output_tokens": 8, "output_token_times": [%.6f]}`, first),
			with(full, func(t *schema.Turn) { t.Session, t.Turn, t.CachedTokens = "request-2:3", 0, 0 }), false},
		{"no token times (not streamed)", info06(first, usage, extra)[:0] + strings.Replace(info06(first, usage, extra), fmt.Sprintf(`"output_token_times": [%.6f, %.6f]`, first, first+0.1), `"output_token_times": []`, 1),
			with(full, func(t *schema.Turn) { t.FirstTokenS = nil }), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := readText(t, list(rec06(2, tc.info)), Options{ClockOffsetS: &at})
			if len(got.Errs) > 0 || len(got.Turns) != 1 {
				t.Fatalf("errors %v, %d turns", got.Errs, len(got.Turns))
			}
			if g, w := (readertest.Loadgen{Turns: got.Turns}).Table(), (readertest.Loadgen{Turns: []schema.Turn{tc.want}}).Table(); g != w {
				t.Errorf("got\n%swant\n%s", g, w)
			}
			if (got.Cached == 1) != tc.cached {
				t.Errorf("cached reported %v, want %v", got.Cached == 1, tc.cached)
			}
		})
	}
}

func with(t schema.Turn, edit func(*schema.Turn)) schema.Turn { edit(&t); return t }

// TestErrorRecord checks a failed request as v0.6 keeps it: its session,
// no response metrics, the error body as the response.
func TestErrorRecord(t *testing.T) {
	at := offset
	rec := `{"start_time": 734514.5, "end_time": 734514.6, "request": "{}", "response": "{\"error\":{\"code\":500}}", ` +
		`"info": {"request_metrics": {"text": {"input_tokens": 0}}, "response_metrics": null, "extra_info": {"user_session": "u", "chat_round": 1}, "input_tokens": 0}, ` +
		`"error": {"error_type": "HTTP Error 500", "error_msg": "boom"}}`
	got, _ := readText(t, list(rec), Options{ClockOffsetS: &at})
	if len(got.Turns) != 1 || got.Turns[0].Status != schema.TurnError || got.Turns[0].FirstTokenS != nil || len(got.Errs) > 0 {
		t.Errorf("%s", got.Table())
	}
	// What was produced: nothing for a failure whose response inference-perf
	// did not read (response_metrics null: openai_client.py's
	// process_failure, a no-op for completions; a broken stream's too), the
	// tokens read for one that failed after its response was read.
	if len(got.Turns) == 1 && got.Turns[0].OutputTokens != 0 {
		t.Errorf("failed request without response metrics: %d output tokens, want 0", got.Turns[0].OutputTokens)
	}
	late := `{"start_time": 734514.5, "end_time": 734530.6, "request": "{}", "response": "", ` +
		`"info": {"request_metrics": {"text": {"input_tokens": 40}}, "response_metrics": {"output_tokens": 12, "output_token_times": [734514.7]}, "input_tokens": 40}, ` +
		`"error": {"error_type": "TimeoutError", "error_msg": "Request timed out"}}`
	got, _ = readText(t, list(late), Options{ClockOffsetS: &at})
	if len(got.Turns) != 1 || got.Turns[0].Status != schema.TurnError || got.Turns[0].OutputTokens != 12 {
		t.Errorf("timed out after 12 tokens: %s", got.Table())
	}
}

// TestSessionInstances checks that a user session whose chat_round goes
// back (a new stage) becomes a new session.
func TestSessionInstances(t *testing.T) {
	at := offset
	rec := func(sent float64, round int) string {
		return rec06(sent, info06(sent+734512.5+0.25, usage, fmt.Sprintf(`{"user_session": "u", "chat_round": %d}`, round)))
	}
	// Written in completion order, not the order sent.
	got, _ := readText(t, list(rec(10, 2), rec(0, 1), rec(20, 3), rec(40, 2), rec(30, 1)), Options{ClockOffsetS: &at})
	var b strings.Builder
	for _, s := range got.Sessions {
		fmt.Fprintf(&b, "%s %.0f %d; ", s.Session, s.ArriveS, s.TurnsDone)
	}
	if want := "u 0 3; u#2 30 2; "; b.String() != want || len(got.Errs) > 0 {
		t.Errorf("sessions %s, errors %v; want %s", b.String(), got.Errs, want)
	}
}

func TestAnchorMethods(t *testing.T) {
	rec := rec06(2, info06(2+734512.5+0.25, usage, `{"user_session": "u", "chat_round": 1}`))
	t.Run("manifest wins", func(t *testing.T) {
		at := offset + 0.3
		_, rd := readText(t, list(rec), Options{ClockOffsetS: &at})
		if a := rd.Anchor(); a.Method != AnchorManifest || a.OffsetS != at || a.UncertaintyS != nil {
			t.Errorf("%+v", a)
		}
	})
	t.Run("created stamps", func(t *testing.T) {
		got, rd := readText(t, list(rec), Options{})
		a := rd.Anchor()
		// created = 1793102402: offset in [1793102402 − 734514.75, 1793102403 − 734514.5].
		if a.Method != AnchorCreated || a.UncertaintyS == nil || fmt.Sprintf("%.3f ± %.3f", a.OffsetS, *a.UncertaintyS) != "1792367887.875 ± 0.625" || len(got.Errs) > 0 {
			t.Errorf("%+v %v", a, got.Errs)
		}
	})
	t.Run("created stamp of a response that was not streamed", func(t *testing.T) {
		// api.streaming is false by default (config/config.py): the record
		// keeps the response body, one JSON object, and UnaryResponseMetrics
		// (no token times). Its "created" bounds the request as a chunk's
		// does: created ≤ done, sent < created + 1.
		body := `"{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1793102402,\"model\":\"m\",` +
			`\"choices\":[{\"index\":0,\"text\":\" a b\",\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null}],` +
			`\"usage\":{\"prompt_tokens\":2305,\"total_tokens\":2313,\"completion_tokens\":8,\"prompt_tokens_details\":null}}"`
		unary := fmt.Sprintf(`{"start_time": 734514.5, "end_time": 734516.5, "request": "{}", "response": %s, "info": {"request_metrics": {"text": {"input_tokens": 2304}}, `+
			`"response_metrics": {"output_tokens": 8, "server_usage": {"prompt_tokens": 2305, "total_tokens": 2313, "completion_tokens": 8, "prompt_tokens_details": null}}, `+
			`"extra_info": {}, "lora_adapter": null, "labels": {}, "input_tokens": 2304}, "error": null}`, body)
		got, rd := readText(t, list(unary), Options{})
		a := rd.Anchor()
		// offset in [1793102402 − 734516.5, 1793102403 − 734514.5].
		if a.Method != AnchorCreated || a.UncertaintyS == nil || fmt.Sprintf("%.3f ± %.3f", a.OffsetS, *a.UncertaintyS) != "1792367887.000 ± 1.500" || len(got.Errs) > 0 || len(got.Turns) != 1 {
			t.Errorf("%+v %v", a, got.Errs)
		}
	})
	t.Run("nothing anchors", func(t *testing.T) {
		noCreated := strings.Replace(rec, `\"created\":1793102402,`, ``, -1)
		got, _ := readText(t, list(noCreated), Options{})
		want := "per_request_lifecycle_metrics.json: its times are inference-perf's perf_counter (a monotonic clock, not Unix time) and nothing in the directory anchors them " +
			`(no per_session_lifecycle_metrics.json, no "created" stamps in the responses): give the offset, Unix time minus perf_counter in seconds, as files.clock_offset_s in run.yaml`
		if len(got.Errs) != 1 || got.Errs[0] != want {
			t.Errorf("errors %q\nwant %q", got.Errs, want)
		}
	})
	t.Run("created stamps that disagree", func(t *testing.T) {
		late := strings.Replace(rec, `1793102402`, `1793102900`, -1)
		got, rd := readText(t, list(rec, strings.Replace(late, `"chat_round": 1`, `"chat_round": 2`, 1)), Options{})
		if len(got.Errs) != 1 || !strings.Contains(got.Errs[0], "files.clock_offset_s") || !strings.Contains(strings.Join(rd.Warnings(), "\n"), "disagree with the request times") {
			t.Errorf("errors %q, warnings %q", got.Errs, rd.Warnings())
		}
	})
}

// TestBadInput checks the error of each kind of bad record, at the line
// and column of the offending value.
func TestBadInput(t *testing.T) {
	at := offset
	good := rec06(2, info06(2+734512.5+0.25, usage, `{"user_session": "u", "chat_round": 1}`))
	col := func(sub string) int { return strings.Index(good, sub) + 3 } // the record is indented by 2
	tests := []struct{ name, text, want string }{
		{"truncated JSON", list(good)[:200], "per_request_lifecycle_metrics.json:2:199: the file ends inside a JSON value: it was cut short (at JSON pointer /0/response)"},
		{"wrong type", list(strings.Replace(good, `"input_tokens": 2304}`, `"input_tokens": "2304"}`, 1)),
			fmt.Sprintf("per_request_lifecycle_metrics.json:2:%d: info.request_metrics.text.input_tokens: want an integer, got a string", col(`"input_tokens": 2304}`)+16)},
		{"negative count", list(strings.Replace(good, `"completion_tokens": 8`, `"completion_tokens": -8`, 1)),
			fmt.Sprintf("per_request_lifecycle_metrics.json:2:%d: info.response_metrics.server_usage.completion_tokens: want a non-negative integer, got -8", col(`"completion_tokens": 8`)+21)},
		{"cached > prompt", list(strings.Replace(good, `"cached_tokens": 2048`, `"cached_tokens": 4096`, 1)),
			fmt.Sprintf("per_request_lifecycle_metrics.json:2:%d: info.response_metrics.server_usage.prompt_tokens_details.cached_tokens 4096 exceeds prompt_tokens 2305", col(`"cached_tokens": 2048`)+17)},
		{"repeated turn", list(good, good), "per_request_lifecycle_metrics.json:3:3: session \"u\" turn 0 is repeated (first at per_request_lifecycle_metrics.json:2:3)"},
		{"round 0", list(strings.Replace(good, `"chat_round": 1`, `"chat_round": 0`, 1)),
			fmt.Sprintf("per_request_lifecycle_metrics.json:2:%d: info.extra_info.chat_round: want a round from 1, got 0", col(`"chat_round": 1`)+14)},
		{"ends before it starts", list(strings.Replace(good, `"end_time": 734516.500000`, `"end_time": 734510.0`, 1)),
			fmt.Sprintf("per_request_lifecycle_metrics.json:2:%d: end_time 734510 is before start_time 734514.5", col(`"end_time"`)+12)},
		{"a record not an object", list(good, `[1]`), "per_request_lifecycle_metrics.json:3:3: want a request record (an object), got an array"},
		{"no info on a completed request", list(strings.Replace(good, `"info": {`, `"info": null, "x": {`, 1)),
			"per_request_lifecycle_metrics.json:2:3: missing info: no token counts (inference-perf v0.1.0 wrote none; v0.1.1 and later do)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := readText(t, tc.text, Options{ClockOffsetS: &at})
			if len(got.Errs) == 0 || got.Errs[0] != tc.want {
				t.Errorf("errors %q\nwant first %q", got.Errs, tc.want)
			}
		})
	}
}

func TestSniff(t *testing.T) {
	for _, s := range []string{"[\n  {\n    \"start_time\": 1.5,", `[{"start_time": 1.5`} {
		if !Sniff([]byte(s)) {
			t.Errorf("%q not recognised", s)
		}
	}
	for _, s := range []string{`[]`, `[{"session_id": "s"}]`, `{"start_time": 1}`} {
		if Sniff([]byte(s)) {
			t.Errorf("%q taken for inference-perf", s)
		}
	}
}

// FuzzExport feeds an export to the reader with a manifest offset: every
// turn keeps the format's invariants, every bad record is an error at a
// place in the input, and reading ends.
func FuzzExport(f *testing.F) {
	f.Add(list(rec06(2, info06(2+734512.5+0.25, usage, `{"user_session": "u", "chat_round": 1}`))))
	f.Add(`[{"start_time": 1, "end_time": 2, "info": {"input_tokens": 3, "output_tokens": 4, "output_token_times": [1.5]}, "error": null}]`)
	f.Add(`[{"start_time": 1, "end_time": 2, "info": null, "error": {"error_type": "x", "error_msg": "y"}}]`)
	f.Add(`[{"start_time": 1, "end_time": 2, "response": "{\"id\":\"c\",\"created\":1793102402}", "info": {"request_metrics": {"text": {"input_tokens": 3}}, ` +
		`"response_metrics": {"output_tokens": 4, "server_usage": {"input_tokens": 3, "output_tokens": 4, "cache_read_input_tokens": 9}}}, "error": null}]`)
	f.Fuzz(func(t *testing.T, text string) {
		at := offset
		rd := NewReader(strings.NewReader(text), "per_request_lifecycle_metrics.json", Options{T0: t0, ClockOffsetS: &at})
		for steps := 0; ; steps++ {
			if steps > len(text)+10 {
				t.Fatalf("reading does not end on %q", text)
			}
			tr, err := rd.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var pe *textpos.ParseError
				if errors.As(err, &pe) && (pe.Pos.Line < 1 || pe.Pos.Line > strings.Count(text, "\n")+1) {
					t.Fatalf("%v: line outside the input", err)
				}
				if !errors.As(err, &pe) {
					return
				}
				continue
			}
			r := tr.Row
			if r.Session == "" || math.IsNaN(r.DoneS) || r.SentS == nil || r.DoneS < *r.SentS || r.PromptTokens < 0 || (tr.CachedReported && r.CachedTokens > r.PromptTokens) {
				t.Fatalf("bad turn %+v", r)
			}
		}
	})
}

// TestInBandErrors reads requests that inference-perf (v0.6.1 and main of
// 2026-08) records as successes although they failed
// (kubernetes-sigs/inference-perf#713): a 200 whose body, or an SSE frame
// of it, carries a top-level "error", and a 200 that brought no completion
// (no content and no usage). They are errors, as inference-perf's own fix
// records them (pull request #744), with a warning each; a good response
// whose text says "error" stays a success.
func TestInBandErrors(t *testing.T) {
	at := offset
	rd := open(t, "testdata/in-band-errors.json", Options{T0: t0, ClockOffsetS: &at})
	got := readertest.Collect(rd)
	if len(got.Errs) > 0 {
		t.Fatal(got.Errs)
	}
	var status []string
	for _, tr := range got.Turns {
		status = append(status, fmt.Sprintf("%s/%d %s out=%d", tr.Session, tr.Turn, tr.Status, tr.OutputTokens))
	}
	want := "[u1/0 ok out=8 u1/1 error out=0 u2/0 error out=0 u3/0 error out=0 u4/0 error out=0 u5/0 ok out=8]"
	if g := fmt.Sprint(status); g != want {
		t.Errorf("turns %s\nwant  %s", g, want)
	}
	wantWarn := []string{
		`in-band-errors.json:44:3: WARNING: 2 request(s) recorded as successes carry an error in their response (a top-level "error" in the body or in an SSE frame): read as errors (inference-perf records such a 200 as a success, kubernetes-sigs/inference-perf#713), the first here`,
		`in-band-errors.json:96:3: WARNING: 2 request(s) recorded as successes brought no completion (no content and no usage in the response): read as errors (inference-perf records such a 200 as a success with 0 output tokens, kubernetes-sigs/inference-perf#713), the first here`,
	}
	if g := rd.Warnings(); strings.Join(g, "\n") != strings.Join(wantWarn, "\n") {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(wantWarn, "\n"))
	}
}

// TestTimesAreExactDecimals checks that a time, perf_counter plus the
// clock offset less the run's t=0, is the float64 nearest the exact sum of
// the decimals (to perf_counter's nanosecond): strconv.ParseFloat of it
// written out. The offset held as a float64 near 1.8e9 is off by up to
// 1.2e-7 s, which the sum kept (2.177999973 for 734514.5 s + 1792367887.678 s
// less 1793102400 s).
func TestTimesAreExactDecimals(t *testing.T) {
	at := 1792367887.678
	r := `{"start_time": 734514.5, "end_time": 734516.123456789, "request": "{}", "response": "", ` +
		`"info": {"request_metrics": {"text": {"input_tokens": 40}}, "response_metrics": {"output_tokens": 12, "output_token_times": [734514.7000001]}, "input_tokens": 40}, "error": null}`
	got, _ := readText(t, list(r), Options{ClockOffsetS: &at})
	if len(got.Turns) != 1 {
		t.Fatalf("%v", got.Errs)
	}
	tr := got.Turns[0]
	for _, c := range []struct {
		got  *float64
		want string
	}{{tr.SentS, "2.178"}, {tr.FirstTokenS, "2.3780001"}, {&tr.DoneS, "3.801456789"}} {
		want, _ := strconv.ParseFloat(c.want, 64)
		if c.got == nil || math.Float64bits(*c.got) != math.Float64bits(want) {
			t.Errorf("got %s, want %s", readertest.Ptr(c.got), c.want)
		}
	}
}

// TestUserSessionsOpenAtTheEnd checks the sessions of a multi-turn
// workload (shared_prefix's enable_multi_turn_chat, conversation_replay):
// inference-perf keeps each user session going round after round until
// its stage ends (datagen/synthetic/shared_prefix_datagen.py: the data
// index cycles over the users without end; conversation_replay_datagen.py
// starts the slot's next conversation when one finishes), and records no
// session end. A user's last instance was still in the system when the
// run stopped: open. An earlier instance (its user started over) ended,
// and a request without a user session is a session of its own that ended
// at its completion.
func TestUserSessionsOpenAtTheEnd(t *testing.T) {
	at := offset
	user := func(sent float64, u string, round int) string {
		return rec06(sent, info06(sent+734512.5+0.25, usage, fmt.Sprintf(`{"user_session": %q, "chat_round": %d}`, u, round)))
	}
	single := rec06(5, info06(5+734512.5+0.25, usage, `{}`))
	got, _ := readText(t, list(user(2, "a", 1), user(10, "a", 2), user(20, "a", 1), user(4, "b", 1), user(12, "b", 2), single), Options{ClockOffsetS: &at})
	if len(got.Errs) > 0 {
		t.Fatal(got.Errs)
	}
	var ss []string
	for _, s := range got.Sessions {
		end := "null"
		if s.EndS != nil {
			end = strconv.FormatFloat(*s.EndS, 'f', -1, 64)
		}
		ss = append(ss, fmt.Sprintf("%s %s %s %d", s.Session, end, s.Status, s.TurnsDone))
	}
	want := "a 12 done 2; a#2 null open 1; b null open 2; request-7:3 7 done 1"
	if g := strings.Join(ss, "; "); g != want {
		t.Errorf("sessions\n%s\nwant\n%s", g, want)
	}
}
