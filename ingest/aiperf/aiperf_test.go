package aiperf

import (
	"bytes"
	"errors"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// t0 is the t=0 of the tests' records.
var t0 = readertest.T0

// reader returns a reader of text, closed when the test ends.
func reader(t testing.TB, text string) *Reader {
	t.Helper()
	lr, err := lineio.NewReader(strings.NewReader(text), "profile_export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	rd := NewReader(lr, t0)
	t.Cleanup(rd.Close)
	return rd
}

// TestGolden reads each export through the reader and the session
// derivation and compares the tables with their golden files.
func TestGolden(t *testing.T) {
	for _, in := range []struct{ name, path, start string }{
		{"aiperf-2026", readertest.FixturePath("aiperf-2026", "profile_export.jsonl"), "2026-10-27T12:00:00Z"},
		{"aiperf-2025", readertest.FixturePath("aiperf-2025", "profile_export.jsonl"), "2025-10-07T15:13:21Z"},
		{"after-43b78902", "testdata/after-43b78902.jsonl", "2025-10-07T15:13:21Z"},
	} {
		t.Run(in.name, func(t *testing.T) {
			lr, err := lineio.Open(in.path, filepath.Base(in.path))
			if err != nil {
				t.Fatal(err)
			}
			defer lr.Close()
			rd := NewReader(lr, readertest.UTC(in.start))
			got := readertest.Collect(rd)
			if len(got.Errs) > 0 {
				t.Errorf("errors: %v", got.Errs)
			}
			readertest.GoldenWarnings(t, in.name, got.Table(), rd.Warnings())
		})
	}
}

// TestBuildsReadAlike checks that the two 2025 exports of one run (the
// ttft key of 5e0b1e17, time_to_first_token from 43b78902) give the same
// turns: their ids differ, their counts and token sums do not.
func TestBuildsReadAlike(t *testing.T) {
	read := func(path string) (readertest.Loadgen, [4]int64) {
		lr, err := lineio.Open(path, "profile_export.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		defer lr.Close()
		l := readertest.Collect(NewReader(lr, t0))
		var sums [4]int64
		for _, tr := range l.Turns {
			sums[0] += tr.PromptTokens
			sums[1] += tr.OutputTokens
			if tr.FirstTokenS != nil {
				sums[2]++
			}
			if tr.Status != schema.TurnOK {
				sums[3]++
			}
		}
		return l, sums
	}
	a, sa := read(readertest.FixturePath("aiperf-2025", "profile_export.jsonl"))
	b, sb := read("testdata/after-43b78902.jsonl")
	if a.N != 57 || len(a.Sessions) != 20 || a.Cached != 0 || b.N != a.N || len(b.Sessions) != len(a.Sessions) || b.Cached != 0 {
		t.Errorf("%d and %d turns, %d and %d sessions, %d and %d with cached counts; want 57, 20, 0 each",
			a.N, b.N, len(a.Sessions), len(b.Sessions), a.Cached, b.Cached)
	}
	if sa != sb {
		t.Errorf("prompt, output, first tokens, failed = %v and %v", sa, sb)
	}
}

// meta26 is the metadata of a 2026 record (msgspec, defaults omitted):
// credit at t=0.5 s, sent at 1 s, done at 3 s.
const meta26 = `"request_num":1,"session_num":0,"x_request_id":"r1","x_correlation_id":"s1","conversation_id":"c1","turn_index":2,` +
	`"credit_issued_ns":1793102400500000000,"credit_received_ns":1793102400500100000,"request_start_ns":1793102401000000000,` +
	`"request_ack_ns":1793102401010000000,"request_end_ns":1793102403000000000,"worker_id":"w","record_processor_id":"p","benchmark_phase":"profiling"`

// meta25 is the same request as a 2025 build writes it: no credit times,
// nulls written, was_cancelled always.
const meta25 = `"session_num":0,"x_request_id":"r1","x_correlation_id":"s1","conversation_id":"c1","turn_index":2,"request_start_ns":1793102401000000000,` +
	`"request_ack_ns":null,"request_end_ns":1793102403000000000,"worker_id":"w","record_processor_id":"p","benchmark_phase":"profiling","was_cancelled":false,"cancellation_time_ns":null`

func rec(meta, metrics, tail string) string {
	return `{"metadata":{` + meta + `},"metrics":{` + metrics + `}` + tail + `}`
}

const usage = `"usage_prompt_tokens":{"value":6000,"unit":"tokens"},"usage_completion_tokens":{"value":300,"unit":"tokens"},"usage_prompt_cache_read_tokens":{"value":5120,"unit":"tokens"}`

// TestMapping checks each field mapping and each difference between the
// builds on one record.
func TestMapping(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	tests := []struct {
		name, line string
		want       schema.Turn
		cached     bool
		ordinal    bool
	}{
		{"2026 with usage and cache", rec(meta26, `"time_to_first_token":{"value":250.0,"unit":"ms"},"input_sequence_length":{"value":5990,"unit":"tokens"},`+usage, ""),
			schema.Turn{Session: "s1", Turn: 2, ReadyS: f(0.5), SentS: f(1), FirstTokenS: f(1.25), DoneS: 3, PromptTokens: 6000, CachedTokens: 5120, OutputTokens: 300, Status: "ok"}, true, false},
		{"2026 without usage: client counts", rec(meta26, `"time_to_first_token":{"value":250.0,"unit":"ms"},"input_sequence_length":{"value":5990,"unit":"tokens"},"output_sequence_length":{"value":310,"unit":"tokens"}`, ""),
			schema.Turn{Session: "s1", Turn: 2, ReadyS: f(0.5), SentS: f(1), FirstTokenS: f(1.25), DoneS: 3, PromptTokens: 5990, OutputTokens: 310, Status: "ok"}, false, false},
		{"2025 nulls written, ttft key", rec(meta25, `"input_sequence_length":{"value":800,"unit":"tokens"},"ttft":{"value":90.0,"unit":"ms"},"output_sequence_length":{"value":61,"unit":"tokens"}`, `,"error":null`),
			schema.Turn{Session: "s1", Turn: 2, SentS: f(1), FirstTokenS: f(1.09), DoneS: 3, PromptTokens: 800, OutputTokens: 61, Status: "ok"}, false, false},
		{"ttft in ns", rec(meta26, `"time_to_first_token":{"value":2000000,"unit":"ns"},`+usage, ""),
			schema.Turn{Session: "s1", Turn: 2, ReadyS: f(0.5), SentS: f(1), FirstTokenS: f(1.002), DoneS: 3, PromptTokens: 6000, CachedTokens: 5120, OutputTokens: 300, Status: "ok"}, true, false},
		{"ttft in us", rec(meta26, `"time_to_first_token":{"value":2000,"unit":"us"},`+usage, ""),
			schema.Turn{Session: "s1", Turn: 2, ReadyS: f(0.5), SentS: f(1), FirstTokenS: f(1.002), DoneS: 3, PromptTokens: 6000, CachedTokens: 5120, OutputTokens: 300, Status: "ok"}, true, false},
		{"ttft in sec", rec(meta26, `"time_to_first_token":{"value":0.5,"unit":"sec"},`+usage, ""),
			schema.Turn{Session: "s1", Turn: 2, ReadyS: f(0.5), SentS: f(1), FirstTokenS: f(1.5), DoneS: 3, PromptTokens: 6000, CachedTokens: 5120, OutputTokens: 300, Status: "ok"}, true, false},
		{"error: error_isl, no first token", rec(meta26, `"error_isl":{"value":9455,"unit":"tokens"}`, `,"error":{"code":500,"type":"Internal Server Error","message":"boom"}`),
			schema.Turn{Session: "s1", Turn: 2, ReadyS: f(0.5), SentS: f(1), DoneS: 3, PromptTokens: 9455, Status: "error"}, false, false},
		{"cancelled: aborted before error", rec(meta26+`,"was_cancelled":true,"cancellation_time_ns":1793102402900000000`, `"error_isl":{"value":6845,"unit":"tokens"}`, `,"error":{"code":499,"type":"RequestCancellationError","message":"cancelled"}`),
			schema.Turn{Session: "s1", Turn: 2, ReadyS: f(0.5), SentS: f(1), DoneS: 3, PromptTokens: 6845, Status: "aborted"}, false, false},
		{"no correlation id: the request is the session", rec(strings.Replace(meta26, `"x_correlation_id":"s1",`, "", 1), usage, ""),
			schema.Turn{Session: "r1", Turn: 2, ReadyS: f(0.5), SentS: f(1), DoneS: 3, PromptTokens: 6000, CachedTokens: 5120, OutputTokens: 300, Status: "ok"}, true, false},
		{"no turn index: numbered by order", rec(strings.Replace(meta26, `"turn_index":2,`, "", 1), usage, ""),
			schema.Turn{Session: "s1", ReadyS: f(0.5), SentS: f(1), DoneS: 3, PromptTokens: 6000, CachedTokens: 5120, OutputTokens: 300, Status: "ok"}, true, true},
		{"kubernetes: clock_offset_ns moves the worker's times onto the controller's clock", rec(meta26+`,"clock_offset_ns":250000000`, `"time_to_first_token":{"value":250.0,"unit":"ms"},`+usage, ""),
			schema.Turn{Session: "s1", Turn: 2, ReadyS: f(0.5), SentS: f(0.75), FirstTokenS: f(1), DoneS: 2.75, PromptTokens: 6000, CachedTokens: 5120, OutputTokens: 300, Status: "ok"}, true, false},
		{"kubernetes: a negative clock_offset_ns", rec(meta26+`,"clock_offset_ns":-250000000`, usage, ""),
			schema.Turn{Session: "s1", Turn: 2, ReadyS: f(0.5), SentS: f(1.25), DoneS: 3.25, PromptTokens: 6000, CachedTokens: 5120, OutputTokens: 300, Status: "ok"}, true, false},
		{"unknown metric tags and trace data are ignored", rec(meta26, `"some_new_metric":{"value":[1,2],"unit":"ms"},`+usage, `,"trace_data":{"x":1}`),
			schema.Turn{Session: "s1", Turn: 2, ReadyS: f(0.5), SentS: f(1), DoneS: 3, PromptTokens: 6000, CachedTokens: 5120, OutputTokens: 300, Status: "ok"}, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rd := reader(t, tc.line+"\n")
			got, err := rd.Next()
			if err != nil {
				t.Fatal(err)
			}
			if d := diffTurn(got.Row, tc.want); d != "" {
				t.Error(d)
			}
			if got.CachedReported != tc.cached || got.Ordinal != tc.ordinal {
				t.Errorf("cached reported %v, ordinal %v; want %v, %v", got.CachedReported, got.Ordinal, tc.cached, tc.ordinal)
			}
			if _, err := rd.Next(); err != io.EOF {
				t.Errorf("after the record: %v, want io.EOF", err)
			}
		})
	}
}

// diffTurn compares two turns, times to the nanosecond.
func diffTurn(got, want schema.Turn) string {
	g, w := readertest.Loadgen{Turns: []schema.Turn{got}}, readertest.Loadgen{Turns: []schema.Turn{want}}
	if g.Table() != w.Table() {
		return "got\n" + g.Table() + "want\n" + w.Table()
	}
	return ""
}

// TestClockOffsetWarnings checks that records are counted by whether they
// carried the worker's clock offset, the largest offset named, and the ones
// that did not (a worker's first credits, before its offset was measured:
// workers/worker.py) named too. AIPerf stamps the offset in every run mode,
// not only in Kubernetes runs (docs/reference/time-synchronization.md,
// ai-dynamo/aiperf@f576d121: "The credit-based one-way offset tracking runs
// in every mode"), so the warning does not call the run a Kubernetes one.
func TestClockOffsetWarnings(t *testing.T) {
	shifted := rec(meta26+`,"clock_offset_ns":250000000`, usage, "")
	local := strings.Replace(rec(meta26+`,"clock_offset_ns":-41000`, usage, ""), `"turn_index":2`, `"turn_index":4`, 1)
	plain := strings.Replace(rec(meta26, usage, ""), `"turn_index":2`, `"turn_index":3`, 1)
	rd := reader(t, shifted+"\n"+local+"\n"+plain+"\n")
	got := readertest.Collect(rd)
	if got.N != 3 || len(got.Errs) > 0 {
		t.Fatalf("%d turns, errors %v", got.N, got.Errs)
	}
	ws := strings.Join(rd.Warnings(), "\n")
	for _, want := range []string{"2 record(s) carry clock_offset_ns (the worker's measured offset from the controller's clock, which AIPerf stamps in every run mode; the largest 250 ms)", "1 record(s) carry none"} {
		if !strings.Contains(ws, want) {
			t.Errorf("warnings %q lack %q", ws, want)
		}
	}
	if strings.Contains(ws, "Kubernetes") {
		t.Errorf("warnings %q call the run a Kubernetes one", ws)
	}
	rd = reader(t, rec(meta26, usage, "")+"\n")
	readertest.Collect(rd)
	if ws := strings.Join(rd.Warnings(), "\n"); strings.Contains(ws, "clock_offset_ns") {
		t.Errorf("records without clock offsets are warned of them: %q", ws)
	}
}

func TestWarmupIsCountedNotReturned(t *testing.T) {
	warm := strings.Replace(rec(meta26, usage, ""), `"profiling"`, `"warmup"`, 1)
	rd := reader(t, warm+"\n"+rec(meta26, usage, "")+"\n")
	got := readertest.Collect(rd)
	if got.N != 1 || rd.Info().Warmup != 1 || rd.Info().Records != 2 {
		t.Errorf("%d turns, info %+v; want 1 turn, 1 warmup of 2 records", got.N, rd.Info())
	}
	if ws := strings.Join(rd.Warnings(), "\n"); !strings.Contains(ws, "1 warmup record(s)") {
		t.Errorf("warnings %q do not count the warmup record", ws)
	}
}

// TestBadLines checks the error of each kind of bad record, with the
// line and column of the offending value.
func TestBadLines(t *testing.T) {
	good := rec(meta26, usage, "")
	tests := []struct{ name, text, want string }{
		{"truncated JSON mid-file", good[:60] + "\n" + good + "\n",
			"profile_export.jsonl:1:61: invalid JSON: unexpected EOF"},
		{"not an object", "[1,2]\n", "profile_export.jsonl:1:1: want a JSON object (an AIPerf record), got an array"},
		{"wrong type", strings.Replace(good, `"turn_index":2`, `"turn_index":"2"`, 1) + "\n",
			`profile_export.jsonl:1:126: metadata.turn_index: want an integer, got a string`},
		{"negative count", strings.Replace(good, `"value":300`, `"value":-300`, 1) + "\n",
			"profile_export.jsonl:1:493: metrics.usage_completion_tokens.value: want a non-negative integer, got -300"},
		{"cached > prompt", strings.Replace(good, `"value":5120`, `"value":6001`, 1) + "\n",
			"profile_export.jsonl:1:556: metrics.usage_prompt_cache_read_tokens 6001 exceeds the prompt's 6000 tokens"},
		{"unknown phase", strings.Replace(good, `"profiling"`, `"ramp_up"`, 1) + "\n",
			`profile_export.jsonl:1:381: metadata.benchmark_phase: unknown phase "ramp_up" (AIPerf writes warmup or profiling)`},
		{"missing phase", strings.Replace(good, `,"benchmark_phase":"profiling"`, ``, 1) + "\n",
			"profile_export.jsonl:1: missing required field metadata.benchmark_phase"},
		{"not a Unix time", strings.Replace(good, `"request_start_ns":1793102401000000000`, `"request_start_ns":123456789`, 1) + "\n",
			"profile_export.jsonl:1:227: metadata.request_start_ns: 123456789 is not a Unix time in nanoseconds"},
		{"ends before it starts", strings.Replace(good, `"request_end_ns":1793102403000000000`, `"request_end_ns":1793102400000000000`, 1) + "\n",
			"profile_export.jsonl:1:301: metadata.request_end_ns is before request_start_ns"},
		{"unknown unit", rec(meta26, `"time_to_first_token":{"value":1,"unit":"min"},`+usage, "") + "\n",
			`profile_export.jsonl:1:436: metrics.time_to_first_token.value: unknown unit "min" (want ns, us, ms or sec)`},
		{"missing end", strings.Replace(good, `,"request_end_ns":1793102403000000000`, ``, 1) + "\n",
			"profile_export.jsonl:1: missing required field metadata.request_end_ns"},
		{"metric not an object", rec(meta26, `"usage_prompt_tokens":6000`, "") + "\n",
			"profile_export.jsonl:1:427: metrics.usage_prompt_tokens: want an object {value, unit}, got the number 6000"},
		{"error not an object", rec(meta26, usage, `,"error":"boom"`) + "\n",
			`profile_export.jsonl:1:587: error: want an object or null, got a string`},
		{"duplicate key", strings.Replace(good, `"turn_index":2`, `"turn_index":2,"turn_index":3`, 1) + "\n",
			`profile_export.jsonl:1:128: invalid JSON: duplicate object member name`},
		{"completed without a prompt count", rec(meta26, `"time_to_first_token":{"value":250.0,"unit":"ms"},"usage_completion_tokens":{"value":300,"unit":"tokens"}`, "") + "\n",
			"profile_export.jsonl:1: a completed request without a prompt-token count (metrics holds neither usage_prompt_tokens nor input_sequence_length: " +
				"AIPerf counted none, as with --use-server-token-count when the server sent no usage, or on an endpoint that produces no tokens): its count is unknown, not 0"},
		{"completed without an output count", rec(meta26, `"time_to_first_token":{"value":250.0,"unit":"ms"},"input_sequence_length":{"value":5990,"unit":"tokens"}`, "") + "\n",
			"profile_export.jsonl:1: a completed request without an output-token count (metrics holds neither usage_completion_tokens nor output_sequence_length: " +
				"AIPerf counted none, as with --use-server-token-count when the server sent no usage, or on an endpoint that produces no tokens): its count is unknown, not 0"},
		{"implausible clock offset", rec(meta26+`,"clock_offset_ns":7200000000000`, usage, "") + "\n",
			"profile_export.jsonl:1:411: metadata.clock_offset_ns: 7200000000000 ns is more than an hour: not a clock offset between AIPerf's hosts"},
		{"repeated turn", good + "\n" + good + "\n",
			`profile_export.jsonl:2: session "s1" turn 2 is repeated (first at profile_export.jsonl:1)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := readertest.Collect(reader(t, tc.text))
			if len(got.Errs) == 0 || got.Errs[0] != tc.want {
				t.Errorf("errors %q,\nwant first %q", got.Errs, tc.want)
			}
		})
	}
}

func TestCutShortLastLineIsAWarning(t *testing.T) {
	good := rec(meta26, usage, "")
	rd := reader(t, good+"\n"+good[:80])
	got := readertest.Collect(rd)
	if len(got.Errs) != 0 || got.N != 1 {
		t.Fatalf("%d turns, errors %q; want 1 turn and no error", got.N, got.Errs)
	}
	if ws := strings.Join(rd.Warnings(), "\n"); !strings.Contains(ws, "profile_export.jsonl:2: the last line is cut short") {
		t.Errorf("warnings %q", ws)
	}
}

// TestChunksGiveTheSameTurns reads the fixture cut into many small chunks
// (several parsing goroutines) and checks the result is what one chunk
// gives.
func TestChunksGiveTheSameTurns(t *testing.T) {
	data := readertest.FixtureFile(t, "aiperf-2026", "profile_export.jsonl")
	read := func() string { return readertest.Collect(reader(t, string(data))).Table() }
	want := read()
	defer func(n int) { chunkSize = n }(chunkSize)
	chunkSize = 1500
	if got := read(); got != want {
		t.Error("small chunks read differently")
	}
}

func TestSniff(t *testing.T) {
	data := readertest.FixtureFile(t, "aiperf-2025", "profile_export.jsonl")
	first, _, _ := bytes.Cut(data, []byte("\n"))
	spaced := jsontext.Value(bytes.Clone(first))
	if err := spaced.Format(jsontext.SpaceAfterColon(true), jsontext.SpaceAfterComma(true)); err != nil {
		t.Fatal(err)
	}
	for name, line := range map[string][]byte{
		"the 2025 fixture": first,
		"json.dumps":       spaced, // ": " and ", " between tokens
		// White space wherever JSON allows it on one line.
		"any white space": []byte(strings.NewReplacer(`{"`, "{ \t\"", `":`, "\" :", `,"`, " ,\"").Replace(string(first))),
	} {
		if !Sniff(line) {
			t.Errorf("%s is not recognised: %.80s", name, line)
		}
	}
	for _, s := range []string{`{"ts":1,"ev":"turn"}`, `{"metadata": {"version": 2}, "config": {}, "benchmarks": [{"metrics": {}}]}`, `[{"start_time": 1.0}]`,
		`{"metadata":{"request_start_ns":1,"benchmark_phase":"profiling","x":"metrics"}}`,             // "metrics" only as a value
		`{"error":null,"metadata":{"request_start_ns":1,"benchmark_phase":"profiling"},"metrics":{}}`, // metadata not first
	} {
		if Sniff([]byte(s)) {
			t.Errorf("%s taken for AIPerf", s)
		}
	}
}

// FuzzRecord feeds one line to the reader: it returns a turn that keeps the
// format's invariants, or a positioned error on that line; never a panic.
func FuzzRecord(f *testing.F) {
	f.Add(rec(meta26, usage, ""))
	f.Add(rec(meta25, `"input_sequence_length":{"value":800,"unit":"tokens"},"ttft":{"value":90.0,"unit":"ms"}`, `,"error":null`))
	f.Add(rec(meta26+`,"was_cancelled":true`, `"error_isl":{"value":6845,"unit":"tokens"}`, `,"error":{"code":499}`))
	f.Add(rec(meta26+`,"clock_offset_ns":-5000`, usage, ""))
	f.Add(`{"metadata":{"benchmark_phase":"warmup"}}`)
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\r\n") {
			return
		}
		rd := reader(t, line+"\n")
		tr, err := rd.Next()
		switch {
		case err == io.EOF:
			if rd.Info().Warmup != 1 && strings.TrimSpace(line) != "" {
				t.Fatalf("no turn, no error, no warmup record for %q", line)
			}
		case err != nil:
			var pe *textpos.ParseError
			if !errors.As(err, &pe) || pe.Pos.Line != 1 || pe.Column > len(line)+1 {
				t.Fatalf("%v is not an error at line 1 of %q", err, line)
			}
		default:
			r := tr.Row
			if r.Session == "" || r.SentS == nil || r.DoneS < *r.SentS || math.IsNaN(r.DoneS) || r.PromptTokens < 0 || r.OutputTokens < 0 {
				t.Fatalf("bad turn %+v from %q", r, line)
			}
			if tr.CachedReported && r.CachedTokens > r.PromptTokens {
				t.Fatalf("cached %d > prompt %d", r.CachedTokens, r.PromptTokens)
			}
		}
	})
}

// TestTimesAreExactDecimals checks that a first token time, the request's
// start in ns plus its time to first token in its unit, is the float64
// nearest the exact decimal sum: strconv.ParseFloat of it written out.
// Parsing the TTFT, dividing by its unit and adding rounds three times
// (2.6224582030000003 for 0.079157603 s + 2543.3006 ms).
func TestTimesAreExactDecimals(t *testing.T) {
	meta := strings.Replace(meta26, `"request_start_ns":1793102401000000000`, `"request_start_ns":1793102400079157603`, 1)
	for _, tc := range []struct{ value, unit, want string }{
		{"2543.3006", "ms", "2.622458203"},
		{"2543300.6", "us", "2.622458203"},
		{"2543300600", "ns", "2.622458203"},
		{"2.5433006", "sec", "2.622458203"},
		{"322.5128650665283", "ms", "0.4016704680665283"},
		{"1.29e3", "ms", "1.369157603"},
	} {
		rd := reader(t, rec(meta, `"time_to_first_token":{"value":`+tc.value+`,"unit":"`+tc.unit+`"},`+usage, "")+"\n")
		got, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := strconv.ParseFloat(tc.want, 64)
		if got.Row.FirstTokenS == nil || math.Float64bits(*got.Row.FirstTokenS) != math.Float64bits(want) {
			t.Errorf("%s %s: first token %s, want %s", tc.value, tc.unit, readertest.Ptr(got.Row.FirstTokenS), tc.want)
		}
		if s := strconv.FormatFloat(*got.Row.SentS, 'f', -1, 64); s != "0.079157603" {
			t.Errorf("sent %s, want 0.079157603", s)
		}
	}
}

// TestPlannedTurns checks the turns AIPerf planned for each conversation,
// from the inputs.json it writes beside the export (one payload per turn,
// dataset/dataset_manager.py): each record of a conversation carries its
// count, so that a session cut by the run's end (AIPerf drops a request
// that ends after the duration and its grace period, and sends no turn
// after it) is open. A conversation inputs.json does not hold, or a
// record without conversation_id, carries none.
func TestPlannedTurns(t *testing.T) {
	plan, err := ReadPlan(strings.NewReader(`{
  "data": [
    {"session_id": "c1", "payloads": [{"messages": [{"role": "user", "content": "a"}]}, {"messages": []}, {}, {}]},
    {"session_id": "c2", "payloads": [{}]},
    {"payloads": [{}]}
  ]
}`), PlanFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 2 || plan["c1"] != 4 || plan["c2"] != 1 {
		t.Errorf("plan %v, want c1: 4, c2: 1", plan)
	}
	text := rec(meta26, usage, "") + "\n" + rec(strings.Replace(meta26, `"conversation_id":"c1"`, `"conversation_id":"c9"`, 1), usage, "") + "\n"
	text = strings.Replace(text, `"x_correlation_id":"s1","conversation_id":"c9"`, `"x_correlation_id":"s2","conversation_id":"c9"`, 1)
	rd := reader(t, text)
	rd.SetPlan(plan)
	for _, want := range []int64{4, 0} {
		tr, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		if tr.Planned != want {
			t.Errorf("session %s planned %d, want %d", tr.Row.Session, tr.Planned, want)
		}
	}
	for _, bad := range []string{`{"data": [{"session_id": 3, "payloads": []}]}`, `{"data": [`, `[]`} {
		if _, err := ReadPlan(strings.NewReader(bad), PlanFile); err == nil || !strings.HasPrefix(err.Error(), PlanFile+":") {
			t.Errorf("%s: error %v, want one naming %s", bad, err, PlanFile)
		}
	}
}
