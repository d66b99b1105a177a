package outlastlog

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
)

// readTrace reads text and formats every record, error and warning, in
// order, with positions.
func readTrace(t *testing.T, text string) []string {
	t.Helper()
	r := newTestReader(t, text, specT0)
	defer r.Close()
	var out []string
	for rec, err := range readertest.All(r.Next) {
		if err != nil {
			out = append(out, "error "+err.Error())
			continue
		}
		s := fmt.Sprintf("%s %s %q t=%.6f", rec.Pos, rec.Ev, rec.Raw, rec.T)
		if tr := rec.Turn; tr != nil {
			s += fmt.Sprintf(" turn=%s/%d %s %s %s %d/%d/%d %s", tr.Session, tr.Turn, optF(tr.ReadyS), optF(tr.SentS), optF(tr.FirstTokenS),
				tr.PromptTokens, tr.CachedTokens, tr.OutputTokens, tr.Status)
		}
		out = append(out, s)
	}
	return append(out, r.Warnings()...)
}

func optF(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.6f", *p)
}

// TestChunkingKeepsOrderAndPositions reads the same inputs cut into chunks
// of many sizes, down to a few bytes (a line spanning chunks is read whole),
// and checks that the records, errors, positions and warnings are those of
// one chunk.
func TestChunkingKeepsOrderAndPositions(t *testing.T) {
	var fixturesText string
	for _, dir := range fixtureDirs(t) {
		b := readertest.ReadFile(t, dir, "gateway.jsonl")
		fixturesText += string(b)
	}
	inputs := map[string]string{
		"fixtures": fixturesText,
		"bad lines, blanks, CRLF, cut last line": strings.Join([]string{
			`{"ts":1761566401,"ev":"session_start","session":"a"}`,
			``,
			`{"ts":1761566402,"ev":"turn","session":"a","turn":0,"prompt_tokens":10,"output_tokens":1}` + "\r",
			`not json`,
			`   `,
			`{"ts":1761566403,"ev":"turn","session":"a","turn":1,"prompt_tokens":-1,"output_tokens":1}`,
			`{"ts":1761566404,"ev":"park","session":"a","turn":2}`,
			`{"ts":1761566405,"ev":"turn","session":"a","tu`,
		}, "\n"),
		"bad last line with newline": `{"ts":1761566401,"ev":"session_start","session":"a"}` + "\n{\"ts\":\n",
	}
	defer func(n int) { chunkSize = n }(chunkSize)
	for name, text := range inputs {
		chunkSize = ChunkSize
		want := readTrace(t, text)
		if len(want) < 2 {
			t.Fatalf("%s: trace too short: %q", name, want)
		}
		for _, n := range []int{1, 7, 64, 1000, 4096} {
			chunkSize = n
			got := strings.Join(readTrace(t, text), "\n")
			if w := strings.Join(want, "\n"); got != w {
				t.Errorf("%s, chunks of %d bytes:\n%s", name, n, diff.Diff("one chunk", []byte(w), "chunks", []byte(got)))
			}
		}
	}
}

// TestCloseStopsEarly stops reading after the first record; Close must
// return (the goroutines end) and a second Close is harmless.
func TestCloseStopsEarly(t *testing.T) {
	defer func(n int) { chunkSize = n }(chunkSize)
	chunkSize = 16
	line := `{"ts":1761566401,"ev":"session_start","session":"a"}` + "\n"
	r := newTestReader(t, strings.Repeat(line, 1000), specT0)
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r.Close()
}

// TestCollectedTurnsOutliveBatches collects the fixtures read in tiny
// chunks, whose buffers are reused many times over, and checks the tables
// against those of one chunk: a kept turn must not point into a buffer.
func TestCollectedTurnsOutliveBatches(t *testing.T) {
	defer func(n int) { chunkSize = n }(chunkSize)
	for _, dir := range fixtureDirs(t) {
		b := readertest.ReadFile(t, dir, "gateway.jsonl")
		tables := func(size int) string {
			chunkSize = size
			c := NewCollector()
			if errs, other := feed(newTestReader(t, string(b), specT0), c); len(errs) > 0 || other != nil {
				t.Fatal(errs, other)
			}
			_, turns, _ := c.Tables(0)
			var out strings.Builder
			for _, tr := range turns {
				fmt.Fprintf(&out, "%s/%d %s %s %s %f\n", tr.Session, tr.Turn, optF(tr.ReadyS), optF(tr.SentS), optF(tr.FirstTokenS), tr.DoneS)
			}
			return out.String()
		}
		if want, got := tables(ChunkSize), tables(64); got != want {
			t.Errorf("%s: turns differ when read in small chunks", filepath.Base(dir))
		}
	}
}
