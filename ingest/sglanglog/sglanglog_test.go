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
		// Logs as users have them (real lines of the real-lines corpus
		// unless marked constructed).
		{
			Name: "constructed: a CRLF line ending in \", \"",
			T0:   "2025-09-03T18:33:00Z",
			Line: "[2025-09-03 18:33:19 TP0] Decode batch. #running-req: 1, #token: 177, token usage: 0.00, cuda graph: True, gen throughput (token/s): 84.20, #queue-req: 0, \r",
			Want: &schema.EngineSample{TS: 19, Kind: dec, Running: f(1), TokensUsed: n(177), KVUsage: f(0), GenTput: f(84.2), Waiting: f(0)},
		},
		{
			Name: "Kubernetes CRI log file, wrapper at UTC+2, engine at UTC",
			T0:   "2026-06-24T15:38:00Z",
			Line: "2026-06-24T17:38:02.436246479+02:00 stderr F [2026-06-24 15:38:02 PP0] Decode batch, #running-req: 1, #token: 998080, token usage: 0.59, cuda graph: True, gen throughput (token/s): 205.21, #queue-req: 0",
			Want: &schema.EngineSample{TS: 2, Kind: dec, Running: f(1), TokensUsed: n(998080), KVUsage: f(0.59), GenTput: f(205.21), Waiting: f(0)},
		},
		{
			Name: "cloud log export, attention-CP rank 0 kept",
			T0:   "2026-05-20T08:00:00Z",
			Line: "1779264164496\t2026-05-20T08:02:44.496Z\t[2026-05-20 08:02:44 PP0 ATTN_CP0 TP0] Decode batch, #running-req: 4, #token: 477376, token usage: 0.90, cuda graph: True, gen throughput (token/s): 199.95, #queue-req: 6",
			Want: &schema.EngineSample{TS: 164, Kind: dec, Running: f(4), TokensUsed: n(477376), KVUsage: f(0.9), GenTput: f(199.95), Waiting: f(6)},
		},
		{
			Name: "attention-CP rank 7 repeats rank 0's batch",
			T0:   "2026-05-20T08:00:00Z",
			Line: "1779264164792\t2026-05-20T08:02:44.792Z\t[2026-05-20 08:02:44 PP0 ATTN_CP7 TP7] Prefill batch, #new-seq: 1, #new-token: 128, #cached-token: 57856, token usage: 0.97, #running-req: 3, #queue-req: 5, cuda graph: False, input throughput (token/s): 1732.68",
		},
		{
			Name: "pipeline stage 3 repeats stage 0's batch",
			T0:   "2026-06-24T15:38:00Z",
			Line: "2026-06-24T17:38:02.458097755+02:00 stderr F [2026-06-24 15:38:02 PP3] Decode batch, #running-req: 1, #token: 998080, token usage: 0.59, cuda graph: True, gen throughput (token/s): 205.67, #queue-req: 0",
		},
		{
			Name: "pipeline stage 3, attention-CP rank 2: a copy of stage 0's batch",
			T0:   "2026-06-27T10:00:00Z",
			Line: "[2026-06-27 10:02:58 PP3 ATTN_CP2 TP2 EP2] Prefill batch, #new-seq: 1, #new-token: 128, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, #bootstrap-req: 0, #inflight-req: 1, npu graph: False, input throughput (token/s): 2.93",
		},
		{
			Name: "pipeline stage 0, attention-CP rank 0: kept",
			T0:   "2026-06-27T10:00:00Z",
			Line: "[2026-06-27 10:02:58 PP0 ATTN_CP0 TP0 EP0] Prefill batch, #new-seq: 1, #new-token: 128, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, #bootstrap-req: 0, #inflight-req: 1, npu graph: False, input throughput (token/s): 2.94",
			Want: &schema.EngineSample{TS: 178, Kind: pre, NewSeqs: n(1), NewTokens: n(128), CachedTokens: n(0), KVUsage: f(0), Running: f(0), Waiting: f(0), PromptTput: f(2.94)},
		},
		{
			Name: "DP rank 25 is a replica of its own",
			T0:   "2025-06-06T20:30:00Z",
			Line: "[2025-06-06 20:31:47 DP25 TP25] Decode batch. #running-req: 43, #token: 0, token usage: 0.00, pre-allocated usage: 0.00, cuda graph: True, gen throughput (token/s): 385.00, #queue-req: 0",
			Want: &schema.EngineSample{TS: 107, Kind: dec, EngineIndex: 25, Running: f(43), TokensUsed: n(0), KVUsage: f(0), GenTput: f(385), Waiting: f(0)},
		},
		{
			Name: "a progress bar glued in front",
			T0:   "2026-04-05T20:00:00Z",
			Line: "  2% 1/64 [00:04<04:51,  4.62s/it][2026-04-05 20:02:49] Prefill batch, #new-seq: 1, #new-token: 172, #cached-token: 0, token usage: 0.08, #running-req: 31, #queue-req: 0, cuda graph: True, input throughput (token/s): 4042.20",
			Want: &schema.EngineSample{TS: 169, Kind: pre, NewSeqs: n(1), NewTokens: n(172), CachedTokens: n(0), KVUsage: f(0.08), Running: f(31), Waiting: f(0), PromptTput: f(4042.2)},
		},
		{
			Name: "streamed model text glued in front",
			T0:   "2024-10-30T09:45:00Z",
			Line: "It looks like you're getting started with our conversation. I'm happy to chat with you and see how[2024-10-30 09:46:06 TP0] Decode batch. #running-req: 1, #token: 61, token usage: 0.00, gen throughput (token/s): 4.78, #queue-req: 0",
			Want: &schema.EngineSample{TS: 66, Kind: dec, Running: f(1), TokensUsed: n(61), KVUsage: f(0), GenTput: f(4.78), Waiting: f(0)},
		},
		{
			Name: "time-only header of 2024, cache hit rate",
			T0:   "2024-10-10T16:40:00Z",
			Line: "[16:43:29 TP0] Prefill batch. #new-seq: 4, #new-token: 8192, #cached-token: 291, cache hit rate: 2.76%, token usage: 0.04, #running-req: 1, #queue-req: 38",
			Want: &schema.EngineSample{TS: 209, Kind: pre, NewSeqs: n(4), NewTokens: n(8192), CachedTokens: n(291), LoggedHitRate: f(0.0276), KVUsage: f(0.04), Running: f(1), Waiting: f(38)},
		},
		{
			Name: "a logging config of the user's: ranks inside the bracket with the file",
			T0:   "2025-10-20T03:00:00Z",
			Line: "2025-10-20 03:02:22 INFO 31223 [DP3 TP3 EP3 scheduler_metrics_mixin.py:222] Decode batch. #running-req: 32, #token: 157952, token usage: 0.21, accept len: 1.93, pre-allocated usage: 0.00, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 693.45, #queue-req: 0",
			Want: &schema.EngineSample{TS: 142, Kind: dec, EngineIndex: 3, Running: f(32), TokensUsed: n(157952), KVUsage: f(0.21), GenTput: f(693.45), Waiting: f(0)},
		},
		{
			Name: "HiSparse decode: the GPU's tokens",
			T0:   "2026-04-08T14:00:00Z",
			Line: "[2026-04-08 14:09:56 TP0] Decode batch, #running-req: 5, #gpu-token: 20800, gpu token usage: 0.29, #cpu-token: 41422, cpu token usage: 0.29, cuda graph: True, gen throughput (token/s): 153.75, #queue-req: 0",
			Want: &schema.EngineSample{TS: 596, Kind: dec, Running: f(5), TokensUsed: n(20800), KVUsage: f(0.29), GenTput: f(153.75), Waiting: f(0)},
		},
		{
			Name: "sglang-jax: an unknown field at the end",
			T0:   "2025-12-17T05:10:00Z",
			Line: "[2025-12-17 05:10:47] Decode batch. #running-req: 1, #token: 64, token usage: 0.00, gen throughput (token/s): 84.39, #queue-req: 0, #cache_miss: 1",
			Want: &schema.EngineSample{TS: 47, Kind: dec, Running: f(1), TokensUsed: n(64), KVUsage: f(0), GenTput: f(84.39), Waiting: f(0)},
		},
		{
			Name: "constructed from the mid-2024 source: gpu_id in front",
			T0:   "2024-07-01T00:00:00Z",
			Line: "[2024-07-01 00:00:05] [gpu_id=0] Decode batch. #running-req: 3, #token: 900, token usage: 0.01, gen throughput (token/s): 120.50, #queue-req: 2",
			Want: &schema.EngineSample{TS: 5, Kind: dec, Running: f(3), TokensUsed: n(900), KVUsage: f(0.01), GenTput: f(120.5), Waiting: f(2)},
		},
		{
			Name: "constructed from the mid-2024 source: a mixed prefill",
			T0:   "2024-09-01T00:00:00Z",
			Line: "[2024-09-01 00:00:05 TP0] Prefill batch(mixed #running-req: 7). #new-seq: 1, #new-token: 512, #cached-token: 64, cache hit rate: 11.11%, token usage: 0.02, #queue-req: 0",
			Want: &schema.EngineSample{TS: 5, Kind: pre, Running: f(7), NewSeqs: n(1), NewTokens: n(512), CachedTokens: n(64), LoggedHitRate: f(0.1111), KVUsage: f(0.02), Waiting: f(0)},
		},
		{
			Name: "a header-less line has no time: no sample",
			T0:   "2024-08-05T00:00:00Z",
			Line: "Decode batch. #running-req: 1010, #token: 55006, token usage: 0.93, gen throughput (token/s): 1397.13, #queue-req: 12279",
		},
		{
			Name: "SGLang 0.1's header-less prefill line: no sample",
			T0:   "2024-05-15T00:00:00Z",
			Line: "new fill batch. #seq: 1. #cached_token: 330. #new_token: 2172. #remaining_req: 57. #running_req: 9. tree_cache_hit_rate: 69.16%",
		},
		{
			Name: "constructed: a header-less line timed by its container stamp",
			T0:   "2024-08-05T00:00:00Z",
			Line: "2024-08-05T00:01:40.5Z Decode batch. #running-req: 1010, #token: 55006, token usage: 0.93, gen throughput (token/s): 1397.13, #queue-req: 12279",
			Want: &schema.EngineSample{TS: 100.5, Kind: dec, Running: f(1010), TokensUsed: n(55006), KVUsage: f(0.93), GenTput: f(1397.13), Waiting: f(12279)},
		},
		{
			Name: "damaged: columns cut out of the middle",
			T0:   "2026-05-28T02:59:00Z",
			Line: "[2026-05-28 02:59:59 TP0] Prefill batch, #new-seq: 1, #new-token: 896, #cached-tounning-req: 45, #queue-req: 81, #pending-token: 70187, npu graph: False, input th",
			Err:  `engine.log:1:163: SGLang prefill batch line: missing "#cached-token", "#running-req": the line is cut or damaged`,
		},
		{
			Name: "constructed: cut at a field boundary",
			T0:   "2025-03-20T08:00:00Z",
			Line: "[2025-03-20 08:01:14 TP0] Decode batch. #running-req: 1, #token: 2090, token usage: 0.01",
			Err:  `missing "#queue-req"`,
		},
		{
			Name: "constructed: only fields the reader does not know",
			T0:   "2025-03-20T08:00:00Z",
			Line: "[2025-03-20 08:01:14 TP0] Decode batch. cuda graph: True",
			Err:  `missing "#running-req", "#token", "token usage", "#queue-req"`,
		},
		{
			Name: "cache hit rate without its percent sign",
			T0:   "2024-11-29T10:28:00Z",
			Line: "[2024-11-29 10:28:29 TP0] Prefill batch. #new-seq: 2, #new-token: 2048, #cached-token: 888, cache hit rate: 0.00, token usage: 0.11, #running-req: 69, #queue-req: 130",
			Err:  `cache hit rate: want "%" after the number`,
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
		{Name: "time-only headers are 0.3", Log: "[04:40:55 TP0] Decode batch. #running-req: 2, #token: 4078, token usage: 0.00, gen throughput (token/s): 447.31, #queue-req: 0\n", Tokens: 0, Format: Format03},
		{Name: "0.1 lines", Log: "#running-req: 5, #token: 1938, token usage: 0.24, #queue-req: 0\n", Tokens: 0, Format: Format01},
		{Name: "no SGLang header", Log: "INFO 03-20 14:02:11 [loggers.py:80] x\n", Tokens: 0, Format: ""},
	})
}

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

func TestMatch(t *testing.T) {
	engine.CheckMatch(t, map[string]bool{
		"[04:40:55 TP0] Decode batch. #running-req: 2":                                               true,
		"2025-10-20 03:02:22 INFO 31223 [DP3 TP3 EP3 scheduler_metrics_mixin.py:222] Decode batch.":  true,
		"sglang-1  | [2025-09-03 18:33:19 TP0] Decode batch.":                                        true,
		"(Worker_TP0 pid=1908385) [2026-05-04 05:25:03,414] LMCache INFO: Lookup x":                  false,
		"[2026-07-20 10:15:03 TP0 x.py:1] tags then a file are only the custom header's":             false,
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
