package sglanglog

import (
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
)

// TestLowestRankPresent reads a real SGLang 0.5.10 line of attention
// context-parallel rank 7 (sgl-project/sglang#25887, the pasted
// cloud log export, fixtures/real-lines sglang.yaml
// sglang-0.5.10-issue25887-attncp7-prefill) as a log of that rank's lines
// only: it is the lowest rank present, so its batches are kept, and a
// note says that the rank the rule keeps, ATTN_CP0, is missing. Before,
// such a log gave no sample at all, silently.
func TestLowestRankPresent(t *testing.T) {
	const line = "1779264164792\t2026-05-20T08:02:44.792Z\t[2026-05-20 08:02:44 PP0 ATTN_CP7 TP7] Prefill batch, #new-seq: 1, #new-token: 128, #cached-token: 57856, token usage: 0.97, #running-req: 3, #queue-req: 5, cuda graph: False, input throughput (token/s): 1732.68\n"
	samples, errs, info := engine.ReadAll(t, line, Options{T0: readertest.UTC("2026-05-20T08:00:00Z")})
	if len(errs) != 0 || len(samples) != 1 || *samples[0].CachedTokens != 57856 {
		t.Fatalf("samples %+v, errors %v; want the line's batch", samples, errs)
	}
	if notes := strings.Join(info.Notes, "\n"); !strings.Contains(notes, "ATTN_CP0") || !strings.Contains(notes, "PP0 ATTN_CP7 TP7") {
		t.Errorf("notes %q, want one naming the missing ATTN_CP0 and the rank kept", notes)
	}
}

// TestLowerRankAppearsLater checks ranks 7 and 4 of the example:
// rank 7's line of a batch comes first and is kept; rank 4's copy of the
// same batch is not counted twice, and rank 4 is kept from then on.
func TestLowerRankAppearsLater(t *testing.T) {
	const tail = "] Decode batch, #running-req: 4, #token: 477376, token usage: 0.90, cuda graph: True, gen throughput (token/s): 199.95, #queue-req: 6\n"
	log := "[2026-05-20 08:02:44 PP0 ATTN_CP7 TP7" + tail +
		"[2026-05-20 08:02:44 PP0 ATTN_CP4 TP4" + tail +
		"[2026-05-20 08:02:45 PP0 ATTN_CP7 TP7" + tail +
		"[2026-05-20 08:02:45 PP0 ATTN_CP4 TP4" + tail +
		"[2026-05-20 08:02:46 PP0 ATTN_CP4 TP4" + tail +
		"[2026-05-20 08:02:46 PP0 ATTN_CP7 TP7" + tail
	samples, errs, info := engine.ReadAll(t, log, Options{T0: readertest.UTC("2026-05-20T08:00:00Z")})
	var lines []int64
	for _, s := range samples {
		lines = append(lines, s.Line)
	}
	if len(errs) != 0 || len(samples) != 3 || lines[0] != 1 || lines[1] != 4 || lines[2] != 5 {
		t.Fatalf("sample lines %v, errors %v; want 1, 4, 5 (one per batch)", lines, errs)
	}
	if info.Repeats != 3 || len(info.Notes) != 1 || !strings.Contains(info.Notes[0], "ATTN_CP4 TP4") {
		t.Errorf("repeats %d, notes %q", info.Repeats, info.Notes)
	}
}
