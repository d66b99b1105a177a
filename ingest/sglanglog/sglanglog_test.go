package sglanglog

import (
	"math"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
)

// engine describes the reader to the shared tests, with the real-format
// runs under fixtures/real and their manifests' started_at.
var engine = readertest.Engine{
	Open:   readertest.Opener(NewReader),
	Match:  Match,
	Corpus: "sglang",
	Kinds:  []string{schema.LinePrefill, schema.LineDecode},
	Fixtures: []readertest.Fixture{
		{Run: "sglang-0.4", T0: "2025-03-20T08:00:00Z", Format: Format04},
		{Run: "sglang-2026", T0: "2026-07-20T10:15:00Z", Format: Format2026},
	},
	Columns: []string{"running", "waiting", "kv_usage", "tokens_used", "prompt_tput", "gen_tput", "new_seqs", "new_tokens", "cached_tokens"},
}

var (
	f = readertest.F
	n = readertest.N
)

const (
	pre = schema.LinePrefill
	dec = schema.LineDecode
)

// TestTables runs the reader's tables under testdata
// (readertest.Engine.CheckTables): in lines.yaml the batch lines SGLang has
// printed, real and constructed, and the variants the reader must
// tolerate, one line at a time; in info.yaml the startup pool lines
// (max_total_num_tokens preferred) and the dialect names; in match.yaml
// the lines Match takes and refuses.
func TestTables(t *testing.T) { engine.CheckTables(t) }

// TestTimeOnlyHeaders places "[HH:MM:SS]" stamps on the day of the run's
// start, rolling over midnight, and in the log's zone.
func TestTimeOnlyHeaders(t *testing.T) {
	const tail = " TP0] Decode batch. #running-req: 1, #token: 1, token usage: 0.00, gen throughput (token/s): 1.00, #queue-req: 0\n"
	log := "[23:59:30" + tail + "[23:59:50" + tail + "[00:00:10" + tail + "[23:59:59] a user's line of the next day\n"
	samples, errs, info := engine.ReadAll(t, log, Options{T0: readertest.UTC("2024-08-31T23:59:00Z")})
	if len(errs) != 0 || len(samples) != 3 {
		t.Fatalf("%d samples, errors %v", len(samples), errs)
	}
	for i, want := range []float64{30, 50, 70} {
		if samples[i].TS != want {
			t.Errorf("sample %d at %v s, want %v", i, samples[i].TS, want)
		}
	}
	if info.LastS != 86400+59 || info.Format != Format03 {
		t.Errorf("last line at %v s, format %q; want 86459 and %q", info.LastS, info.Format, Format03)
	}
	engine.CheckZones(t, []readertest.ZoneCase{{T0: "2024-08-31T04:40:00Z", Line: "[06:40:55" + tail, Loc: readertest.Berlin(t), Want: 55}})
}

// TestRanksAndUntimed counts what the reader leaves out: another rank's
// copy of a batch, and lines without a time.
func TestRanksAndUntimed(t *testing.T) {
	const tail = "] Decode batch, #running-req: 1, #token: 9, token usage: 0.59, cuda graph: True, gen throughput (token/s): 205.21, #queue-req: 0\n"
	log := "[2026-06-24 15:38:02 PP0 ATTN_CP0 TP0" + tail +
		"[2026-06-24 15:38:02 PP0 ATTN_CP1 TP1" + tail +
		"[2026-06-24 15:38:02 PP1 ATTN_CP0 TP0" + tail +
		"[2026-06-24 15:38:02 DP1 TP1" + tail +
		"[2026-06-24 15:38:02 TP1" + tail +
		"Decode batch, #running-req: 1, #token: 9, token usage: 0.59, #queue-req: 0\n"
	samples, errs, info := engine.ReadAll(t, log, Options{T0: readertest.UTC("2026-06-24T15:38:00Z")})
	if len(errs) != 0 || len(samples) != 2 || samples[0].Line != 1 || samples[1].Line != 4 || samples[1].EngineIndex != 1 {
		t.Fatalf("samples %+v, errors %v; want lines 1 and 4 (DP1)", samples, errs)
	}
	if info.Repeats != 3 || info.Untimed != 1 || info.SampleLines != 6 {
		t.Errorf("info %+v, want 3 repeats, 1 untimed, 6 sample lines", info)
	}
}

// TestLogTZ reads Berlin wall-clock stamps: 09:15:05 CET is 08:15:05 UTC in
// March, 10:15:05 CEST is 08:15:05 UTC in July.
func TestLogTZ(t *testing.T) {
	const tail = " TP0] Decode batch. #running-req: 1, #token: 1, token usage: 0.00, gen throughput (token/s): 1.00, #queue-req: 0, \n"
	engine.CheckBerlin(t, "2025-03-20T08:15:00Z", "[2025-03-20 09:15:05"+tail, "2025-07-20T08:15:00Z", "[2025-07-20 10:15:05"+tail)
}

// TestErrorThenContinue checks that a bad line is reported and the reader
// goes on with the next.
func TestErrorThenContinue(t *testing.T) {
	engine.CheckErrorThenContinue(t, "2025-03-20T08:00:00Z",
		"[2025-03-20 08:00:05 TP0] Decode batch. #running-req: 1, #token: 1, token usage: 0.00, gen throughput (token/s): 1.00, #queue-req: 0, ",
		"[2025-03-20 08:00:06 TP0] Decode batch. #running-req: -, #queue-req: 0",
		"engine.log:2:55: ")
}

// TestFixtures reads each fixture, checks hand-known facts about it and
// compares the samples with testdata/<run>.golden.
func TestFixtures(t *testing.T) {
	engine.CheckFixtures(t, func(t *testing.T, samples []schema.EngineSample, info Info) {
		if len(samples) < 100 || info.SampleLines != len(samples) {
			t.Fatalf("%d samples, %d sample lines", len(samples), info.SampleLines)
		}
		if samples[0].Kind != schema.LinePrefill {
			t.Errorf("first sample is %s, want the first request's prefill", samples[0].Kind)
		}
		for _, s := range samples {
			// token usage is printed with two decimals of #token/C.
			if s.Kind == schema.LineDecode && math.Abs(*s.KVUsage-float64(*s.TokensUsed)/400000) > 0.005+1e-9 {
				t.Errorf("line %d: token usage %v but #token %d of 400000", s.Line, *s.KVUsage, *s.TokensUsed)
			}
		}
	})
}

// TestFixtureSpotChecks pins values read off particular fixture lines.
func TestFixtureSpotChecks(t *testing.T) {
	s04, s2026 := engine.Fixtures[0], engine.Fixtures[1]
	engine.CheckSpots(t, []readertest.SpotCase{
		// line 82: [2025-03-20 08:01:13 TP0] Prefill batch. #new-seq: 1, #new-token: 4096, #cached-token: 2048, token usage: 0.06, #running-req: 2, #queue-req: 0,
		{Fixture: s04, Want: schema.EngineSample{Line: 82, TS: 73, Kind: pre, NewSeqs: n(1), NewTokens: n(4096), CachedTokens: n(2048), KVUsage: f(0.06), Running: f(2), Waiting: f(0)}},
		// line 84: [2025-03-20 08:01:13 TP0] Decode batch. #running-req: 3, #token: 25255, token usage: 0.06, gen throughput (token/s): 92.23, largest-len: 0, #queue-req: 0,
		{Fixture: s04, Want: schema.EngineSample{Line: 84, TS: 73, Kind: dec, Running: f(3), TokensUsed: n(25255), KVUsage: f(0.06), GenTput: f(92.23), Waiting: f(0)}},
		// line 34: [2026-07-20 10:15:39] Prefill batch, #new-seq: 1, #new-token: 4096, #cached-token: 2048, token usage: 0.03, #running-req: 1, #queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 11013.12
		{Fixture: s2026, Want: schema.EngineSample{Line: 34, TS: 39, Kind: pre, NewSeqs: n(1), NewTokens: n(4096), CachedTokens: n(2048), KVUsage: f(0.03), Running: f(1), Waiting: f(0), PromptTput: f(11013.12)}},
		// line 66: [2026-07-20 10:16:00] Decode batch, #running-req: 1, #token: 8988, token usage: 0.02, cuda graph: True, gen throughput (token/s): 45.45, #queue-req: 0
		{Fixture: s2026, Want: schema.EngineSample{Line: 66, TS: 60, Kind: dec, Running: f(1), TokensUsed: n(8988), KVUsage: f(0.02), GenTput: f(45.45), Waiting: f(0)}},
	})
}

// FuzzSGLangLine feeds arbitrary lines (readertest.Engine.Fuzz).
func FuzzSGLangLine(f *testing.F) {
	engine.Fuzz(f, "2026-07-20T10:15:00Z",
		"(SGLangEngine pid=111711, ip=10.15.36.1) [2025-10-31 03:45:20 TP0] Decode batch [39913], #running-req: 78, #token: 432100, token usage: 0.27, cuda graph: True, gen throughput (token/s): 7269.16, #queue-req: 0,",
		"[2026-07-20 10:15:03.250 DP3 PP0 ATTN_CP0 MOE_DP1 TP3 EP3] Decode batch, #running-req: 5",
		"2026-07-20 10:15:03,000 - supervisor - INFO - (pid=12, ip=10.0.0.2) [2026-07-20 10:15:03 TP0] Decode batch, #running-req: 3, #token: 266624, token usage: 0.43, accept len: 1.67, pre-allocated usage: 0.22, #prealloc-req: 0, cuda graph: True, gen throughput (token/s): 183.10, #queue-req: 0",
		"\x1e"+`{"__CURSOR":"s=1","__REALTIME_TIMESTAMP":"1784542503527104","MESSAGE":"Decode batch, #running-req: 1, #token: 8988, token usage: 0.02, gen throughput (token/s): 45.45, #queue-req: 0"}`,
		`{"log":"[2026-07-20 10:15:03] Prefill batch, #new-seq: 1, #new-token: 1032, #cached-token: 23648, token usage: 0.15, #running-req: 2, #queue-req: 0\n","stream":"stdout","time":"2026-07-20T10:15:03.527104251Z"}`)
}

// BenchmarkReader measures throughput over the fixtures repeated to a few
// megabytes.
func BenchmarkReader(b *testing.B) { engine.Benchmark(b, "2026-07-20T10:15:00Z") }

// TestRealLines reads every SGLang line of the real-lines corpus and
// compares what the reader takes from it with what the corpus says. The
// corpus's rank tags are checked against the header the reader finds, and
// what it keeps of them.
func TestRealLines(t *testing.T) {
	e := engine
	e.OpenLine = func(lr *lineio.Reader, opt enginelog.Options) readertest.Reader {
		r := NewReader(lr, opt)
		r.everyLine = true
		return r
	}
	e.Ranks = func(line []byte) (string, bool) {
		l := enginelog.ReadLine(line)
		h, ok := parseHeader(l, l.Start)
		if !ok {
			var bt batch
			batchElsewhere(l, &h, &bt)
		}
		return string(l.Text[h.ranks.at:h.ranks.end]), !h.ranks.repeat()
	}
	e.CheckCorpus(t, readertest.LoadCorpus(t, "sglang"))
}

// TestHeaderlessPoolKeyOfOthers reads a traceback that quotes the pool's
// argument, without a header: it is no pool line, and no error either;
// the headed pool line gives the pool, and a glued one without a header
// still would.
func TestHeaderlessPoolKeyOfOthers(t *testing.T) {
	log := "[2025-03-20 08:00:01 TP0] max_total_num_tokens=1000, chunked_prefill_size=2048\n" +
		"Traceback (most recent call last):\n" +
		"    return MemoryPoolConfig(max_total_num_tokens=max_total_num_tokens)\n" +
		"    max_total_num_tokens=max_total_num_tokens,\n" +
		"    swa_max_total_num_tokens=7,\n" +
		"[2025-03-20 08:00:05 TP0] Decode batch. #running-req: 1, #token: 1, token usage: 0.00, gen throughput (token/s): 1.00, #queue-req: 0, \n"
	samples, errs, info := engine.ReadAll(t, log, Options{T0: readertest.UTC("2025-03-20T08:00:00Z")})
	if len(errs) != 0 || len(samples) != 1 || info.KVPoolTokens != 1000 {
		t.Errorf("%d samples, errors %v, pool %d; want 1 sample, no error, pool 1000", len(samples), errs, info.KVPoolTokens)
	}
}

// TestExcerpts reads runs of real SGLang log lines with their neighbours
// (testdata/excerpts.yaml, readertest.Engine.CheckExcerpts).
func TestExcerpts(t *testing.T) { engine.CheckExcerpts(t) }
