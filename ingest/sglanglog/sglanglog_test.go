package sglanglog

import (
	"math"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin on machines without a zone database

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
)

// engine describes the reader to the shared tests, with the real-format
// runs under fixtures/real and their manifests' started_at.
var engine = readertest.Engine{
	Open:  func(lr *lineio.Reader, opt enginelog.Options) readertest.Reader { return NewReader(lr, opt) },
	Match: Match,
	Kinds: []string{schema.LinePrefill, schema.LineDecode},
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

// TestLineShapes feeds one line at a time: the batch lines SGLang has
// printed, real and constructed, and the variants the reader must
// tolerate.
func TestLineShapes(t *testing.T) {
	engine.CheckLines(t, []readertest.LineCase{
		{
			Name: "v0.4.4 prefill, trailing comma and space",
			T0:   "2025-03-20T08:00:00Z",
			Line: "[2025-03-20 08:01:12 TP0] Prefill batch. #new-seq: 1, #new-token: 2048, #cached-token: 0, token usage: 0.01, #running-req: 0, #queue-req: 0, ",
			Want: &schema.EngineSample{TS: 72, Kind: pre, NewSeqs: n(1), NewTokens: n(2048), CachedTokens: n(0), KVUsage: f(0.01), Running: f(0), Waiting: f(0)},
		},
		{
			Name: "v0.4.4 decode with largest-len",
			T0:   "2025-03-20T08:00:00Z",
			Line: "[2025-03-20 08:01:14 TP0] Decode batch. #running-req: 1, #token: 2090, token usage: 0.01, gen throughput (token/s): 98.76, largest-len: 0, #queue-req: 0, ",
			Want: &schema.EngineSample{TS: 74, Kind: dec, Running: f(1), TokensUsed: n(2090), KVUsage: f(0.01), GenTput: f(98.76), Waiting: f(0)},
		},
		{
			Name: "real DP6 TP6 EP6 decode, trailing comma",
			T0:   "2025-11-03T14:00:00Z",
			Line: "[2025-11-03 14:31:10 DP6 TP6 EP6] Decode batch, #running-req: 251, #token: 2811200, token usage: 1.00, cuda graph: True, gen throughput (token/s): 2055.94, #queue-req: 655,",
			Want: &schema.EngineSample{TS: 31*60 + 10, Kind: dec, EngineIndex: 6, Running: f(251), TokensUsed: n(2811200), KVUsage: f(1), GenTput: f(2055.94), Waiting: f(655)},
		},
		{
			Name: "real Ray prefix and iteration number",
			T0:   "2025-10-31T03:45:00Z",
			Line: "(SGLangEngine pid=111711, ip=10.15.36.1) [2025-10-31 03:45:20 TP0] Decode batch [39913], #running-req: 78, #token: 432100, token usage: 0.27, cuda graph: True, gen throughput (token/s): 7269.16, #queue-req: 0,",
			Want: &schema.EngineSample{TS: 20, Kind: dec, Running: f(78), TokensUsed: n(432100), KVUsage: f(0.27), GenTput: f(7269.16), Waiting: f(0)},
		},
		{
			Name: "real hybrid Mamba decode, no rank tag",
			T0:   "2026-08-14T08:00:00Z",
			Line: "[2026-08-14 08:17:30] Decode batch, #running-req: 4, #full token: 1051, full token usage: 0.20, mamba num: 16, mamba usage: 0.20, cuda graph: True, gen throughput (token/s): 453.12, #queue-req: 0",
			Want: &schema.EngineSample{TS: 17*60 + 30, Kind: dec, Running: f(4), TokensUsed: n(1051), KVUsage: f(0.2), GenTput: f(453.12), Waiting: f(0)},
		},
		{
			Name: "EAGLE decode with accept len and rate",
			T0:   "2026-07-20T10:15:00Z",
			Line: "[2026-07-20 10:15:06 TP0] Decode batch, #running-req: 8, #token: 30452, token usage: 0.11, accept len: 3.12, accept rate: 0.71, cuda graph: True, gen throughput (token/s): 1320.44, #queue-req: 0",
			Want: &schema.EngineSample{TS: 6, Kind: dec, Running: f(8), TokensUsed: n(30452), KVUsage: f(0.11), GenTput: f(1320.44), Waiting: f(0)},
		},
		{
			Name: "real Feb 2026 prefill, input throughput before cuda graph",
			T0:   "2026-02-11T15:24:00Z",
			Line: "[2026-02-11 15:24:41] Prefill batch, #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, input throughput (token/s): 0.00, cuda graph: False",
			Want: &schema.EngineSample{TS: 41, Kind: pre, NewSeqs: n(1), NewTokens: n(7), CachedTokens: n(0), KVUsage: f(0), Running: f(0), Waiting: f(0), PromptTput: f(0)},
		},
		{
			Name: "real May 2026 prefill with #pending-token",
			T0:   "2026-05-02T06:13:00Z",
			Line: "[2026-05-02 06:13:12] Prefill batch, #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 0.32",
			Want: &schema.EngineSample{TS: 12, Kind: pre, NewSeqs: n(1), NewTokens: n(7), CachedTokens: n(0), KVUsage: f(0), Running: f(0), Waiting: f(0), PromptTput: f(0.32)},
		},
		{
			Name: "real hybrid SWA prefill on NPU",
			T0:   "2026-08-07T17:36:00Z",
			Line: "[2026-08-07 17:36:20 TP0] Prefill batch, #new-seq: 1, #new-token: 128, #cached-token: 0, full token usage: 0.00, swa token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, npu graph: False, input throughput (token/s): 38.23",
			Want: &schema.EngineSample{TS: 20, Kind: pre, NewSeqs: n(1), NewTokens: n(128), CachedTokens: n(0), KVUsage: f(0), Running: f(0), Waiting: f(0), PromptTput: f(38.23)},
		},
		{
			Name: "PD prefill with DP0 TP0 EP0",
			T0:   "2025-11-04T05:31:00Z",
			Line: "[2025-11-04 05:31:43 DP0 TP0 EP0] Prefill batch, #new-seq: 18, #new-token: 16384, #cached-token: 2210, token usage: 0.12, #running-req: 0, #queue-req: 41, #prealloc-req: 0, #inflight-req: 3, input throughput (token/s): 48211.55, ",
			Want: &schema.EngineSample{TS: 43, Kind: pre, NewSeqs: n(18), NewTokens: n(16384), CachedTokens: n(2210), KVUsage: f(0.12), Running: f(0), Waiting: f(41), PromptTput: f(48211.55)},
		},
		{
			Name: "PD decode fields, milliseconds, every kind of tag",
			T0:   "2026-07-20T10:15:00Z",
			Line: "[2026-07-20 10:15:03.250 DP3 PP0 ATTN_CP0 MOE_DP1 TP3 EP3] Decode batch, #running-req: 5, #token: 100, token usage: 0.05, pre-allocated usage: 0.01, #prealloc-req: 0, #transfer-req: 1, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 12.50, #queue-req: 2, fwd occupancy: 93.10%, per-rank: 1, 2, 3",
			Want: &schema.EngineSample{TS: 3.25, Kind: dec, EngineIndex: 3, Running: f(5), TokensUsed: n(100), KVUsage: f(0.05), GenTput: f(12.5), Waiting: f(2)},
		},
		{
			Name: "iteration number on a prefill line",
			T0:   "2025-10-24T00:00:00Z",
			Line: "[2025-10-24 00:00:09 TP0] Prefill batch [1234], #new-seq: 2, #new-token: 30, #cached-token: 10, token usage: 0.30, #running-req: 1, #queue-req: 0, ",
			Want: &schema.EngineSample{TS: 9, Kind: pre, NewSeqs: n(2), NewTokens: n(30), CachedTokens: n(10), KVUsage: f(0.3), Running: f(1), Waiting: f(0)},
		},
		{
			Name: "v0.4.9 prefill with #token",
			T0:   "2025-07-01T00:00:00Z",
			Line: "[2025-07-01 00:00:01 TP0] Prefill batch. #new-seq: 1, #new-token: 5, #cached-token: 3, #token: 88, token usage: 0.00, #running-req: 0, #queue-req: 0",
			Want: &schema.EngineSample{TS: 1, Kind: pre, NewSeqs: n(1), NewTokens: n(5), CachedTokens: n(3), TokensUsed: n(88), KVUsage: f(0), Running: f(0), Waiting: f(0)},
		},
		{
			Name: "ANSI colour and docker stamp in front",
			T0:   "2026-07-20T10:15:00Z",
			Line: "2026-07-20T10:15:03.123456789Z \x1b[36m(SGLangEngine pid=7, ip=10.0.0.1)\x1b[0m [2026-07-20 10:15:03] Decode batch, #running-req: 1, #token: 10, token usage: 0.00, cuda graph: True, gen throughput (token/s): 1.00, #queue-req: 0",
			Want: &schema.EngineSample{TS: 3, Kind: dec, Running: f(1), TokensUsed: n(10), KVUsage: f(0), GenTput: f(1), Waiting: f(0)},
		},
		{
			Name: "uvicorn access line",
			T0:   "2026-08-07T17:36:00Z",
			Line: `[2026-08-07 17:36:20] INFO:     127.0.0.1:54014 - "POST /generate HTTP/1.1" 200 OK`,
		},
		{
			Name: "flush warning",
			T0:   "2026-08-07T17:36:00Z",
			Line: "[2026-08-07 17:36:20 TP0] Cache not flushed because there are pending requests. #queue-req: 3, #running-req: 2",
		},
		{
			Name: "batch words in another message",
			T0:   "2026-08-07T17:36:00Z",
			Line: "[2026-08-07 17:36:20 TP0] Prefill batch size exceeded, retrying",
		},
		{
			Name: "malformed count",
			T0:   "2025-03-20T08:00:00Z",
			Line: "[2025-03-20 08:01:14 TP0] Decode batch. #running-req: 1x, #token: 2090, token usage: 0.01, gen throughput (token/s): 98.76, #queue-req: 0, ",
			Err:  `engine.log:1:55: SGLang decode batch line: #running-req: malformed number "1x"`,
		},
		{
			Name: "malformed token count",
			T0:   "2025-03-20T08:00:00Z",
			Line: "[2025-03-20 08:01:14 TP0] Decode batch. #running-req: 1, #token: 20.5, token usage: 0.01, gen throughput (token/s): 98.76, #queue-req: 0, ",
			Err:  `engine.log:1:66: SGLang decode batch line: #token: malformed count "20.5"`,
		},
		{
			Name: "batch line without fields",
			T0:   "2025-03-20T08:00:00Z",
			Line: "[2025-03-20 08:01:14 TP0] Decode batch. ",
			Err:  `engine.log:1:40: SGLang decode batch line: no fields`,
		},
		{
			Name: "nan usage",
			T0:   "2025-03-20T08:00:00Z",
			Line: "[2025-03-20 08:01:14 TP0] Decode batch. #running-req: 1, #token: 2090, token usage: nan, gen throughput (token/s): 98.76, #queue-req: 0, ",
			Err:  `token usage: malformed number "nan"`,
		},
		{
			Name: "line cut off mid-field",
			T0:   "2025-03-20T08:00:00Z",
			Line: "[2025-03-20 08:01:14 TP0] Decode batch. #running-req: 1, #token: 2090, token us",
			Err:  `engine.log:1:72: SGLang decode batch line: field "token us" is not "key: value"`,
		},
	})
}

// TestKVPoolAndFormat checks the startup pool lines (max_total_num_tokens
// preferred) and the dialect names.
func TestKVPoolAndFormat(t *testing.T) {
	engine.CheckInfo(t, []readertest.InfoCase{
		{Name: "v0.4.4 both lines, max_total preferred", Log: "[2025-03-20 08:00:50 TP0] KV Cache is allocated. #tokens: 452119, K size: 27.60 GB, V size: 27.60 GB\n[2025-03-20 08:00:52 TP0] max_total_num_tokens=452118, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=2049, context_len=32768\n", Tokens: 452118, Format: FormatBase},
		{Name: "allocation line only, pre-May-2026", Log: "[2025-09-01 10:00:00 TP0] KV Cache is allocated. #tokens: 452118, K size: 27.60 GB, V size: 27.60 GB\n", Tokens: 452118, Format: FormatBase},
		{Name: "allocation line with dtype, MLA", Log: "[2026-07-20 10:12:41 TP0] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 1183453, KV size: 40.63 GB\n", Tokens: 1183453, Format: Format2026},
		{Name: "newest max_total line", Log: "[2026-07-20 10:12:55 TP0] max_total_num_tokens=1183453, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=4096, context_len=131072, available_gpu_mem=11.02 GB\n", Tokens: 1183453, Format: FormatBase},
		{Name: "malformed max_total", Log: "[2026-07-20 10:12:55] max_total_num_tokens=12a, chunked_prefill_size=8192\n", Tokens: 0, Format: FormatBase, Err: `engine.log:1:44: SGLang max_total_num_tokens: malformed number "12a"`},
		{Name: "batch. is 0.4", Log: "[2025-06-01 00:00:01 TP0] Decode batch. #running-req: 1, #token: 1, token usage: 0.00, cuda graph: True, gen throughput (token/s): 1.00, #queue-req: 0\n", Tokens: 0, Format: Format04},
		{Name: "batch, with trailing comma is 0.5", Log: "[2025-12-01 00:00:01] Decode batch, #running-req: 1, #token: 1, token usage: 0.00, cuda graph: True, gen throughput (token/s): 1.00, #queue-req: 0, \n", Tokens: 0, Format: Format05},
		{Name: "batch, without trailing comma is 2026", Log: "[2026-02-11 15:24:41] Decode batch, #running-req: 1, #token: 1, token usage: 0.00, cuda graph: True, gen throughput (token/s): 1.00, #queue-req: 0\n", Tokens: 0, Format: Format2026},
		{Name: "no SGLang header", Log: "INFO 03-20 14:02:11 [loggers.py:80] x\n", Tokens: 0, Format: ""},
	})
}

// TestLogTZ reads Berlin wall-clock stamps: 09:15:05 CET is 08:15:05 UTC in
// March, 10:15:05 CEST is 08:15:05 UTC in July.
func TestLogTZ(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	const tail = " TP0] Decode batch. #running-req: 1, #token: 1, token usage: 0.00, gen throughput (token/s): 1.00, #queue-req: 0, \n"
	engine.CheckZones(t, []readertest.ZoneCase{
		{T0: "2025-03-20T08:15:00Z", Line: "[2025-03-20 09:15:05" + tail, Loc: berlin, Want: 5},
		{T0: "2025-07-20T08:15:00Z", Line: "[2025-07-20 10:15:05" + tail, Loc: berlin, Want: 5},
		{T0: "2025-07-20T08:15:00Z", Line: "[2025-07-20 10:15:05" + tail, Want: 7205},
	})
}

// TestErrorThenContinue checks that a bad line is reported and the reader
// goes on with the next.
func TestErrorThenContinue(t *testing.T) {
	engine.CheckErrorThenContinue(t, "2025-03-20T08:00:00Z",
		"[2025-03-20 08:00:05 TP0] Decode batch. #running-req: 1, #token: 1, token usage: 0.00, gen throughput (token/s): 1.00, #queue-req: 0, ",
		"[2025-03-20 08:00:06 TP0] Decode batch. #running-req: -, #queue-req: 0",
		"engine.log:2:55: ")
}

func TestMatch(t *testing.T) {
	engine.CheckMatch(t, map[string]bool{
		"[2025-03-20 08:01:14 TP0] Decode batch. #running-req: 1, ":                                  true,
		"[2026-07-20 10:15:03] Prefill batch, #new-seq: 1":                                           true,
		"[2026-07-20 10:15:03.250 DP3 TP3 EP3] x":                                                    true,
		"(SGLangEngine pid=111711, ip=10.15.36.1) [2025-10-31 03:45:20 TP0] Decode batch [39913], x": true,
		`[2026-08-07 17:36:20] INFO:     127.0.0.1:54014 - "POST /generate HTTP/1.1" 200 OK`:         true,
		"INFO 03-20 14:02:11 [loggers.py:80] Avg prompt throughput: 1.0 tokens/s":                    false,
		"[2026-07-20 10:15:03 tp0] lower-case tag":                                                   false,
		"[2026-13-20 10:15:03] bad month":                                                            false,
		"Loading safetensors checkpoint shards: 100% Completed | 4/4":                                false,
		"": false,
	})
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
		"[2026-07-20 10:15:03.250 DP3 PP0 ATTN_CP0 MOE_DP1 TP3 EP3] Decode batch, #running-req: 5")
}

// BenchmarkReader measures throughput over the fixtures repeated to a few
// megabytes.
func BenchmarkReader(b *testing.B) { engine.Benchmark(b, "2026-07-20T10:15:00Z") }
