package vllmlog

import (
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
)

// TestVersionDatesTheDialect reads lines of a real vLLM 0.28.0 log
// (kuotunyu/vllm-single-gpu-slo-lab@b032bb460f50f0190a1df58baa390edbe4a14417:
// evidence/raw/w2/bf16/closed-loop/seed-1/vllm.log, its banner and a stats
// line, the API server's lines only): no 2026-only marker of the line
// shapes shows, but the version the banner prints dates the log to 2026;
// before, it was named vllm-0.10. A 2025 development build's version line
// (vllm-project/vllm#24162: "0.10.2.dev378+g4d7fe40fc.d20250829") dates
// nothing newer.
func TestVersionDatesTheDialect(t *testing.T) {
	const stats = "(APIServer pid=82301) INFO 09-10 14:01:13 [loggers.py:310] Engine 000: Avg prompt throughput: 29.1 tokens/s, Avg generation throughput: 28.6 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.4%, Prefix cache hit rate: 0.0%\n"
	tests := []struct{ name, log, want string }{
		{"0.28.0 banner", "(APIServer pid=82301) INFO 09-10 13:58:21 [api_utils.py:333]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.28.0\n" + stats, Format2026},
		{"no version", stats, Format010},
		{"2025 development build", "(APIServer pid=82301) INFO 09-03 16:28:10 [api_server.py:1882] vLLM API server version 0.10.2.dev378+g4d7fe40fc.d20250829\n" + stats, Format010},
		{"2026 development build", "(APIServer pid=1) INFO 03-02 10:00:00 [api_server.py:1882] vLLM API server version 0.11.1.dev9+g0123abc.d20260302\n" + stats, Format2026},
		{"engine core's version", "(EngineCore_DP0 pid=2) INFO 02-20 10:00:00 [core.py:93] Initializing a V1 LLM engine (v0.16.0rc2.dev33+gabcdef0) with config: model='m'\n" + stats, Format2026},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, info := engine.ReadAll(t, tc.log, Options{T0: readertest.UTC("2026-09-10T14:00:00Z")})
			if len(errs) != 0 || info.Format != tc.want {
				t.Errorf("format %q, errors %v; want %q", info.Format, errs, tc.want)
			}
		})
	}
}
