package readertest

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// FormatScrape renders a metrics sample in the stable one-line text form
// of the metrics readers' tests and golden files: "-" for a null field.
func FormatScrape(s schema.EngineSample) string {
	f := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "line=%d t=%s %s/%s engine=%d run=%s wait=%s kv=%s dt=%s queries=%s hits=%s prompt=%s gen=%s preempt=%s",
		s.Line, strconv.FormatFloat(s.TS, 'f', 3, 64), s.Source, s.Kind, s.EngineIndex,
		f(s.Running), f(s.Waiting), f(s.KVUsage), f(s.IntervalS),
		f(s.PrefixQueries), f(s.PrefixHits), f(s.PromptTokens), f(s.GenerationTokens), f(s.Preemptions))
	if s.CounterReset {
		b.WriteString(" RESET")
	}
	return b.String()
}

// Scrapes reads a metrics reader to its end through next, returning one
// line per sample (FormatScrape) or error ("error: " and the error, which
// must be a *textpos.ParseError).
func Scrapes(t testing.TB, next func() (schema.EngineSample, error)) []string {
	t.Helper()
	var out []string
	for s, err := range All(next) {
		if err != nil {
			var pe *textpos.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *textpos.ParseError", err)
			}
			out = append(out, "error: "+err.Error())
			continue
		}
		if s.Source != schema.SourceMetrics || s.Kind != schema.LineScrape {
			t.Fatalf("sample of source %q, kind %q", s.Source, s.Kind)
		}
		out = append(out, FormatScrape(s))
		if len(out) > 1e6 {
			t.Fatal("reader does not end")
		}
	}
	return out
}

// CheckScrapes reads a metrics reader of an input of lines lines to its
// end through next, failing on what no input may give: an error without a
// position in the input, a sample out of time order or outside the input,
// a negative or NaN delta, a delta on a counter reset.
func CheckScrapes(t testing.TB, next func() (schema.EngineSample, error), lines int) {
	t.Helper()
	last := math.Inf(-1)
	for s, err := range All(next) {
		if err != nil {
			var pe *textpos.ParseError
			if !errors.As(err, &pe) || pe.Pos.Line < 1 || pe.Pos.Line > lines || pe.Column < 0 {
				t.Fatalf("bad error %v", err)
			}
			continue
		}
		if !(s.TS > last) || s.Line < 1 || s.Line > int64(lines) || s.Source != schema.SourceMetrics || s.Kind != schema.LineScrape {
			t.Fatalf("bad sample %s after t=%v", FormatScrape(s), last)
		}
		last = s.TS
		for _, d := range []*float64{s.IntervalS, s.PrefixQueries, s.PrefixHits, s.PromptTokens, s.GenerationTokens, s.Preemptions} {
			if d != nil && !(*d >= 0) {
				t.Fatalf("negative or NaN delta: %s", FormatScrape(s))
			}
		}
		if s.CounterReset && s.PromptTokens != nil {
			t.Fatalf("delta on a reset: %s", FormatScrape(s))
		}
	}
}
