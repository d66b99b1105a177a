package vllmlog

import (
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

// TestLineShapes feeds one line at a time: the line shapes vLLM has
// printed, real and constructed, and the variants the reader must
// tolerate. Expected values are the printed numbers, percentages divided
// by 100.
func TestLineShapes(t *testing.T) {
	const esc = "\x1b"
	engine.CheckLines(t, []readertest.LineCase{
		{
			Name: "v0.8 constructed, no Engine prefix",
			T0:   "2025-03-20T14:00:00Z",
			Line: "INFO 03-20 14:02:11 [loggers.py:80] Avg prompt throughput: 1843.2 tokens/s, Avg generation throughput: 212.7 tokens/s, Running: 12 reqs, Waiting: 0 reqs, GPU KV cache usage: 18.4%, Prefix cache hit rate: 41.3%",
			Want: &schema.EngineSample{TS: 131, Running: f(12), Waiting: f(0), KVUsage: f(0.184), LoggedHitRate: f(0.413), PromptTput: f(1843.2), GenTput: f(212.7)},
		},
		{
			Name: "v0.10.1 real, APIServer prefix",
			T0:   "2025-09-02T05:20:00Z",
			Line: "(APIServer pid=118) INFO 09-02 05:20:47 [loggers.py:123] Engine 000: Avg prompt throughput: 1634.2 tokens/s, Avg generation throughput: 5.1 tokens/s, Running: 16 reqs, Waiting: 3 reqs, GPU KV cache usage: 63.1%, Prefix cache hit rate: 37.4%",
			Want: &schema.EngineSample{TS: 47, Running: f(16), Waiting: f(3), KVUsage: f(0.631), LoggedHitRate: f(0.374), PromptTput: f(1634.2), GenTput: f(5.1)},
		},
		{
			Name: "Jul 2026 real, MM cache hit rate",
			T0:   "2026-07-29T06:00:00Z",
			Line: "(APIServer pid=1) INFO 07-29 06:22:31 [loggers.py:310] Engine 000: Avg prompt throughput: 657.5 tokens/s, Avg generation throughput: 1.1 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 22.0%, Prefix cache hit rate: 72.2%, MM cache hit rate: 75.0%",
			Want: &schema.EngineSample{TS: 22*60 + 31, Running: f(1), Waiting: f(0), KVUsage: f(0.22), LoggedHitRate: f(0.722), PromptTput: f(657.5), GenTput: f(1.1)},
		},
		{
			Name: "May 2026 constructed, all optional fields",
			T0:   "2026-05-19T14:00:00Z",
			Line: "(APIServer pid=1) INFO 05-19 14:03:12 [loggers.py:271] Engine 000: Avg prompt throughput: 5121.4 tokens/s, Avg generation throughput: 843.9 tokens/s, Running: 64 reqs, Waiting: 37 reqs, Deferred: 5 reqs, Preemptions: 3, GPU KV cache usage: 97.2%, Prefix cache hit rate: 62.8%, External prefix cache hit rate: 18.5%",
			Want: &schema.EngineSample{TS: 192, Running: f(64), Waiting: f(37), Preemptions: f(3), KVUsage: f(0.972), LoggedHitRate: f(0.628), PromptTput: f(5121.4), GenTput: f(843.9)},
		},
		{
			Name: "aggregated engines",
			T0:   "2026-05-19T14:00:00Z",
			Line: "(APIServer pid=7) INFO 05-19 14:03:22 [loggers.py:271] 4 Engines Aggregated: Avg prompt throughput: 20480.0 tokens/s, Avg generation throughput: 3311.6 tokens/s, Running: 240 reqs, Waiting: 12 reqs, GPU KV cache usage: 71.5%, Prefix cache hit rate: 55.0%",
			Want: &schema.EngineSample{TS: 202, EngineIndex: -1, Running: f(240), Waiting: f(12), KVUsage: f(0.715), LoggedHitRate: f(0.55), PromptTput: f(20480), GenTput: f(3311.6)},
		},
		{
			Name: "Engine 003 of a DP deployment",
			T0:   "2026-05-19T14:00:00Z",
			Line: "(APIServer pid=7) INFO 05-19 14:00:10 [loggers.py:271] Engine 003: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 3 reqs, Waiting: 4 reqs, GPU KV cache usage: 5.0%, Prefix cache hit rate: 6.0%",
			Want: &schema.EngineSample{TS: 10, EngineIndex: 3, Running: f(3), Waiting: f(4), KVUsage: f(0.05), LoggedHitRate: f(0.06), PromptTput: f(1), GenTput: f(2)},
		},
		{
			Name: "optional fields in other positions and an unknown new field",
			T0:   "2026-10-27T12:00:00Z",
			Line: "(APIServer pid=1) INFO 10-27 12:00:05 [loggers.py:310] Engine 000: Avg prompt throughput: 10.0 tokens/s, Avg generation throughput: 20.0 tokens/s, Running: 5 reqs, Preemptions: 2, Offloaded: 7 blocks, Tiers: GPU, CPU, Waiting: 6 reqs, External prefix cache hit rate: 1.5%, GPU KV cache usage: 50.0%, Corrupted: 0 reqs, Prefix cache hit rate: 25.0%, Deferred: 1 reqs",
			Want: &schema.EngineSample{TS: 5, Running: f(5), Waiting: f(6), Preemptions: f(2), KVUsage: f(0.5), LoggedHitRate: f(0.25), PromptTput: f(10), GenTput: f(20)},
		},
		{
			Name: "reflowed Waiting with several spaces",
			T0:   "2025-09-02T05:20:00Z",
			Line: "(APIServer pid=118) INFO 09-02 05:20:57 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 12.5 tokens/s, Running: 2 reqs, Waiting: 0    reqs, GPU KV cache usage: 3.0%, Prefix cache hit rate: 10.0%",
			Want: &schema.EngineSample{TS: 57, Running: f(2), Waiting: f(0), KVUsage: f(0.03), LoggedHitRate: f(0.1), PromptTput: f(0), GenTput: f(12.5)},
		},
		{
			Name: "idle line at DEBUG with a relative-path fileinfo",
			T0:   "2026-10-27T12:00:00Z",
			Line: "(APIServer pid=1) DEBUG 10-27 12:04:00 [v1/metrics/loggers.py:257] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%",
			Want: &schema.EngineSample{TS: 240, Running: f(0), Waiting: f(0), KVUsage: f(0), LoggedHitRate: f(0), PromptTput: f(0), GenTput: f(0)},
		},
		{
			Name: "pre-0.8 header without [",
			T0:   "2025-02-20T00:00:00Z",
			Line: "INFO 02-20 00:01:02 loggers.py:80] Avg prompt throughput: 5.0 tokens/s, Avg generation throughput: 6.0 tokens/s, Running: 1 reqs, Waiting: 2 reqs, GPU KV cache usage: 3.0%",
			Want: &schema.EngineSample{TS: 62, Running: f(1), Waiting: f(2), KVUsage: f(0.03), PromptTput: f(5), GenTput: f(6)},
		},
		{
			Name: "first V1 form, Running and Waiting only",
			T0:   "2025-01-20T00:00:00Z",
			Line: "INFO 01-20 00:00:30 loggers.py:40] Running: 3 reqs, Waiting: 1 reqs",
			Want: &schema.EngineSample{TS: 30, Running: f(3), Waiting: f(1)},
		},
		{
			Name: "nested process prefixes",
			T0:   "2025-12-01T00:00:00Z",
			Line: "(Worker pid=312) (Worker_TP0 pid=312) INFO 12-01 00:00:10 [loggers.py:259] Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 1.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%, Prefix cache hit rate: 1.0%",
			Want: &schema.EngineSample{TS: 10, Running: f(1), Waiting: f(0), KVUsage: f(0.01), LoggedHitRate: f(0.01), PromptTput: f(1), GenTput: f(1)},
		},
		{
			Name: "cyan prefix and coloured header",
			T0:   "2026-10-27T12:00:00Z",
			Line: esc + "[0;36m(APIServer pid=1)" + esc + "[0;0m " + esc + "[32mINFO" + esc + "[0m " + esc + "[90m10-27 12:01:23" + esc + "[0m " + esc + "[90m[loggers.py:310]" + esc + "[0m Engine 000: Avg prompt throughput: 823.9 tokens/s, Avg generation throughput: 107.5 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 6.7%, Prefix cache hit rate: 80.5%",
			Want: &schema.EngineSample{TS: 83, Running: f(3), Waiting: f(0), KVUsage: f(0.067), LoggedHitRate: f(0.805), PromptTput: f(823.9), GenTput: f(107.5)},
		},
		{
			Name: "docker RFC 3339 stamp in front",
			T0:   "2026-10-27T12:00:00Z",
			Line: "2026-10-27T12:03:03.001158525Z (APIServer pid=1) INFO 10-27 12:03:03 [loggers.py:310] Engine 000: Avg prompt throughput: 1.5 tokens/s, Avg generation throughput: 2.5 tokens/s, Running: 9 reqs, Waiting: 0 reqs, GPU KV cache usage: 34.1%, Prefix cache hit rate: 88.1%",
			Want: &schema.EngineSample{TS: 183, Running: f(9), Waiting: f(0), KVUsage: f(0.341), LoggedHitRate: f(0.881), PromptTput: f(1.5), GenTput: f(2.5)},
		},
		{
			Name: "uvicorn access line",
			T0:   "2026-10-27T12:00:00Z",
			Line: `(APIServer pid=1) INFO:     127.0.0.1:45252 - "GET /health HTTP/1.1" 200 OK`,
		},
		{
			Name: "spec-decoding metrics line",
			T0:   "2026-07-29T06:00:00Z",
			Line: "(APIServer pid=1) INFO 07-29 06:22:21 [metrics.py:120] SpecDecoding metrics: Mean acceptance length: 3.97, Accepted throughput: 18.70 tokens/s, Drafted throughput: 18.90 tokens/s, Accepted: 187 tokens, Drafted: 189 tokens, Per-position acceptance rate: 1.000, 1.000, 0.968, Avg Draft acceptance rate: 98.9%",
		},
		{
			Name: "KV transfer metrics line",
			T0:   "2026-05-19T14:00:00Z",
			Line: "(APIServer pid=1) INFO 05-19 14:03:12 [metrics.py:103] KV Transfer metrics: GPU_to_CPU_total_bytes=2147483648, GPU_to_CPU_total_time=0.412, CPU_to_GPU_total_bytes=536870912, CPU_to_GPU_total_time=0.097",
		},
		{
			Name: "cache_config_info debug line starts with Engine NNN",
			T0:   "2025-09-02T05:20:00Z",
			Line: "(APIServer pid=118) INFO 09-02 05:19:06 [loggers.py:142] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: 25000",
		},
		{
			Name: "traceback line",
			T0:   "2025-09-02T05:20:00Z",
			Line: `  File "/usr/lib/python3.12/asyncio/runners.py", line 195, in run`,
		},
		{
			Name: "malformed number",
			T0:   "2025-03-20T14:00:00Z",
			Line: "INFO 03-20 14:02:11 [loggers.py:80] Avg prompt throughput: 1843.2 tokens/s, Avg generation throughput: 212.7 tokens/s, Running: 12 reqs, Waiting: 0 reqs, GPU KV cache usage: 1x.4%, Prefix cache hit rate: 41.3%",
			Err:  `engine.log:1:175: vLLM stats line: GPU KV cache usage: malformed number "1x.4"`,
		},
		{
			Name: "nan throughput",
			T0:   "2025-03-20T14:00:00Z",
			Line: "INFO 03-20 14:02:11 [loggers.py:80] Avg prompt throughput: nan tokens/s, Avg generation throughput: 212.7 tokens/s, Running: 12 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.4%, Prefix cache hit rate: 41.3%",
			Err:  `engine.log:1:60: vLLM stats line: Avg prompt throughput: malformed number "nan"`,
		},
		{
			Name: "missing percent sign",
			T0:   "2025-03-20T14:00:00Z",
			Line: "INFO 03-20 14:02:11 [loggers.py:80] Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 18.4, Prefix cache hit rate: 41.3%",
			Err:  `GPU KV cache usage: want "%" after the number`,
		},
		{
			Name: "line cut off mid-field",
			T0:   "2025-03-20T14:00:00Z",
			Line: "INFO 03-20 14:02:11 [loggers.py:80] Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 18.4%, Prefix cache hit ra",
			Err:  `field "Prefix cache hit ra" is not "key: value"`,
		},
		// Logs as users have them: trailing blanks, wrappers, colour codes
		// without their ESC byte, text glued in front (real lines of the
		// real-lines corpus unless marked constructed).
		{
			Name: "trailing blanks of a terminal copy",
			T0:   "2026-07-14T21:30:00Z",
			Line: "(APIServer pid=5150) INFO 07-14 21:33:52 [loggers.py:273] Engine 000: Avg prompt throughput: 1546.5 tokens/s, Avg generation throughput: 3.3 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 3.0%, Prefix cache hit rate: 0.0%  ",
			Want: &schema.EngineSample{TS: 232, Running: f(1), Waiting: f(0), KVUsage: f(0.03), LoggedHitRate: f(0), PromptTput: f(1546.5), GenTput: f(3.3)},
		},
		{
			Name: "constructed: trailing tab and CR",
			T0:   "2026-07-14T21:30:00Z",
			Line: "(APIServer pid=5150) INFO 07-14 21:33:52 [loggers.py:273] Engine 000: Avg prompt throughput: 1546.5 tokens/s, Avg generation throughput: 3.3 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 3.0%, Prefix cache hit rate: 0.0% \t\r",
			Want: &schema.EngineSample{TS: 232, Running: f(1), Waiting: f(0), KVUsage: f(0.03), LoggedHitRate: f(0), PromptTput: f(1546.5), GenTput: f(3.3)},
		},
		{
			Name: "early V1 line, its own trailing space",
			T0:   "2025-01-20T00:00:00Z",
			Line: "INFO 01-20 00:00:30 loggers.py:40] Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 3 reqs, Waiting: 1 reqs ",
			Want: &schema.EngineSample{TS: 30, Running: f(3), Waiting: f(1), PromptTput: f(1), GenTput: f(2)},
		},
		{
			Name: "docker compose v2 and the APIServer prefix",
			T0:   "2026-07-02T08:30:00Z",
			Line: "vllm-1  | (APIServer pid=1) INFO 07-02 08:34:45 [loggers.py:273] Engine 000: Avg prompt throughput: 2564.1 tokens/s, Avg generation throughput: 2.1 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%",
			Want: &schema.EngineSample{TS: 285, Running: f(0), Waiting: f(0), KVUsage: f(0), LoggedHitRate: f(0), PromptTput: f(2564.1), GenTput: f(2.1)},
		},
		{
			Name: "journald",
			T0:   "2026-04-05T18:00:00Z",
			Line: "Apr 05 18:07:38 gpu4090d bash[59857]: (APIServer pid=59857) INFO 04-05 18:07:38 [loggers.py:259] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs, Waiting: 4 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%, MM cache hit rate: 30.3%",
			Want: &schema.EngineSample{TS: 458, Running: f(0), Waiting: f(4), KVUsage: f(0), LoggedHitRate: f(0), PromptTput: f(0), GenTput: f(0)},
		},
		{
			Name: "launcher stamp at UTC+8 before an engine at UTC: the engine's clock",
			T0:   "2024-07-08T07:00:00Z",
			Line: "[2024-07-08 15:17:34] INFO 07-08 07:17:34 metrics.py:334] Avg prompt throughput: 6501.4 tokens/s, Avg generation throughput: 69.1 tokens/s, Running: 4 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 15.6%, CPU KV cache usage: 0.0%",
			Want: &schema.EngineSample{TS: 17*60 + 34, Running: f(4), Waiting: f(0), KVUsage: f(0.156), PromptTput: f(6501.4), GenTput: f(69.1)},
		},
		{
			Name: "kubectl stamp in UTC before an engine at UTC-7: the engine's clock",
			T0:   "2025-10-14T17:00:00Z",
			Line: "2025-10-15T00:00:48.753199366Z (APIServer pid=1) INFO 10-14 17:00:48 [loggers.py:123] Engine 000: Avg prompt throughput: 1479.5 tokens/s, Avg generation throughput: 834.0 tokens/s, Running: 39 reqs, Waiting: 0 reqs, GPU KV cache usage: 75.8%, Prefix cache hit rate: 42.4%",
			Want: &schema.EngineSample{TS: 48, Running: f(39), Waiting: f(0), KVUsage: f(0.758), LoggedHitRate: f(0.424), PromptTput: f(1479.5), GenTput: f(834)},
		},
		{
			Name: "constructed: kubectl stamp and a prefix whose colour codes lost their ESC",
			T0:   "2025-09-02T13:00:00Z",
			Line: "2025-09-02T13:08:10.448213904Z [1;36m(APIServer pid=158)[0;0m INFO 09-02 13:08:10 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 238.7 tokens/s, Running: 10 reqs, Waiting: 0 reqs, GPU KV cache usage: 4.1%, Prefix cache hit rate: 53.7%",
			Want: &schema.EngineSample{TS: 490, Running: f(10), Waiting: f(0), KVUsage: f(0.041), LoggedHitRate: f(0.537), PromptTput: f(0), GenTput: f(238.7)},
		},
		{
			Name: "constructed: header parts whose colour codes lost their ESC",
			T0:   "2026-10-27T12:00:00Z",
			Line: "INFO [90m10-27 12:01:23[0m [90m[loggers.py:310][0m Engine 000: Avg prompt throughput: 823.9 tokens/s, Avg generation throughput: 107.5 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 6.7%, Prefix cache hit rate: 80.5%",
			Want: &schema.EngineSample{TS: 83, Running: f(3), Waiting: f(0), KVUsage: f(0.067), LoggedHitRate: f(0.805), PromptTput: f(823.9), GenTput: f(107.5)},
		},
		{
			Name: "Slurm task label",
			T0:   "2024-05-03T00:50:00Z",
			Line: "0: INFO 05-03 00:53:42 metrics.py:229] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.0%, CPU KV cache usage: 0.0%",
			Want: &schema.EngineSample{TS: 222, Running: f(0), Waiting: f(0), KVUsage: f(0), PromptTput: f(0), GenTput: f(0)},
		},
		{
			Name: "log viewer stamp at UTC+2",
			T0:   "2025-05-30T07:55:00Z",
			Line: "2025-05-30 09:55:29.284 | INFO 05-30 07:55:29 [loggers.py:116] Engine 000: Avg prompt throughput: 1.1 tokens/s, Avg generation throughput: 315.1 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 2.9%, Prefix cache hit rate: 0.0%",
			Want: &schema.EngineSample{TS: 29, Running: f(2), Waiting: f(0), KVUsage: f(0.029), LoggedHitRate: f(0), PromptTput: f(1.1), GenTput: f(315.1)},
		},
		{
			Name: "constructed: a progress bar glued in front",
			T0:   "2025-09-02T13:00:00Z",
			Line: "Processed prompts:  50%|█████     | 5/10 [00:01<00:01,  3.20it/s]INFO 09-02 13:08:10 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 238.7 tokens/s, Running: 10 reqs, Waiting: 0 reqs, GPU KV cache usage: 4.1%, Prefix cache hit rate: 53.7%",
			Want: &schema.EngineSample{TS: 490, Running: f(10), Waiting: f(0), KVUsage: f(0.041), LoggedHitRate: f(0.537), PromptTput: f(0), GenTput: f(238.7)},
		},
		{
			Name: "V0 prefix-cache line without its stats line",
			T0:   "2025-05-25T06:50:00Z",
			Line: "INFO 05-25 06:50:29 [metrics.py:502] Prefix cache hit rate: GPU: 12.50%, CPU: 90.00%",
			Want: &schema.EngineSample{TS: 29, LoggedHitRate: f(0.125)},
		},
		{
			Name: "stats line whose start is lost",
			T0:   "2025-09-02T13:00:00Z",
			Line: ", Running: 10 reqs, Waiting: 0 reqs, GPU KV cache usage: 3.5%, Prefix cache hit rate: 53.7%",
			Err:  `engine.log:1:3: vLLM stats line without its header`,
		},
		{
			Name: "stats line cut before its waiting queue",
			T0:   "2025-09-02T13:00:00Z",
			Line: "(APIServer pid=158) INFO 09-02 13:08:10 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 238.7 tokens/s, Running: 10 reqs",
			Err:  `engine.log:1:166: vLLM stats line: missing "Waiting": the line is cut or damaged`,
		},
		{
			Name: "stats line cut after its prompt throughput",
			T0:   "2025-09-02T13:00:00Z",
			Line: "INFO 09-02 13:08:10 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Running: 10 reqs, Waiting: 0 reqs",
			Err:  `missing "Avg generation throughput"`,
		},
		{
			Name: "other text with Running in it",
			T0:   "2025-09-02T13:00:00Z",
			Line: "Running: benchmark 3 of 5",
		},
		{
			Name: "journald blob",
			T0:   "2026-08-18T22:00:00Z",
			Line: "Aug 18 22:22:14 sys0 vllm[188957]: [102B blob data]",
		},
		{
			Name: "coloured malformed line has no column",
			T0:   "2026-10-27T12:00:00Z",
			Line: esc + "[32mINFO" + esc + "[0m 10-27 12:01:23 [loggers.py:310] Engine 000: Avg prompt throughput: 8.x tokens/s, Avg generation throughput: 1.0 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 6.7%, Prefix cache hit rate: 80.5%",
			Err:  `engine.log:1: vLLM stats line: Avg prompt throughput: malformed number "8.x"`,
		},
	})
}

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

// TestKVPoolSize checks the separate and merged startup lines.
func TestKVPoolSize(t *testing.T) {
	engine.CheckInfo(t, []readertest.InfoCase{
		{Name: "separate, Mar 2025", Log: "INFO 03-11 06:18:32 [kv_cache_utils.py:537] GPU KV cache size: 744,048 tokens\nINFO 03-11 06:18:32 [kv_cache_utils.py:540] Maximum concurrency for 26,240 tokens per request: 28.36x\n", Tokens: 744048, Format: Format08},
		{Name: "EngineCore_DP0, Feb 2026", Log: "(EngineCore_DP0 pid=10258) INFO 02-19 17:10:11 [gpu_worker.py:356] Available KV cache memory: 26.43 GiB\n(EngineCore_DP0 pid=10258) INFO 02-19 17:10:11 [kv_cache_utils.py:1307] GPU KV cache size: 216,496 tokens\n", Tokens: 216496, Format: Format010},
		{Name: "merged, newest", Log: "(EngineCore pid=31298) INFO 08-21 10:17:50 [kv_cache_utils.py:1869] GPU KV cache size: 174,643 tokens, Maximum concurrency for 131,072 tokens per request: 1.33x\n", Tokens: 174643, Format: Format2026},
		{Name: "EngineCore_0, Sep 2025", Log: "(EngineCore_0 pid=1440043) INFO 09-02 03:32:19 [kv_cache_utils.py:850] GPU KV cache size: 252,800 tokens\n", Tokens: 252800, Format: Format08},
		{Name: "no commas", Log: "INFO 03-11 06:18:32 [kv_cache_utils.py:537] GPU KV cache size: 1234 tokens\n", Tokens: 1234, Format: Format08},
		{Name: "first line wins", Log: "INFO 03-11 06:18:32 [kv_cache_utils.py:537] GPU KV cache size: 1,000 tokens\nINFO 03-11 06:18:33 [kv_cache_utils.py:537] GPU KV cache size: 2,000 tokens\n", Tokens: 1000, Format: Format08},
		{Name: "bad grouping", Log: "INFO 03-11 06:18:32 [kv_cache_utils.py:537] GPU KV cache size: 12,34 tokens\n", Tokens: 0, Format: Format08, Err: `engine.log:1:64: vLLM KV cache size line: malformed token count "12,34"`},
		{Name: "colour codes that lost their ESC, a space before the reset", Log: "[1;36m(EngineCore_0 pid=260) [0;0m INFO 09-01 12:21:24 [kv_cache_utils.py:849] GPU KV cache size: 122,880 tokens\n", Tokens: 122880, Format: Format08},
		{Name: "colour codes spelled out", Log: "#033[1;36m(EngineCore_0 pid=260)#033[0;0m INFO 09-01 12:21:24 [kv_cache_utils.py:849] GPU KV cache size: 122,880 tokens\n", Tokens: 122880, Format: Format08},
		{Name: "no log", Log: "hello\n", Tokens: 0, Format: ""},
	})
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

func TestMatch(t *testing.T) {
	engine.CheckMatch(t, map[string]bool{
		"INFO 03-20 14:02:11 [loggers.py:80] Avg prompt throughput: 1.0 tokens/s":                                                  true,
		"(APIServer pid=118) INFO 09-02 05:20:47 [loggers.py:123] Engine 000: x":                                                   true,
		"2026-10-27T12:03:03.001158525Z (APIServer pid=1) WARNING 10-27 12:03:03 [utils.py:1] x":                                   true,
		"\x1b[0;36m(APIServer pid=1)\x1b[0;0m \x1b[32mINFO\x1b[0m \x1b[90m10-27 12:01:23\x1b[0m \x1b[90m[loggers.py:310]\x1b[0m x": true,
		"INFO 02-20 00:01:02 kv_cache_utils.py:522] x":                                                                             true,
		"(VllmWorker rank=1 pid=77) INFO 02-20 00:01:02 [multiproc_worker_utils.py:1] x":                                           true,
		`(APIServer pid=1) INFO:     127.0.0.1:45252 - "GET /health HTTP/1.1" 200 OK`:                                              false,
		"[2025-03-20 08:01:14 TP0] Decode batch. #running-req: 1, ":                                                                false,
		"INFO 13-20 14:02:11 [loggers.py:80] bad month":                                                                            false,
		"INFO 03-20 14:02:11 [loggers.py] no line number":                                                                          false,
		"": false,
	})
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
		"INFO 05-02 10:00:05 [metrics.py:502] Prefix cache hit rate: GPU: 35.25%, CPU: 0.00%")
}

// BenchmarkReader measures throughput over the fixtures repeated to a few
// megabytes.
func BenchmarkReader(b *testing.B) { engine.Benchmark(b, "2026-10-27T12:00:00Z") }

// TestRealLines reads every vLLM line of the real-lines corpus and
// compares what the reader takes from it with what the corpus says.
func TestRealLines(t *testing.T) { engine.CheckCorpus(t, readertest.LoadCorpus(t, "vllm")) }
