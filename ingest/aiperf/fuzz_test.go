package aiperf

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/textpos"
)

// FuzzRecord feeds one line to the reader: it returns a turn that keeps the
// format's invariants, or a positioned error on that line; never a panic.
func FuzzRecord(f *testing.F) {
	f.Add(rec(meta26, usage, ""))
	f.Add(rec(meta25, `"input_sequence_length":{"value":800,"unit":"tokens"},"ttft":{"value":90.0,"unit":"ms"}`, `,"error":null`))
	f.Add(rec(meta26+`,"was_cancelled":true`, `"error_isl":{"value":6845,"unit":"tokens"}`, `,"error":{"code":499}`))
	f.Add(`{"metadata":{"benchmark_phase":"warmup"}}`)
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\r\n") {
			return
		}
		rd := reader(t, line+"\n")
		tr, err := rd.Next()
		switch {
		case err == io.EOF:
			if rd.Info().Warmup != 1 && strings.TrimSpace(line) != "" {
				t.Fatalf("no turn, no error, no warmup record for %q", line)
			}
		case err != nil:
			var pe *textpos.ParseError
			if !errors.As(err, &pe) || pe.Pos.Line != 1 || pe.Column > len(line)+1 {
				t.Fatalf("%v is not an error at line 1 of %q", err, line)
			}
		default:
			r := tr.Row
			if r.Session == "" || r.SentS == nil || r.DoneS < *r.SentS || math.IsNaN(r.DoneS) || r.PromptTokens < 0 || r.OutputTokens < 0 {
				t.Fatalf("bad turn %+v from %q", r, line)
			}
			if tr.CachedReported && r.CachedTokens > r.PromptTokens {
				t.Fatalf("cached %d > prompt %d", r.CachedTokens, r.PromptTokens)
			}
		}
	})
}
