package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
)

// wildFixture is a run directory of fixtures/real-wild: real tool output
// that a run directory of fixtures/real cannot hold (two engine logs by
// role, one engine log over several runs), each with its README.
func wildFixture(name string) string {
	return filepath.Join("..", "..", "fixtures", "real-wild", name)
}

// copyWild copies a fixtures/real-wild run directory for editing.
func copyWild(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(wildFixture(name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestDisaggregatedRoles reads a real prefill/decode-disaggregated SGLang
// deployment (sabreshao/sglang_disagg, slurm job 1870): its prefill log
// (no batch line, the KV pool, disable_radix_cache=True) and its decode
// log (decode batches, 256 running) given by role.
func TestDisaggregatedRoles(t *testing.T) {
	res := read(t, wildFixture("sglang-pd-2026"), Options{Version: "test"})
	r := res.Data.Run
	if r.PrefixCaching {
		t.Error("prefix caching on, want off: the prefill server's disable_radix_cache=True")
	}
	if r.KVPoolTokens == nil || *r.KVPoolTokens != 3454165 || r.KVPoolSource != "engine_log" {
		t.Errorf("KV pool %s from %q, want the prefill log's 3454165", readertest.Ptr(r.KVPoolTokens), r.KVPoolSource)
	}
	if r.EngineLogFormat == "" || len(r.EngineLogSHA256) != 64 {
		t.Errorf("engine log format %q, sha %q", r.EngineLogFormat, r.EngineLogSHA256)
	}
	// The decode log's 8 warm-up batches (15:04:39, 72 s before the run)
	// are left out; its 17 batches of the run are kept, as decode.
	var decode int
	for _, s := range res.Data.Engine {
		if s.Kind != schema.LineDecode {
			t.Errorf("sample at %.1f s is %q, want only the decode side's batches", s.TS, s.Kind)
			continue
		}
		decode++
		if s.Running == nil || *s.Running != 256 || s.GenTput == nil {
			t.Errorf("decode sample at %.1f s: running %s, gen %s", s.TS, readertest.Ptr(s.Running), readertest.Ptr(s.GenTput))
		}
		if s.KVUsage != nil || s.TokensUsed != nil || s.Waiting != nil {
			t.Errorf("decode sample at %.1f s keeps the prefill side's pool or queue", s.TS)
		}
	}
	if decode != 17 {
		t.Errorf("%d decode samples, want 17", decode)
	}
	warned(t, res, "the prefill log holds no sglang batch line")
	warned(t, res, "8 engine samples lie outside the run")
	warned(t, res, "8 before it")
	for _, w := range res.Warnings {
		if strings.Contains(w, "report cached prompt tokens") {
			t.Errorf("contradiction warned with uncached turns: %s", w)
		}
	}
}

// TestDisaggregatedCachingContradicted gives the disaggregated run turns
// that report cached tokens while its prefill server's arguments turn the
// radix cache off: the turns are believed, with a warning.
func TestDisaggregatedCachingContradicted(t *testing.T) {
	dir := copyWild(t, "sglang-pd-2026")
	rewrite(t, filepath.Join(dir, "gateway.jsonl"), func(s string) string {
		return strings.Replace(s, `"cached_tokens":0`, `"cached_tokens":2048`, 2)
	})
	res := read(t, dir, Options{Version: "test"})
	if !res.Data.Run.PrefixCaching {
		t.Error("prefix caching off, want on: two turns report cached tokens")
	}
	warned(t, res, "but 2 turn(s) report cached prompt tokens")
}

// TestEngineLogOverSeveralRuns reads one cell of a real concurrency sweep
// (kuotunyu/vllm-single-gpu-slo-lab, closed loop at 8) whose vLLM log
// spans the cells before (4 concurrent) and after (16): the engine table
// keeps the cell's own 21 samples, its warm-up's included, and says how
// many were left out on each side; no sample holds another cell's load.
func TestEngineLogOverSeveralRuns(t *testing.T) {
	res := read(t, wildFixture("vllm-sweep-2026"), Options{Version: "test"})
	eng := res.Data.Engine
	if len(eng) != 21 {
		t.Fatalf("%d engine samples, want the cell's 21", len(eng))
	}
	for _, s := range eng {
		if s.Running == nil || (*s.Running != 0 && *s.Running != 1 && *s.Running != 8) {
			t.Errorf("sample at %.0f s runs %s requests: another cell's load (4 or 16)", s.TS, readertest.Ptr(s.Running))
		}
	}
	// 14:19:23 and 14:24:25 Asia/Taipei: the warm-up's first line, one
	// second after started_at, and the line of the cell's last requests.
	if first, last := eng[0].TS, eng[len(eng)-1].TS; first != 1 || last != 303 {
		t.Errorf("samples from %.0f s to %.0f s, want 1 to 303", first, last)
	}
	if p := res.Data.Run.KVPoolTokens; p == nil || *p != 11168 {
		t.Errorf("KV pool %s, want the log's 11,168 tokens", readertest.Ptr(p))
	}
	warned(t, res, "26 engine samples lie outside the run")
	warned(t, res, "13 before it (from -117 s) and 13 after it (to +506 s)")
}
