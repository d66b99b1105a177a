package guidellm

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// t0 is the t=0 of the tests.
var t0 = readertest.T0

// benchmarkRead is one benchmark as read.
type benchmarkRead struct {
	b *Benchmark
	readertest.Loadgen
}

// readReport reads every benchmark of the report text through the
// session derivation; a header error ends the list and is returned.
func readReport(t testing.TB, text string, opt Options, start time.Time) ([]benchmarkRead, *Reader, error) {
	t.Helper()
	rd, err := NewReader(strings.NewReader(text), "benchmarks.json", opt)
	if err != nil {
		return nil, nil, err
	}
	var out []benchmarkRead
	err = eachBenchmark(rd, start, func(b *Benchmark) error {
		out = append(out, benchmarkRead{b, readertest.Collect(rd)})
		return nil
	})
	return out, rd, err
}

// eachBenchmark calls each on every benchmark of the report, with the
// run's t=0 set to start for its turns, until the report's end, an error
// of the reader's or one of each's.
func eachBenchmark(rd *Reader, start time.Time, each func(b *Benchmark) error) error {
	for {
		b, err := rd.NextBenchmark()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		rd.SetT0(start)
		if err := each(b); err != nil {
			return err
		}
	}
}

// TestGolden reads each report and compares its benchmarks' tables with
// their golden files.
func TestGolden(t *testing.T) {
	inputs := []struct {
		name, path string
		lenient    bool
		start      time.Time
	}{
		{"main", readertest.FixturePath("guidellm-main", "benchmarks.json"), false, t0},
		{"v0.6.1", readertest.FixturePath("guidellm-0.6.1", "benchmarks.json"), false, t0},
		{"sweep", "testdata/sweep.json", false, t0},
		{"sampled", "testdata/sampled.json", true, t0},
		{"v0.3.1-stripped", "testdata/v0.3.1-stripped.json", true, time.Date(2025, 6, 5, 20, 59, 28, 0, time.UTC)},
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			bs, rd, err := readReport(t, string(readertest.ReadFile(t, in.path)), Options{Lenient: in.lenient}, in.start)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "report %+v\n", rd.Report())
			for _, x := range bs {
				fmt.Fprintf(&b, "\n## benchmarks[%d]: strategy %s rate %s concurrency %s model %s, in window %v, excluded %d\n",
					x.b.Index, x.b.Strategy, readertest.Ptr(x.b.Rate), readertest.Ptr(x.b.Concurrency), x.b.Model, x.b.In, x.b.Excluded)
				b.WriteString(x.Table())
			}
			readertest.GoldenWarnings(t, in.name, b.String(), rd.Warnings())
		})
	}
}

// TestYAMLReadsAsJSON checks that the YAML form of a report gives the
// turns and sessions its JSON form gives (in bucket order: yaml.dump sorts
// them), with positions in the YAML.
func TestYAMLReadsAsJSON(t *testing.T) {
	for _, pair := range [][2]string{
		{readertest.FixturePath("guidellm-main", "benchmarks.json"), "testdata/main.yaml"},
		{"testdata/v0.3.1-stripped.json", "testdata/v0.3.1-stripped.yaml"},
	} {
		j, _, err := readReport(t, string(readertest.ReadFile(t, pair[0])), Options{Lenient: true}, t0)
		if err != nil {
			t.Fatal(err)
		}
		y, _, err := readReport(t, string(readertest.ReadFile(t, pair[1])), Options{Lenient: true}, t0)
		if err != nil {
			t.Fatal(err)
		}
		if len(j) != len(y) {
			t.Fatalf("%s: %d benchmarks in JSON, %d in YAML", pair[1], len(j), len(y))
		}
		for i := range j {
			if got, want := sorted(y[i].Table()), sorted(j[i].Table()); got != want {
				t.Errorf("%s benchmarks[%d] reads differently from its JSON form", pair[1], i)
			}
			if y[i].b.In != j[i].b.In || y[i].b.Strategy != j[i].b.Strategy {
				t.Errorf("%s benchmarks[%d]: %v %s, JSON %v %s", pair[1], i, y[i].b.In, y[i].b.Strategy, j[i].b.In, j[i].b.Strategy)
			}
		}
	}
}

// sorted sorts a table's lines, to compare tables read in other orders.
func sorted(table string) string {
	// An error's position is the form's own (a YAML line, a JSON column).
	table = regexp.MustCompile(`benchmarks\.json:[0-9:]+: `).ReplaceAllString(table, "benchmarks.json: ")
	lines := strings.Split(table, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// A one-benchmark report of version 2 with one request list per bucket:
// the measured window is t = 0..100 s.
const head = `{"metadata": {"version": 2, "guidellm_version": "0.7.4"}, "config": {"spec": {"backend": {"model": "m", "target": "http://x"}}}, ` +
	`"benchmarks": [{"type_": "generative_benchmark", "config": {"run_index": 0, "strategy": STRATEGY, "sample_size": null}, ` +
	`"scheduler_metrics": {"start_time": 1793102399.5, "measure_start_time": 1793102400.0, "measure_end_time": 1793102500.0, "end_time": 1793102501.0}, ` +
	`"metrics": {"request_totals": TOTALS}, "requests": {"successful": [OK], "errored": [ERR], "incomplete": [INC], "total": null}, "start_time": 1793102400.0}]}`

// req is a completed request of the current schema: ready at 1 s, sent at
// 1.2 s, first token at 1.5 s, done at 3 s; 5000 prompt tokens, 4096 of
// them cached, 200 output tokens.
const req = `{"type_": "generative_request_stats", "request_id": "r1", "request_args": "{}", "output": "...", ` +
	`"info": {"request_id": "r1", "conversation_id": "c1", "history_len": 2, "turn_index": 1, "node_id": "turn_1", "agent_id": null, "status": "completed", ` +
	`"timings": {"targeted_start": 1793102401.0, "dequeued": 1793102401.0, "resolve_start": 1793102401.1, "request_start": 1793102401.2, "first_token_iteration": 1793102401.5, ` +
	`"request_end": 1793102403.0, "resolve_end": 1793102403.1}, "error": null}, ` +
	`"input_metrics": {"text_tokens": 5000, "cached_tokens": 4096, "total_tokens": 5000}, "output_metrics": {"text_tokens": 200, "cached_tokens": null, "total_tokens": 200}, ` +
	`"request_start_time": 1793102401.2, "request_end_time": 1793102403.0, "prompt_tokens": 5000, "cached_tokens": 4096, "output_tokens": 200}`

// report fills head: the strategy, the totals, and the three lists.
func report(strategy, totals, ok, errored, incomplete string) string {
	if strategy == "" {
		strategy = `{"type_": "concurrent", "streams": 4, "max_concurrency": 4}`
	}
	if totals == "" {
		totals = "null"
	}
	r := strings.NewReplacer("STRATEGY", strategy, "TOTALS", totals, "OK", ok, "ERR", errored, "INC", incomplete)
	return r.Replace(head)
}

func edit(s string, pairs ...string) string { return strings.NewReplacer(pairs...).Replace(s) }

// TestMapping checks each field mapping and each difference between
// versions on one request.
func TestMapping(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	full := schema.Turn{Session: "c1", Turn: 1, Origin: "base", ReadyS: f(1), SentS: f(1.2), FirstTokenS: f(1.5), DoneS: 3, PromptTokens: 5000, CachedTokens: 4096, OutputTokens: 200, Status: "ok"}
	noCache := full
	noCache.CachedTokens = 0
	with := func(t schema.Turn, edit func(*schema.Turn)) schema.Turn { edit(&t); return t }
	v03 := `{"type_": "generative_text_response", "request_id": "r1", "request_type": "text_completions", "scheduler_info": {"requested": true, "completed": true, ` +
		`"targeted_start_time": 1793102401.0, "dequeued_time": 1793102401.0, "request_start": 1793102401.2, "request_end": 1793102403.0, "worker_end": 1793102403.1}, "prompt": "p", "output": "o", ` +
		`"prompt_tokens": 5000, "output_tokens": 200, "start_time": 1793102401.2, "end_time": 1793102403.0, "first_token_time": 1793102401.5, "last_token_time": 1793102402.9}`
	tests := []struct {
		name, report string
		want         schema.Turn
		cached       bool
	}{
		{"current schema", report("", "", req, "", ""), full, true},
		{"cached only in input_metrics (2026-08 main)", report("", "", edit(req, `"prompt_tokens": 5000, "cached_tokens": 4096,`, `"prompt_tokens": 5000,`), "", ""), full, true},
		{"v0.6: no cached tokens anywhere", report("", "", edit(req, `, "cached_tokens": 4096`, ``, `"cached_tokens": 4096, `, ``), "", ""), noCache, false},
		{"cached null", report("", "", edit(req, `"cached_tokens": 4096`, `"cached_tokens": null`), "", ""), noCache, false},
		{"v0.4-v0.5: no conversation", report("", "", edit(req, `"conversation_id": "c1", `, ``, `"turn_index": 1, `, ``), "", ""),
			with(full, func(t *schema.Turn) { t.Session, t.Turn = "r1", 0 }), true},
		{"conversation null", report("", "", edit(req, `"conversation_id": "c1"`, `"conversation_id": null`), "", ""),
			with(full, func(t *schema.Turn) { t.Session = "r1" }), true},
		{"a sub-agent's branch", report("", "", edit(req, `"agent_id": null`, `"agent_id": "a7"`), "", ""),
			with(full, func(t *schema.Turn) { t.Session = "c1/a7" }), true},
		{"no request_start: resolve_start", report("", "", edit(req, `"request_start": 1793102401.2, `, ``), "", ""),
			with(full, func(t *schema.Turn) { t.SentS = f(1.1) }), true},
		{"request_end null: resolve_end", report("", "", edit(req, `"request_end": 1793102403.0`, `"request_end": null`), "", ""),
			with(full, func(t *schema.Turn) { t.DoneS = 3.1 }), true},
		{"no dequeued (a closed loop's ready)", report("", "", edit(req, `"dequeued": 1793102401.0, `, ``), "", ""),
			with(full, func(t *schema.Turn) { t.ReadyS = nil }), true},
		{"errored", report("", "", "", edit(req, `"first_token_iteration": 1793102401.5`, `"first_token_iteration": null`, `"output_tokens": 200`, `"output_tokens": null`,
			`"output_metrics": {"text_tokens": 200, "cached_tokens": null, "total_tokens": 200}`, `"output_metrics": {"text_tokens": null, "cached_tokens": null, "total_tokens": null}`), ""),
			with(full, func(t *schema.Turn) { t.FirstTokenS, t.OutputTokens, t.Status = nil, 0, "error" }), true},
		{"incomplete", report("", "", "", "", req), with(full, func(t *schema.Turn) { t.Status = "aborted" }), true},
		// v0.4.0 and v0.5.0 sum the modality counts with `or None`
		// (schemas/request.py UsageMetrics.total_tokens, fixed by
		// vllm-project/guidellm@512e0833 "Ensure total_tokens differentiates
		// between no data and 0 tokens", in v0.5.1), so a completed
		// request's count of 0 is written null beside text_tokens 0.
		{"v0.4.0-v0.5.0: a count of 0 written null", report("", "", edit(req, `"output_metrics": {"text_tokens": 200, "cached_tokens": null, "total_tokens": 200}`,
			`"output_metrics": {"text_tokens": 0, "text_words": 0, "image_tokens": null, "total_tokens": null}`, `"output_tokens": 200`, `"output_tokens": null`), "", ""),
			with(full, func(t *schema.Turn) { t.OutputTokens = 0 }), true},
		{"v0.3: scheduler_info", report("", "", v03, "", ""),
			with(noCache, func(t *schema.Turn) { t.Session, t.Turn = "r1", 0 }), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bs, _, err := readReport(t, tc.report, Options{}, t0)
			if err != nil {
				t.Fatal(err)
			}
			if len(bs) != 1 || len(bs[0].Errs) > 0 || len(bs[0].Turns) != 1 {
				t.Fatalf("benchmarks %d, errors %v", len(bs), bs)
			}
			got := readertest.Loadgen{Turns: bs[0].Turns}.Table()
			if want := (readertest.Loadgen{Turns: []schema.Turn{tc.want}}).Table(); got != want {
				t.Errorf("got\n%swant\n%s", got, want)
			}
			if (bs[0].Cached == 1) != tc.cached {
				t.Errorf("cached reported %v, want %v", bs[0].Cached == 1, tc.cached)
			}
		})
	}
}

// embReq is a completed embeddings request as GuideLLM main writes it
// (vllm-project/guidellm@ee7a7745: EmbeddingsRequestHandler in
// src/guidellm/backends/openai/request_handlers.py sends one non-streamed
// request and leaves output_metrics empty; schemas/request_stats.py then
// gives output_tokens null, as no token iteration was seen).
const embReq = `{"type_": "generative_request_stats", "request_id": "e1", "response_id": null, ` +
	`"request_args": "{\"method\":null,\"stream\":false,\"headers\":null,\"params\":null,\"body\":{\"model\":\"m\",\"input\":\"...\"}}", "output": "", ` +
	`"info": {"request_id": "e1", "conversation_id": null, "turn_index": 0, "agent_id": null, "status": "completed", ` +
	`"timings": {"targeted_start": 1793102401.0, "dequeued": 1793102401.0, "resolve_start": 1793102401.1, "request_start": 1793102401.2, "first_token_iteration": null, ` +
	`"token_iterations": 0, "request_end": 1793102401.5, "resolve_end": 1793102401.6}, "error": null}, ` +
	`"input_metrics": {"text_tokens": 128, "cached_tokens": null, "total_tokens": 128}, "output_metrics": {"text_tokens": null, "cached_tokens": null, "total_tokens": null}, ` +
	`"request_start_time": 1793102401.2, "request_end_time": 1793102401.5, "prompt_tokens": 128, "cached_tokens": null, "output_tokens": null}`

// TestEmbeddings checks that an embeddings request has 0 output tokens,
// whatever GuideLLM wrote, and that a null output count of any other
// request is refused as unknown.
func TestEmbeddings(t *testing.T) {
	backend := func(format string) func(string) string {
		return func(r string) string {
			return edit(r, `"sample_size": null}`, `"sample_size": null, "backend": {"kind": "openai_http", "model": "m", "request_format": "`+format+`", "stream": true}}`)
		}
	}
	emb, chat := backend(EmbeddingsFormat), backend("/v1/chat/completions")
	f := func(x float64) *float64 { return &x }
	ok := schema.Turn{Session: "e1", Origin: "base", ReadyS: f(1), SentS: f(1.2), DoneS: 1.5, PromptTokens: 128, Status: "ok"}
	failed, withOutput := ok, ok
	failed.Status, withOutput.OutputTokens = "error", 16
	// The request starts at its column on line 1 (TestBadInput checks
	// positions).
	unknown := "benchmarks[0].requests.successful: a completed request with output_tokens null: " + unknownCount
	tests := []struct {
		name, report string
		want         *schema.Turn // nil: refused with err
		err, warning string
	}{
		{"embeddings: null output", emb(report("", "", embReq, "", "")), &ok, "", ""},
		{"embeddings: the dataset's requested count", emb(report("", "", edit(embReq, `"output_tokens": null`, `"output_tokens": 16`), "", "")), &ok, "",
			"benchmarks[0]: 1 embeddings request(s) (request_format /v1/embeddings) carry output_tokens > 0"},
		{"embeddings: only the report's spec names the endpoint",
			edit(report("", "", embReq, "", ""), `"target": "http://x"}`, `"target": "http://x", "request_format": "/v1/embeddings"}`), &ok, "", ""},
		{"embeddings: errored", emb(report("", "", "", embReq, "")), &failed, "", ""},
		{"embeddings: a bad count is still refused", emb(report("", "", edit(embReq, `"output_tokens": null`, `"output_tokens": -1`), "", "")), nil,
			"output_tokens: want a non-negative integer, got -1", ""},
		{"chat: null output is unknown", chat(report("", "", embReq, "", "")), nil, unknown, ""},
		{"chat: a count is kept", chat(report("", "", edit(embReq, `"output_tokens": null`, `"output_tokens": 16`), "", "")), &withOutput, "", ""},
		{"no request format (v0.6): unknown", report("", "", embReq, "", ""), nil, unknown, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bs, rd, err := readReport(t, tc.report, Options{}, t0)
			if err != nil {
				t.Fatal(err)
			}
			if len(bs) != 1 {
				t.Fatalf("%d benchmarks", len(bs))
			}
			b := bs[0]
			if tc.want == nil {
				if len(b.Errs) != 1 || !strings.HasPrefix(b.Errs[0], "benchmarks.json:1:") || !strings.Contains(b.Errs[0], tc.err) || len(b.Turns) != 0 {
					t.Errorf("errors %q, turns %d; want one error with %s", b.Errs, len(b.Turns), tc.err)
				}
				return
			}
			if len(b.Errs) > 0 || len(b.Turns) != 1 {
				t.Fatalf("errors %q, %d turns", b.Errs, len(b.Turns))
			}
			if got, want := (readertest.Loadgen{Turns: b.Turns}).Table(), (readertest.Loadgen{Turns: []schema.Turn{*tc.want}}).Table(); got != want {
				t.Errorf("got\n%swant\n%s", got, want)
			}
			ws := strings.Join(rd.Warnings(), "\n")
			if tc.warning != "" && !strings.Contains(ws, tc.warning) || tc.warning == "" && strings.Contains(ws, "embeddings") {
				t.Errorf("warnings %q, want %q", ws, tc.warning)
			}
		})
	}
}

func TestStrategies(t *testing.T) {
	tests := []struct{ strategy, want string }{
		{`{"type_": "synchronous"}`, "synchronous null 1"},
		{`{"type_": "concurrent", "streams": 8, "max_concurrency": 8}`, "concurrent null 8"},
		{`{"type_": "throughput", "max_concurrency": 256}`, "throughput null 256"},
		{`{"type_": "constant", "rate": 2.5, "max_concurrency": null}`, "constant 2.5 null"},
		{`{"type_": "poisson", "rate": 0.75}`, "poisson 0.75 null"},
	}
	for _, tc := range tests {
		bs, _, err := readReport(t, report(tc.strategy, "", req, "", ""), Options{}, t0)
		if err != nil {
			t.Fatal(err)
		}
		b := bs[0].b
		if got := fmt.Sprintf("%s %s %s", b.Strategy, readertest.Ptr(b.Rate), readertest.Ptr(b.Concurrency)); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.strategy, got, tc.want)
		}
	}
}

// TestWindow checks that requests outside the measured window are counted,
// not returned, as GuideLLM's get_within_range decides.
func TestWindow(t *testing.T) {
	before := edit(req, `"conversation_id": "c1"`, `"conversation_id": "w"`, `1793102401.`, `1793102390.`, `1793102403.`, `1793102399.`)
	straddles := edit(req, `"conversation_id": "c1"`, `"conversation_id": "s"`, `1793102401.`, `1793102398.`)
	after := edit(req, `"conversation_id": "c1"`, `"conversation_id": "a"`, `1793102401.`, `1793102501.`, `1793102403.`, `1793102504.`)
	bs, rd, err := readReport(t, report("", `{"successful": 2, "errored": 0, "incomplete": 0, "total": 2}`, strings.Join([]string{before, straddles, req, after}, ", "), "", ""), Options{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	b := bs[0]
	if b.N != 2 || b.b.Excluded != 2 || b.b.In != [3]int64{2, 0, 0} {
		t.Errorf("%d turns, %d excluded, in %v; want 2, 2, [2 0 0]", b.N, b.b.Excluded, b.b.In)
	}
	if ws := strings.Join(rd.Warnings(), "\n"); !strings.Contains(ws, "2 request(s) outside the benchmark's measured window") {
		t.Errorf("warnings %q", ws)
	}
}

// TestSampled checks that a sampled benchmark is refused at its
// request_totals, and read with a warning when lenient, its error kept
// as the run's reject so that the dataset says the run is a sample.
func TestSampled(t *testing.T) {
	text := string(readertest.ReadFile(t, "testdata/sampled.json"))
	strict, _, err := readReport(t, text, Options{}, t0)
	want := "benchmarks.json:1:3760: benchmarks[0]: the file holds 10 of the 191 successful requests GuideLLM counted in its measured window (request_totals): the requests were sampled"
	if err != nil || len(strict) != 1 || len(strict[0].Errs) != 1 || !strings.HasPrefix(strict[0].Errs[0], want) || !strings.Contains(strict[0].Errs[0], "--lenient") {
		t.Errorf("strict: %v %v\nwant %s ...", err, strict, want)
	}
	bs, rd, err := readReport(t, text, Options{Lenient: true}, t0)
	if err != nil || len(bs) != 1 || bs[0].N != 11 {
		t.Fatalf("lenient: %v, %d benchmarks", err, len(bs))
	}
	if ws := strings.Join(rd.Warnings(), "\n"); !strings.Contains(ws, "WARNING: benchmarks[0]: the file holds 10 of the 191") {
		t.Errorf("warnings %q", ws)
	}
	if errs := bs[0].Errs; len(errs) != 1 || !strings.HasPrefix(errs[0], "benchmarks.json:1:3760: benchmarks[0]: the file holds 10 of the 191") || !strings.HasSuffix(errs[0], "(read anyway: --lenient)") {
		t.Errorf("lenient: errors %q, want the sample's, kept", errs)
	}
}

// TestNewerSchema checks that a report of a schema version newer than 2
// is refused by name, at the version: GuideLLM raises metadata.version
// only for a breaking change to the output format
// (benchmark/schemas/report.py, GenerativeBenchmarkMetadata); --lenient
// reads it as version 2, with a warning.
func TestNewerSchema(t *testing.T) {
	text := edit(report("", "", req, "", ""), `"version": 2, "guidellm_version": "0.7.4"`, `"version": 3, "guidellm_version": "0.9.0"`)
	_, _, err := readReport(t, text, Options{}, t0)
	want := fmt.Sprintf("benchmarks.json:1:%d: metadata.version 3 (guidellm_version 0.9.0): a GuideLLM report schema newer than outlast reads "+
		"(version 1: GuideLLM v0.5-v0.6; 2: v0.7 and later; GuideLLM raises it only for a breaking change to the output format); --lenient reads it as version 2",
		strings.Index(text, `3, "guidellm`)+1)
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	bs, rd, err := readReport(t, text, Options{Lenient: true}, t0)
	if err != nil || len(bs) != 1 || bs[0].N != 1 {
		t.Fatalf("lenient: %v, %d benchmarks", err, len(bs))
	}
	if ws := strings.Join(rd.Warnings(), "\n"); !strings.Contains(ws, "WARNING: metadata.version 3 (guidellm_version 0.9.0): a GuideLLM report schema newer than outlast reads") {
		t.Errorf("warnings %q", ws)
	}
}

// TestBadInput checks the error of each kind of bad input, at the line
// and column of the offending value (line 1: GuideLLM writes one line).
func TestBadInput(t *testing.T) {
	good := report("", "", req, "", "")
	col := func(s, sub string) int { return strings.Index(s, sub) + 1 }
	cut := good[:col(good, `"output_tokens"`)]
	tests := []struct{ name, text, want string }{
		{"truncated JSON", cut, fmt.Sprintf("benchmarks.json:1:%d: the file ends inside a JSON value: it was cut short (at JSON pointer /benchmarks/0/requests/successful/0)", len(cut)+1)},
		{"wrong type", edit(good, `"prompt_tokens": 5000`, `"prompt_tokens": "5000"`),
			fmt.Sprintf(`benchmarks.json:1:%d: benchmarks[0].requests.successful: prompt_tokens: want an integer, got a string`, col(good, `"prompt_tokens": 5000`)+17)},
		{"negative count", edit(good, `"output_tokens": 200`, `"output_tokens": -200`),
			fmt.Sprintf(`benchmarks.json:1:%d: benchmarks[0].requests.successful: output_tokens: want a non-negative integer, got -200`, col(good, `"output_tokens": 200`)+17)},
		{"cached > prompt", edit(good, `"cached_tokens": 4096, "output_tokens"`, `"cached_tokens": 5001, "output_tokens"`),
			fmt.Sprintf(`benchmarks.json:1:%d: benchmarks[0].requests.successful: cached_tokens 5001 exceeds prompt_tokens 5000`, col(good, `"cached_tokens": 4096, "output_tokens"`)+17)},
		{"repeated turn", report("", "", req+", "+req, "", ""),
			fmt.Sprintf(`benchmarks.json:1:%d: session "c1" turn 1 is repeated (first at benchmarks.json:1:%d)`, col(good, req)+len(req)+2, col(good, req))},
		{"unknown request list", edit(good, `"incomplete": []`, `"cancelled": []`),
			fmt.Sprintf(`benchmarks.json:1:%d: benchmarks[0].requests: unknown request list "cancelled" (GuideLLM writes successful, errored, incomplete and total)`, col(good, `"incomplete": []`))},
		{"completed without tokens", edit(good, `"prompt_tokens": 5000`, `"prompt_tokens": null`, `"input_metrics": {"text_tokens": 5000,`, `"input_metrics": {"text_tokens": null,`),
			fmt.Sprintf(`benchmarks.json:1:%d: benchmarks[0].requests.successful: a completed request with prompt_tokens null: %s`, col(good, req), unknownCount)},
		{"no timings", edit(good, `"timings": {`, `"timingz": {`),
			fmt.Sprintf(`benchmarks.json:1:%d: benchmarks[0].requests.successful: missing required field info.timings`, col(good, req))},
		{"a time not a number", edit(good, `"request_end": 1793102403.0`, `"request_end": "soon"`),
			fmt.Sprintf(`benchmarks.json:1:%d: benchmarks[0].requests.successful: info.timings.request_end: want a time in seconds, got a string`, col(good, `"request_end": 1793102403.0`)+15)},
		{"invalid JSON", edit(good, `"turn_index": 1,`, `"turn_index": 1,,`),
			fmt.Sprintf(`benchmarks.json:1:%d: invalid JSON: invalid character ',' at start of string (expecting '"') (at JSON pointer /benchmarks/0/requests/successful/0/info)`, col(good, `"turn_index": 1,`)+16)},
		{"a list for the report", "[1, 2]", "benchmarks.json:1:1: want a GuideLLM report (a JSON object with benchmarks), got a list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bs, _, err := readReport(t, tc.text, Options{}, t0)
			var got string
			switch {
			case err != nil:
				got = err.Error()
			case len(bs) > 0 && len(bs[0].Errs) > 0:
				got = bs[0].Errs[0]
			}
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestPositionsInPrettyJSON checks line and column in an indented report,
// as GuideLLM v0.3 wrote it (json.dump indent=4).
func TestPositionsInPrettyJSON(t *testing.T) {
	var pretty strings.Builder
	bad := edit(report("", "", req, "", ""), `"output_tokens": 200`, `"output_tokens": -200`)
	// Put each member of the request on a line of its own.
	pretty.WriteString(strings.ReplaceAll(bad, `, "`, ",\n    \""))
	_, _, err := readReport(t, pretty.String(), Options{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	bs, _, _ := readReport(t, pretty.String(), Options{}, t0)
	lines := strings.Split(pretty.String(), "\n")
	for i, l := range lines {
		if strings.Contains(l, `"output_tokens": -200`) {
			want := fmt.Sprintf("benchmarks.json:%d:%d: ", i+1, strings.Index(l, "-200")+1)
			if len(bs[0].Errs) == 0 || !strings.HasPrefix(bs[0].Errs[0], want) {
				t.Errorf("errors %q, want one at %s", bs[0].Errs, want)
			}
			return
		}
	}
	t.Fatal("no such line")
}

// TestPositionsInYAML checks that errors in the YAML form point at the
// YAML value.
func TestPositionsInYAML(t *testing.T) {
	text := string(readertest.ReadFile(t, "testdata/main.yaml"))
	m := regexp.MustCompile(`\n( *)output_tokens: [0-9]`).FindStringIndex(text)
	if m == nil {
		t.Fatal("no output_tokens in main.yaml")
	}
	start := m[0] + 1
	line := strings.Count(text[:start], "\n") + 1
	j := strings.Index(text[start:], ": ") + start + 2
	col := j - start + 1
	bad := text[:j] + "-" + text[j:]
	bs, _, err := readReport(t, bad, Options{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("benchmarks.json:%d:%d: ", line, col)
	var errs []string
	for _, b := range bs {
		errs = append(errs, b.Errs...)
	}
	if len(errs) == 0 || !strings.HasPrefix(errs[0], want) || !strings.Contains(errs[0], "output_tokens: want a non-negative integer") {
		t.Errorf("errors %q, want one at %s", errs, want)
	}
}

func TestCount(t *testing.T) {
	for path, want := range map[string]int{
		readertest.FixturePath("guidellm-main", "benchmarks.json"): 1,
		"testdata/sweep.json":           2,
		"testdata/main.yaml":            1,
		"testdata/v0.3.1-stripped.json": 1,
	} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		n, err := Count(f)
		f.Close()
		if err != nil || n != want {
			t.Errorf("%s: %d, %v; want %d", path, n, err, want)
		}
	}
	if n, err := Count(strings.NewReader(`{"args": {"benchmarks": [{}, {}]}, "benchmarks": [{"x": "\\\"{["}, {}, {"requests": {"successful": [{}]}}]}`)); err != nil || n != 3 {
		t.Errorf("escapes and nesting: %d, %v; want 3", n, err)
	}
}

func TestSniff(t *testing.T) {
	pretty := readertest.ReadFile(t, readertest.FixturePath("guidellm-0.3-pretty", "benchmarks.json"))
	for _, s := range []string{
		`{"metadata": {"version": 2}`, `{"benchmarks": [`, `{"args": {`, "args:\n  x: 1\n", "benchmarks:\n- config:\n",
		`{"metadata":{"guidellm_version":"0.8.0"},"config":`,                                                   // compact, as another encoder writes it
		"{\n    \"benchmarks\": [\n        {\n",                                                                // v0.3.1: json.dump(indent=4)
		"{\n \"metadata\": {\n  \"version\": 2,\n  \"guidellm_version\": \"0.8.0.dev18\"\n },\n \"config\": {", // indent=1
		"\t{ \"args\" :\r\n{",
		"---\r\nbenchmarks:\r\n",
		string(pretty[:4096]), // the first bytes rundir.Detect reads
	} {
		if !Sniff([]byte(s)) {
			t.Errorf("%q not recognised", s)
		}
	}
	for _, s := range []string{
		`{"ts":1,"ev":"turn"}`, `[{"start_time": 1.0}]`, `{"benchmark": [`, `{"bench`, "{\n",
		`{"metadata":{"session_num":0},"metrics":{}}`,                                        // AIPerf's record starts with metadata too
		`{"metadata": {"x_request_id": "r", "benchmark_phase": "profiling"}, "metrics": {}}`, // ... re-dumped with spaces
		`{"metadata": {"version": 2, "guidellm_vers`,                                         // the metadata cut short: cannot tell
	} {
		if Sniff([]byte(s)) {
			t.Errorf("%q taken for GuideLLM", s)
		}
	}
}

// FuzzReport feeds a report to the reader (JSON or, for any other first
// byte, YAML): every turn keeps the format's invariants and every error
// names a place in the input; reading always ends.
func FuzzReport(f *testing.F) {
	f.Add(report("", "", req, "", ""))
	f.Add(report(`{"type_": "synchronous"}`, `{"successful": 1}`, req, req, ""))
	f.Add("benchmarks:\n- requests:\n    successful: []\n")
	f.Add("\"\r") // a YAML error on its second line, after a lone CR
	f.Add(`{"benchmarks":[{"requests":{"successful":[{"request_id":"","scheduler_info":{"request_end":0},"prompt_tokens":0,"output_tokens":0}`)
	f.Add(`{"benchmarks": [{"start_time": 1, "end_time": 2, "requests": {"successful": [{"request_id": "r", "scheduler_info": {"request_end": 1.5}, "prompt_tokens": 1, "output_tokens": 1}]}}]}`)
	f.Fuzz(func(t *testing.T, text string) {
		rd, err := NewReader(strings.NewReader(text), "benchmarks.json", Options{Lenient: true})
		if err != nil {
			checkErr(t, err, text)
			return
		}
		steps := 0
		// bounded fails when reading takes several times more steps than
		// the input has bytes: reading must end.
		bounded := func() {
			if steps++; steps > 4*len(text)+10 {
				t.Fatalf("reading does not end on %q", text)
			}
		}
		err = eachBenchmark(rd, t0, func(*Benchmark) error {
			bounded()
			for {
				bounded()
				tr, err := rd.Next()
				if err == io.EOF {
					return nil
				}
				if err != nil {
					checkErr(t, err, text)
					continue
				}
				r := tr.Row
				if r.Session == "" || math.IsNaN(r.DoneS) || (r.SentS != nil && r.DoneS < *r.SentS) || r.PromptTokens < 0 || r.OutputTokens < 0 ||
					(tr.CachedReported && r.CachedTokens > r.PromptTokens && r.PromptTokens > 0) {
					t.Fatalf("bad turn %+v", r)
				}
			}
		})
		if err != nil {
			checkErr(t, err, text)
		}
	})
}

func checkErr(t *testing.T, err error, text string) {
	var pe *textpos.ParseError
	lines := strings.Count(text, "\n") + strings.Count(text, "\r") + 1 // YAML breaks lines at CR too
	if errors.As(err, &pe) && (pe.Pos.Line < 1 || pe.Pos.Line > lines) {
		t.Fatalf("%v: line outside the input", err)
	}
}

// TestTimesAreExactDecimals checks that a request's times, Unix seconds
// less the run's t=0, are the float64 nearest the exact difference:
// strconv.ParseFloat of it written out. The whole seconds and the fraction
// each rounded and then added round twice (1.1293009999999999 for
// 1793102401.129301 less 1793102400).
func TestTimesAreExactDecimals(t *testing.T) {
	r := edit(req, `"request_start": 1793102401.2`, `"request_start": 1793102401.154424`, `"first_token_iteration": 1793102401.5`, `"first_token_iteration": 1793102401.265683`,
		`"request_end": 1793102403.0`, `"request_end": 1793102401.3015730`, `"dequeued": 1793102401.0`, `"dequeued": 1793102401.12930100`)
	bs, _, err := readReport(t, report("", "", r, "", ""), Options{}, t0)
	if err != nil || len(bs) != 1 || len(bs[0].Turns) != 1 {
		t.Fatalf("%v %v", err, bs)
	}
	tr := bs[0].Turns[0]
	for _, c := range []struct {
		got  *float64
		want string
	}{{tr.ReadyS, "1.129301"}, {tr.SentS, "1.154424"}, {tr.FirstTokenS, "1.265683"}, {&tr.DoneS, "1.301573"}} {
		want, _ := strconv.ParseFloat(c.want, 64)
		if c.got == nil || math.Float64bits(*c.got) != math.Float64bits(want) {
			t.Errorf("got %s, want %s", readertest.Ptr(c.got), c.want)
		}
	}
	// A t=0 with a fraction of a second.
	bs, _, _ = readReport(t, report("", "", r, "", ""), Options{}, t0.Add(154424000))
	if got := bs[0].Turns[0].SentS; got == nil || *got != 1 {
		t.Errorf("sent %s, want 1", readertest.Ptr(got))
	}
}

// TestConversationsOpenAtTheStop checks a multi-turn benchmark stopped
// mid-conversation: GuideLLM's worker, stopping, cancels the turns still
// queued of every conversation it holds and reports each as cancelled,
// resolve_end stamped then (scheduler/worker.py, _cancel_requests_loop):
// the incomplete list. A conversation whose last turn is such a one was
// in the system at the stop: open. One cancelled mid-run ended, aborted.
func TestConversationsOpenAtTheStop(t *testing.T) {
	turn := func(conv string, idx int, start, end float64, status string) string {
		r := edit(req, `"conversation_id": "c1"`, `"conversation_id": "`+conv+`"`, `"turn_index": 1`, fmt.Sprintf(`"turn_index": %d`, idx),
			`"status": "completed"`, `"status": "`+status+`"`,
			`"request_start": 1793102401.2`, fmt.Sprintf(`"request_start": %.1f`, 1793102400+start),
			`"request_end": 1793102403.0, "resolve_end": 1793102403.1`, fmt.Sprintf(`"request_end": %.1f, "resolve_end": %.1f`, 1793102400+end, 1793102400+end),
			`"targeted_start": 1793102401.0, "dequeued": 1793102401.0, "resolve_start": 1793102401.1`, fmt.Sprintf(`"targeted_start": %.1f, "dequeued": %.1f, "resolve_start": %.1f`, 1793102400+start, 1793102400+start, 1793102400+start),
			`"first_token_iteration": 1793102401.5`, fmt.Sprintf(`"first_token_iteration": %.1f`, 1793102400+start+0.1),
			`"request_start_time": 1793102401.2, "request_end_time": 1793102403.0`, fmt.Sprintf(`"request_start_time": %.1f, "request_end_time": %.1f`, 1793102400+start, 1793102400+end))
		return r
	}
	ok := strings.Join([]string{turn("open", 0, 1, 3, "completed"), turn("mid", 0, 2, 4, "completed"), turn("done", 0, 5, 90, "completed"), turn("done", 1, 91, 98, "completed")}, ", ")
	inc := strings.Join([]string{turn("open", 1, 97, 99.5, "cancelled"), turn("mid", 1, 10, 12, "cancelled")}, ", ")
	bs, _, err := readReport(t, report("", "", ok, "", inc), Options{}, t0)
	if err != nil || len(bs) != 1 {
		t.Fatalf("%v %v", err, bs)
	}
	var got []string
	for _, s := range bs[0].Sessions {
		end := "null"
		if s.EndS != nil {
			end = strconv.FormatFloat(*s.EndS, 'f', -1, 64)
		}
		got = append(got, fmt.Sprintf("%s %s %s %d", s.Session, end, s.Status, s.TurnsDone))
	}
	slices.Sort(got)
	if want := "done 98 done 2; mid 12 aborted 2; open null open 2"; strings.Join(got, "; ") != want {
		t.Errorf("sessions\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
}
