package outlastlog

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/textpos"
)

// sameAsParse checks the fast path against parse on one line: when
// fastTurn accepts it, parse must accept it with the same record.
func sameAsParse(t *testing.T, line []byte) (fast bool) {
	t.Helper()
	pos := textpos.Pos{File: "gateway.jsonl", Line: 1}
	rec, ok := newParser(specT0).fastTurn(line, pos)
	if !ok {
		return false
	}
	want, err := newParser(specT0).parse(line, pos)
	if err != nil {
		t.Fatalf("fast path accepted %q, parse says %v", line, err.Msg)
	}
	if got, w := describeRecord(rec), describeRecord(want); got != w {
		t.Fatalf("%q:\nfast  %s\nparse %s", line, got, w)
	}
	return true
}

func describeRecord(r Record) string {
	s := fmt.Sprintf("%s %q %v %x", r.Pos, r.Raw, r.Ev, math.Float64bits(r.T))
	if tr := r.Turn; tr != nil {
		bits := func(p *float64) string {
			if p == nil {
				return "-"
			}
			return fmt.Sprintf("%x", math.Float64bits(*p))
		}
		s += fmt.Sprintf(" %q %d %q %s %s %s %x %d %d %d %q", tr.Session, tr.Turn, tr.Origin, bits(tr.ReadyS), bits(tr.SentS), bits(tr.FirstTokenS),
			math.Float64bits(tr.DoneS), tr.PromptTokens, tr.CachedTokens, tr.OutputTokens, tr.Status)
	}
	return s + fmt.Sprintf(" start=%v end=%v event=%v", r.Start != nil, r.End != nil, r.Event != nil)
}

// fastSeeds are turn lines of the fixtures plus hand-made variants.
func fastSeeds(t testing.TB) [][]byte {
	seeds := [][]byte{
		[]byte(`{"ts":1761566402.5,"ev":"turn","session":"a","turn":0,"prompt_tokens":10,"cached_tokens":null,"output_tokens":1}`),
		[]byte(`{"ts":"2025-10-27T12:00:02.250+02:00","ev":"turn","session":"a","turn":3,"prompt_tokens":10,"cached_tokens":10,"output_tokens":1,"status":"aborted","ready_ts":null}`),
		[]byte(`{"ev":"turn","ts":-5,"turn":2147483647,"session":"é","prompt_tokens":0,"output_tokens":0,"status":null,"sent_ts":1761566401}`),
	}
	for _, dir := range fixtureDirs(t) {
		f, err := os.Open(filepath.Join(dir, "gateway.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if bytes.Contains(sc.Bytes(), []byte(`"ev":"turn"`)) {
				seeds = append(seeds, append([]byte(nil), sc.Bytes()...))
			}
		}
		f.Close()
	}
	return seeds
}

// TestFastTurnSameAsParse runs the seeds and many random mutations of them
// (bytes deleted, inserted, replaced) through both paths.
func TestFastTurnSameAsParse(t *testing.T) {
	seeds := fastSeeds(t)
	fast := 0
	for _, s := range seeds {
		if sameAsParse(t, s) {
			fast++
		}
	}
	if fast < len(seeds)/3 {
		t.Errorf("the fast path took only %d of %d seed lines", fast, len(seeds))
	}
	rng := rand.New(rand.NewPCG(5, 5))
	alphabet := []byte(`{}[]":,.-+eE0123456789 \tnulltrue"ab\` + "\x00\xff")
	for range 20000 {
		b := readertest.Mutate(rng, seeds[rng.IntN(len(seeds))], alphabet)
		sameAsParse(t, b)
	}
}

// FuzzFastTurn checks the fast path against parse on arbitrary lines.
func FuzzFastTurn(f *testing.F) {
	for _, s := range fastSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line []byte) { sameAsParse(t, line) })
}

// BenchmarkFastTurn measures the fast path on two turn lines, one with
// epoch seconds (outlast's simulator) and one with RFC 3339 times
// (benchgen's large log), per pair.
func BenchmarkFastTurn(b *testing.B) {
	lines := [][]byte{
		[]byte(`{"ts":1793102448.291,"ev":"turn","session":"b-0001","turn":0,"ready_ts":1793102446.206,"sent_ts":1793102446.206,"first_token_ts":1793102446.635,"prompt_tokens":6144,"cached_tokens":0,"output_tokens":300}`),
		[]byte(`{"ts":"2026-10-27T12:00:03.412Z","ev":"turn","session":"s-0000001","turn":0,"ready_ts":"2026-10-27T12:00:00.000Z","sent_ts":"2026-10-27T12:00:00.001Z","first_token_ts":"2026-10-27T12:00:00.402Z","prompt_tokens":6144,"cached_tokens":0,"output_tokens":300}`),
	}
	r := newParser(specT0)
	pos := textpos.Pos{File: "gateway.jsonl", Line: 1}
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if _, ok := r.fastTurn(l, pos); !ok {
				b.Fatalf("%s: not on the fast path", l)
			}
		}
	}
}
