package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		t.Errorf("KV pool %v from %q, want the prefill log's 3454165", r.KVPoolTokens, r.KVPoolSource)
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
			t.Errorf("decode sample at %.1f s: running %v, gen %v", s.TS, s.Running, s.GenTput)
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
