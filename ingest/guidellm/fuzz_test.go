package guidellm

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/textpos"
)

// FuzzReport feeds a report to the reader (JSON or, for any other first
// byte, YAML): every turn keeps the format's invariants and every error
// names a place in the input; reading always ends.
func FuzzReport(f *testing.F) {
	f.Add(report("", "", req, "", ""))
	f.Add(report(`{"type_": "synchronous"}`, `{"successful": 1}`, req, req, ""))
	f.Add("benchmarks:\n- requests:\n    successful: []\n")
	f.Add("\"\r") // a YAML error on its second line, after a lone CR
	f.Add(`{"benchmarks":[{"requests":{"successful":[{"request_id":"","scheduler_info":{"request_end":0},"prompt_tokens":0,"output_tokens":0}`)
	f.Add(`{"benchmarks": [{"start_time": 1, "end_time": 2, "requests": {"successful": [{"request_id": "r", "scheduler_info": {"request_end": 1.5}, "prompt_tokens": 1, "output_tokens": 1}]}}]}`)
	f.Fuzz(func(t *testing.T, text string) {
		rd, err := NewReader(strings.NewReader(text), "benchmarks.json", Options{Lenient: true})
		if err != nil {
			checkErr(t, err, text)
			return
		}
		rd.SetT0(t0)
		for steps := 0; ; steps++ {
			if steps > 4*len(text)+10 {
				t.Fatalf("reading does not end on %q", text)
			}
			_, err := rd.NextBenchmark()
			if err == io.EOF {
				return
			}
			if err != nil {
				checkErr(t, err, text)
				return
			}
			for ; ; steps++ {
				if steps > 4*len(text)+10 {
					t.Fatalf("reading does not end on %q", text)
				}
				tr, err := rd.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					checkErr(t, err, text)
					continue
				}
				r := tr.Row
				if r.Session == "" || math.IsNaN(r.DoneS) || (r.SentS != nil && r.DoneS < *r.SentS) || r.PromptTokens < 0 || r.OutputTokens < 0 ||
					(tr.CachedReported && r.CachedTokens > r.PromptTokens && r.PromptTokens > 0) {
					t.Fatalf("bad turn %+v", r)
				}
			}
		}
	})
}

func checkErr(t *testing.T, err error, text string) {
	var pe *textpos.ParseError
	lines := strings.Count(text, "\n") + strings.Count(text, "\r") + 1 // YAML breaks lines at CR too
	if errors.As(err, &pe) && (pe.Pos.Line < 1 || pe.Pos.Line > lines) {
		t.Fatalf("%v: line outside the input", err)
	}
}
