package infperf

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/textpos"
)

// FuzzExport feeds an export to the reader with a manifest offset: every
// turn keeps the format's invariants, every bad record is an error at a
// place in the input, and reading ends.
func FuzzExport(f *testing.F) {
	f.Add(list(rec06(2, info06(2+734512.5+0.25, usage, `{"user_session": "u", "chat_round": 1}`))))
	f.Add(`[{"start_time": 1, "end_time": 2, "info": {"input_tokens": 3, "output_tokens": 4, "output_token_times": [1.5]}, "error": null}]`)
	f.Add(`[{"start_time": 1, "end_time": 2, "info": null, "error": {"error_type": "x", "error_msg": "y"}}]`)
	f.Fuzz(func(t *testing.T, text string) {
		at := offset
		rd := NewReader(strings.NewReader(text), "per_request_lifecycle_metrics.json", Options{T0: t0, ClockOffsetS: &at})
		for steps := 0; ; steps++ {
			if steps > len(text)+10 {
				t.Fatalf("reading does not end on %q", text)
			}
			tr, err := rd.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var pe *textpos.ParseError
				if errors.As(err, &pe) && (pe.Pos.Line < 1 || pe.Pos.Line > strings.Count(text, "\n")+1) {
					t.Fatalf("%v: line outside the input", err)
				}
				if !errors.As(err, &pe) {
					return
				}
				continue
			}
			r := tr.Row
			if r.Session == "" || math.IsNaN(r.DoneS) || r.SentS == nil || r.DoneS < *r.SentS || r.PromptTokens < 0 || (tr.CachedReported && r.CachedTokens > r.PromptTokens) {
				t.Fatalf("bad turn %+v", r)
			}
		}
	})
}
