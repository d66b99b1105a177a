package vllmlog

import (
	"slices"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
)

// engine describes the reader to the shared tests, with the real-format
// runs under fixtures/real and their manifests' started_at.
var engine = readertest.Engine{
	Open:   readertest.Opener(NewReader),
	Match:  Match,
	Corpus: "vllm",
	Kinds:  []string{schema.LineStats},
	Fixtures: []readertest.Fixture{
		{Run: "vllm-0.8", T0: "2025-03-20T14:00:00Z", Format: Format08},
		{Run: "vllm-0.10", T0: "2025-09-02T05:20:00Z", Format: Format010},
		{Run: "vllm-2026", T0: "2026-10-27T12:00:00Z", Format: Format2026},
	},
	Columns: []string{"running", "waiting", "kv_usage", "prompt_tput", "gen_tput", "hit_rate", "preemptions"},
}

var (
	f   = readertest.F
	utc = readertest.UTC
)

func readAll(t testing.TB, text string, opt Options) ([]schema.EngineSample, []error, Info) {
	t.Helper()
	return engine.ReadAll(t, text, opt)
}

// TestTables runs the reader's tables under testdata
// (readertest.Engine.CheckTables): in lines.yaml the line shapes vLLM has
// printed, real and constructed, and the variants the reader must
// tolerate, one line at a time; in info.yaml the separate and merged
// startup lines; in match.yaml the lines Match takes and refuses.
func TestTables(t *testing.T) { engine.CheckTables(t) }

// TestV0Engine checks the V0 stats line and its separate hit-rate line,
// which the reader joins into one sample.
func TestV0Engine(t *testing.T) {
	log := `INFO 05-02 10:00:05 [metrics.py:486] Avg prompt throughput: 512.0 tokens/s, Avg generation throughput: 64.5 tokens/s, Running: 8 reqs, Swapped: 0 reqs, Pending: 2 reqs, GPU KV cache usage: 40.0%, CPU KV cache usage: 0.0%.
INFO 05-02 10:00:05 [metrics.py:502] Prefix cache hit rate: GPU: 35.25%, CPU: 0.00%
INFO 05-02 10:00:15 [metrics.py:486] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 70.0 tokens/s, Running: 8 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 42.5%, CPU KV cache usage: 0.0%.
INFO 05-02 10:00:16 [engine.py:310] Added request cmpl-1.
INFO 05-02 10:00:25 [metrics.py:486] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 71.0 tokens/s, Running: 9 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 43.0%, CPU KV cache usage: 0.0%.
`
	samples, errs, info := readAll(t, log, Options{T0: utc("2025-05-02T10:00:00Z")})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	want := []schema.EngineSample{
		{TS: 5, Line: 1, Running: f(8), Waiting: f(2), KVUsage: f(0.4), LoggedHitRate: f(0.3525), PromptTput: f(512), GenTput: f(64.5)},
		{TS: 15, Line: 3, Running: f(8), Waiting: f(0), KVUsage: f(0.425), PromptTput: f(0), GenTput: f(70)},
		{TS: 25, Line: 5, Running: f(9), Waiting: f(0), KVUsage: f(0.43), PromptTput: f(0), GenTput: f(71)},
	}
	if len(samples) != len(want) {
		t.Fatalf("got %d samples, want %d", len(samples), len(want))
	}
	for i := range want {
		if d := engine.Diff(samples[i], want[i]); d != "" {
			t.Errorf("sample %d: %s", i, d)
		}
	}
	if info.Format != FormatV0 || info.SampleLines != 3 || info.Lines != 5 {
		t.Errorf("info %+v", info)
	}
}

// TestV0BadHitRate keeps the V0 stats sample when its hit-rate line is
// malformed, and reports that line.
func TestV0BadHitRate(t *testing.T) {
	log := "INFO 05-02 10:00:05 [metrics.py:486] Avg prompt throughput: 512.0 tokens/s, Avg generation throughput: 64.5 tokens/s, Running: 8 reqs, Swapped: 0 reqs, Pending: 2 reqs, GPU KV cache usage: 40.0%, CPU KV cache usage: 0.0%.\n" +
		"INFO 05-02 10:00:05 [metrics.py:502] Prefix cache hit rate: GPU: 35.x%, CPU: 0.00%\n"
	samples, errs, _ := readAll(t, log, Options{T0: utc("2025-05-02T10:00:00Z")})
	if len(samples) != 1 || samples[0].LoggedHitRate != nil || samples[0].Line != 1 {
		t.Fatalf("samples %+v", samples)
	}
	if len(errs) != 1 || errs[0].Error() != `engine.log:2:66: vLLM V0 prefix cache hit rate: malformed number "35.x"` {
		t.Fatalf("errors %v", errs)
	}
}

const statsTail = " [loggers.py:123] Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 1.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%, Prefix cache hit rate: 1.0%\n"

// TestWrappersOfALog names the wrappers in front of most lines of a log;
// a few wrapped lines among others name none.
func TestWrappersOfALog(t *testing.T) {
	for _, tc := range []struct{ log, want string }{
		{"vllm-1  | INFO 03-20 14:00:05" + statsTail + "vllm-1  | INFO 03-20 14:00:15" + statsTail, "docker-compose"},
		{"2025-03-20T14:00:05Z vllm-1  | INFO 03-20 14:00:05" + statsTail + "hello\n", "container-rfc3339+docker-compose"},
		{"2025-03-20T14:00:05Z INFO 03-20 14:00:05" + statsTail + "INFO 03-20 14:00:15" + statsTail + "INFO 03-20 14:00:25" + statsTail, ""},
	} {
		_, errs, info := readAll(t, tc.log, Options{T0: utc("2025-03-20T14:00:00Z")})
		if len(errs) != 0 || info.Wrappers != tc.want {
			t.Errorf("%q: wrappers %q, errors %v; want %q", tc.log, info.Wrappers, errs, tc.want)
		}
	}
	if _, _, info := engine.ReadFixture(t, engine.Fixtures[2]); info.Wrappers != "" {
		t.Errorf("vllm-2026 (6 of 123 lines docker-stamped): wrappers %q, want none", info.Wrappers)
	}
}

// TestGluedAndDamagedCounts counts the lines with text glued in front and
// the damaged ones among the sample lines.
func TestGluedAndDamagedCounts(t *testing.T) {
	log := "INFO 03-20 14:00:05" + statsTail +
		"  5% 1/20 [00:01<00:20]INFO 03-20 14:00:15" + statsTail +
		"cache usage: 1.0%, Running: 1 reqs, Waiting: 0 reqs\n"
	samples, errs, info := readAll(t, log, Options{T0: utc("2025-03-20T14:00:00Z")})
	if len(samples) != 2 || samples[1].TS != 15 || len(errs) != 1 || info.Glued != 1 || info.SampleLines != 3 {
		t.Errorf("%d samples, errors %v, info %+v; want 2 samples, the second at 15 s, 1 error, 1 glued, 3 sample lines", len(samples), errs, info)
	}
}

// TestGluedAfter reads lines whose newline was lost, so that the next
// line is glued on after a stats line's last field: every record on the
// line is a sample, the process prefix of a glued line is not part of the
// field before it, and a field damaged otherwise is still an error.
func TestGluedAfter(t *testing.T) {
	opt := Options{T0: utc("2025-07-28T06:40:00Z")}
	// Two records of a real paste, vllm-project/vllm#18115 (comment of
	// 2025-07-28), glued as it shows them.
	real := "INFO 07-28 06:41:09 [loggers.py:118] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 239.2 tokens/s, Running: 8 reqs, Waiting: 0 reqs, GPU KV cache usage: 91.6%, Prefix cache hit rate: 0.0%" +
		"INFO 07-28 06:41:19 [loggers.py:118] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 240.0 tokens/s, Running: 8 reqs, Waiting: 0 reqs, GPU KV cache usage: 91.9%, Prefix cache hit rate: 0.0%\n"
	for _, tc := range []struct {
		name, log string
		ts        []float64
		kv        []float64
		errs      int
	}{
		{"real paste", real, []float64{69, 79}, []float64{0.916, 0.919}, 0},
		{"three records and prefixes", "(APIServer pid=1) INFO 07-28 06:40:05" + strings.TrimSuffix(statsTail, "\n") +
			"(APIServer pid=1) INFO 07-28 06:40:15" + strings.TrimSuffix(statsTail, "\n") + " (APIServer pid=1) INFO 07-28 06:40:25" + statsTail,
			[]float64{5, 15, 25}, []float64{0.01, 0.01, 0.01}, 0},
		{"Ray's nameless prefix in front of the glued line", "(pid=7, ip=10.0.0.2) INFO 07-28 06:40:05" + strings.TrimSuffix(statsTail, "\n") +
			"(pid=7, ip=10.0.0.2) INFO 07-28 06:40:15" + statsTail,
			[]float64{5, 15}, []float64{0.01, 0.01}, 0},
		{"a damaged field is no glued line", "INFO 07-28 06:40:05 [loggers.py:118] Engine 000: Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%x\n", nil, nil, 1},
		{"a chatter line glued on", "INFO 07-28 06:40:05" + strings.TrimSuffix(statsTail, "\n") + "INFO 07-28 06:40:06 [api_server.py:1] started\n",
			[]float64{5}, []float64{0.01}, 0},
		{"glued on after a field outlast does not know", "INFO 07-28 06:40:05" + strings.TrimSuffix(statsTail, "\n") + ", Foo: 1" +
			"INFO 07-28 06:40:15 [loggers.py:118] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 240.0 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 50.0%, Prefix cache hit rate: 0.0%\n",
			[]float64{5, 15}, []float64{0.01, 0.5}, 0},
	} {
		samples, errs, info := readAll(t, tc.log, opt)
		var ts, kv []float64
		for _, s := range samples {
			ts, kv = append(ts, s.TS), append(kv, *s.KVUsage)
		}
		if !slices.Equal(ts, tc.ts) || !slices.Equal(kv, tc.kv) || len(errs) != tc.errs || info.Glued != max(len(tc.ts)-1, 0) && tc.errs == 0 && tc.name != "a chatter line glued on" {
			t.Errorf("%s: samples at %v, KV %v, errors %v, %d glued; want %v, %v, %d errors, %d glued", tc.name, ts, kv, errs, info.Glued, tc.ts, tc.kv, tc.errs, max(len(tc.ts)-1, 0))
		}
	}
}

// TestYearRollover starts a run on Dec 31 and lets the log go on into
// January: the year must advance with the log.
func TestYearRollover(t *testing.T) {
	log := "INFO 12-31 23:58:00 [api_server.py:1] starting\n" +
		"INFO 12-31 23:59:55" + statsTail +
		"INFO 01-01 00:00:05" + statsTail +
		"INFO 01-01 00:00:15" + statsTail +
		"INFO 01-02 00:00:15" + statsTail
	samples, errs, info := readAll(t, log, Options{T0: utc("2025-12-31T23:59:30Z")})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	want := []float64{25, 35, 45, 86400 + 45}
	if len(samples) != len(want) {
		t.Fatalf("got %d samples", len(samples))
	}
	for i, w := range want {
		if samples[i].TS != w {
			t.Errorf("sample %d at %v s, want %v", i, samples[i].TS, w)
		}
	}
	if info.FirstS != -90 || info.LastS != 86400+45 {
		t.Errorf("span %v..%v, want -90..86445", info.FirstS, info.LastS)
	}
}

// TestYearNearestT0 starts the log before a New Year T0: the first stamp
// belongs to the previous year.
func TestYearNearestT0(t *testing.T) {
	log := "INFO 12-31 23:58:00 [api_server.py:1] starting\n" +
		"INFO 01-01 00:00:20" + statsTail
	samples, errs, info := readAll(t, log, Options{T0: utc("2026-01-01T00:00:10Z")})
	if len(errs) != 0 || len(samples) != 1 {
		t.Fatal(errs, samples)
	}
	if samples[0].TS != 10 || info.FirstS != -130 {
		t.Errorf("sample at %v, first line at %v; want 10, -130", samples[0].TS, info.FirstS)
	}
}

// TestLogTZ reads Berlin wall-clock stamps: 15:00:05 CET is 14:00:05 UTC in
// March, 16:00:05 CEST is 14:00:05 UTC in July.
func TestLogTZ(t *testing.T) {
	engine.CheckBerlin(t, "2025-03-20T14:00:00Z", "INFO 03-20 15:00:05"+statsTail, "2025-07-01T14:00:00Z", "INFO 07-01 16:00:05"+statsTail)
}

// TestErrorThenContinue checks that a bad line is reported at its position
// and the reader goes on.
func TestErrorThenContinue(t *testing.T) {
	engine.CheckErrorThenContinue(t, "2025-03-20T14:00:00Z",
		"INFO 03-20 14:00:05"+strings.TrimSuffix(statsTail, "\n"),
		"INFO 03-20 14:00:15 [loggers.py:123] Engine 000: Avg prompt throughput: 1..0 tokens/s",
		"engine.log:2:73: ")
}

// TestFixtures reads each fixture, checks hand-known facts about it and
// compares the samples with testdata/<run>.golden.
func TestFixtures(t *testing.T) {
	engine.CheckFixtures(t, func(t *testing.T, samples []schema.EngineSample, info Info) {
		// 10-s cadence over a 300-s run: 30 stats lines.
		if len(samples) != 30 || info.SampleLines != 30 {
			t.Errorf("%d samples, %d sample lines; want 30", len(samples), info.SampleLines)
		}
		for i := 1; i < len(samples); i++ {
			if d := samples[i].TS - samples[i-1].TS; d != 10 {
				t.Errorf("line %d: %v s after the previous stats line, want 10", samples[i].Line, d)
			}
		}
	})
}

// TestFixtureSpotChecks pins values read off particular fixture lines.
func TestFixtureSpotChecks(t *testing.T) {
	v010, v2026 := engine.Fixtures[1], engine.Fixtures[2]
	engine.CheckSpots(t, []readertest.SpotCase{
		// (APIServer pid=118) INFO 09-02 05:22:07 [loggers.py:123] Engine 000: Avg prompt throughput: 1493.6 tokens/s, Avg generation throughput: 32.1 tokens/s, Running: 2 reqs, Waiting: 1 reqs, GPU KV cache usage: 3.8%, Prefix cache hit rate: 73.4%
		{Fixture: v010, Want: schema.EngineSample{TS: 127, Running: f(2), Waiting: f(1), KVUsage: f(0.038), LoggedHitRate: f(0.734), PromptTput: f(1493.6), GenTput: f(32.1)}},
		// coloured: INFO 10-27 12:01:23 ... Avg prompt throughput: 207.6 tokens/s, Avg generation throughput: 51.8 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 3.2%, Prefix cache hit rate: 79.9%, External prefix cache hit rate: 0.0%
		{Fixture: v2026, Want: schema.EngineSample{TS: 83, Running: f(1), Waiting: f(0), KVUsage: f(0.032), LoggedHitRate: f(0.799), PromptTput: f(207.6), GenTput: f(51.8)}},
		// docker-stamped: INFO 10-27 12:03:13 ... Avg prompt throughput: 206.0 tokens/s, Avg generation throughput: 52.6 tokens/s, Running: 2 reqs, Waiting: 1 reqs, Deferred: 1 reqs, GPU KV cache usage: 4.8%, Prefix cache hit rate: 73.7%, External prefix cache hit rate: 6.3%
		{Fixture: v2026, Want: schema.EngineSample{TS: 193, Running: f(2), Waiting: f(1), KVUsage: f(0.048), LoggedHitRate: f(0.737), PromptTput: f(206), GenTput: f(52.6)}},
		// INFO 10-27 12:01:13 ... Avg prompt throughput: 309.6 tokens/s, Avg generation throughput: 88.6 tokens/s, Running: 2 reqs, Waiting: 0 reqs, Preemptions: 1, GPU KV cache usage: 5.5%, Prefix cache hit rate: 77.4%, External prefix cache hit rate: 0.0%
		{Fixture: v2026, Want: schema.EngineSample{TS: 73, Running: f(2), Waiting: f(0), Preemptions: f(1), KVUsage: f(0.055), LoggedHitRate: f(0.774), PromptTput: f(309.6), GenTput: f(88.6)}},
	})

	// The fixture shows each shape of line the reader must take apart.
	samples, _, _ := engine.ReadFixture(t, v2026)
	var pre, coloured, docker int
	raw := readertest.FixtureFile(t, v2026.Run, "engine.log")
	lines := strings.Split(string(raw), "\n")
	for _, s := range samples {
		if s.Preemptions != nil {
			pre++
		}
		l := lines[s.Line-1]
		if strings.Contains(l, "\x1b[") {
			coloured++
		}
		if strings.HasPrefix(l, "2026-10-27T") {
			docker++
		}
	}
	if pre == 0 || coloured == 0 || docker == 0 {
		t.Errorf("vllm-2026: %d samples with Preemptions, %d coloured, %d docker-stamped; want some of each", pre, coloured, docker)
	}
}

// FuzzVLLMLine feeds arbitrary lines (readertest.Engine.Fuzz).
func FuzzVLLMLine(f *testing.F) {
	engine.Fuzz(f, "2026-10-27T12:00:00Z",
		"INFO 05-02 10:00:05 [metrics.py:486] Avg prompt throughput: 512.0 tokens/s, Running: 8 reqs, Swapped: 0 reqs, Pending: 2 reqs, GPU KV cache usage: 40.0%, CPU KV cache usage: 0.0%.",
		"INFO 05-02 10:00:05 [metrics.py:502] Prefix cache hit rate: GPU: 35.25%, CPU: 0.00%",
		"2025-07-08 17:24:00,125 - vllm.engine.metrics - INFO - Avg prompt throughput: 2.8 tokens/s, Avg generation throughput: 0.1 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.2%, CPU KV cache usage: 0.0%.",
		`{"log":"\u001b[32mINFO\u001b[0m 07-20 10:15:03 [loggers.py:271] Engine 000: Avg prompt throughput: 0.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 4.1%\n","stream":"stdout","time":"2026-07-20T10:15:03.527104251Z"}`,
		"2026-01-01 00:00:10,123 - root - INFO - (APIServer pid=1) INFO 01-01 00:00:10 [loggers.py:123] Engine 000: Avg prompt throughput: 2.8 tokens/s, Avg generation throughput: 0.1 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.2%, Prefix cache hit rate: 0.0%",
		"(pid=1234, ip=10.0.0.2) (APIServer pid=1) INFO 01-01 00:00:10 [loggers.py:123] Engine 000: Running: 1 reqs, Waiting: 0 reqs",
		"\x1e"+`{"__CURSOR":"s=1","__REALTIME_TIMESTAMP":"1767225610000000","MESSAGE":"Avg prompt throughput: 2.8 tokens/s, Avg generation throughput: 0.1 tokens/s, Running: 1 reqs, Waiting: 0 reqs"}`,
		`{"__CURSOR":"s=6a4c;i=1f2","__REALTIME_TIMESTAMP":"1784542503527104","SYSLOG_IDENTIFIER":"vllm","MESSAGE":[73,78,70,79,32,48,55,45,50,48,32,49,48,58,49,53,58,48,51,32,91,108,111,103,103,101,114,115,46,112,121,58,50,55,49,93,32,69,110,103,105,110,101,32,48,48,48,58,32,82,117,110,110,105,110,103,58,32,49,32,114,101,113,115],"_PID":"1"}`)
}

// BenchmarkReader measures throughput over the fixtures repeated to a few
// megabytes.
func BenchmarkReader(b *testing.B) { engine.Benchmark(b, "2026-10-27T12:00:00Z") }

// TestRealLines reads every vLLM line of the real-lines corpus and
// compares what the reader takes from it with what the corpus says.
func TestRealLines(t *testing.T) { engine.CheckCorpus(t, readertest.LoadCorpus(t, "vllm")) }

// TestExcerpts reads runs of real vLLM log lines with their neighbours
// (testdata/excerpts.yaml, readertest.Engine.CheckExcerpts).
func TestExcerpts(t *testing.T) { engine.CheckExcerpts(t) }
