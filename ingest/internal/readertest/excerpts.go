package readertest

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
)

// ExcerptsFile holds a reader's real excerpts (CheckExcerpts).
const ExcerptsFile = "testdata/excerpts.yaml"

// Excerpt is a run of consecutive lines of a real log, copied from a
// public issue or pull request with their neighbours (access lines,
// other processes' output), and what a reader makes of the whole.
type Excerpt struct {
	Name   string `yaml:"name"`
	Source string `yaml:"source"` // the URL the lines were copied from
	T0     string `yaml:"t0"`
	// Log holds the exact bytes, lines ending in \n (a YAML
	// double-quoted scalar).
	Log string `yaml:"log"`
	// Samples are the line numbers (from 1) that give a sample, in
	// order; EngineIndex, when given, the samples' engine indexes.
	Samples     []int64 `yaml:"samples"`
	EngineIndex []int32 `yaml:"engine_index"`
	// Span is the earliest and latest time of the log's timed lines, in
	// seconds since T0 (Info.FirstS, LastS); left out when none is timed.
	Span     []float64 `yaml:"span"`
	Format   string    `yaml:"format"`
	Wrappers string    `yaml:"wrappers"`
	// Errors are the errors the log gives, as "engine.log:LINE:COL: …"
	// prefixes.
	Errors []string `yaml:"errors"`
	// Matches is how many of the lines the reader's Match takes, for
	// sniffing the engine of a log.
	Matches int `yaml:"matches"`
}

// CheckExcerpts reads each excerpt of ExcerptsFile as a log and checks
// which lines give samples, their engine indexes, the span, dialect,
// wrappers and errors, and how many lines Match takes.
func (e Engine) CheckExcerpts(t *testing.T) {
	var excerpts []Excerpt
	decodeYAMLFile(t, ExcerptsFile, &excerpts)
	for _, x := range excerpts {
		t.Run(x.Name, func(t *testing.T) {
			if x.Source == "" || x.T0 == "" || !strings.HasSuffix(x.Log, "\n") {
				t.Fatalf("excerpt without its source or t0, or a log not ending in a newline")
			}
			samples, errs, info := e.ReadAll(t, x.Log, enginelog.Options{T0: UTC(x.T0)})
			var lines []int64
			var engines []int32
			for _, s := range samples {
				lines = append(lines, s.Line)
				engines = append(engines, s.EngineIndex)
			}
			if !slices.Equal(lines, x.Samples) {
				t.Errorf("samples from lines %v, want %v", lines, x.Samples)
			}
			if x.EngineIndex != nil && !slices.Equal(engines, x.EngineIndex) {
				t.Errorf("engine indexes %v, want %v", engines, x.EngineIndex)
			}
			var got []string
			for i, err := range errs {
				if i >= len(x.Errors) || !strings.HasPrefix(err.Error(), x.Errors[i]) {
					got = append(got, err.Error())
				}
			}
			if len(got) != 0 || len(errs) != len(x.Errors) {
				t.Errorf("errors %v, want %v", errs, x.Errors)
			}
			span := []float64{info.FirstS, info.LastS}
			if math.IsNaN(info.FirstS) {
				span = nil
			}
			if fmt.Sprint(span) != fmt.Sprint(x.Span) {
				t.Errorf("span %v, want %v", span, x.Span)
			}
			if info.Format != x.Format || info.Wrappers != x.Wrappers {
				t.Errorf("format %q, wrappers %q; want %q, %q", info.Format, info.Wrappers, x.Format, x.Wrappers)
			}
			matches := 0
			for _, l := range strings.Split(strings.TrimSuffix(x.Log, "\n"), "\n") {
				if e.Match([]byte(l)) {
					matches++
				}
			}
			if matches != x.Matches {
				t.Errorf("Match takes %d lines, want %d", matches, x.Matches)
			}
		})
	}
}
