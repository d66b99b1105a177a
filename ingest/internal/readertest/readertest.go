// Package readertest holds what the readers' tests share: the fixture
// runs, and the tests that every engine-log reader (vllmlog, sglanglog)
// must pass, with the helpers of their own tests. An engine's reader is
// described once (Engine), and each check takes a table of the engine's
// lines.
package readertest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/internal/golden"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// Reader is an engine-log reader as the tests see it.
type Reader interface {
	Next() (schema.EngineSample, error)
	Info() enginelog.Info
}

// All returns the values and errors that next returns until io.EOF: a
// reader's Next as an iterator.
func All[T any](next func() (T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for {
			v, err := next()
			if err == io.EOF || !yield(v, err) {
				return
			}
		}
	}
}

// Engine describes an engine's reader to the tests.
type Engine struct {
	Open  func(*lineio.Reader, enginelog.Options) Reader
	Match func(line []byte) bool
	// Kinds are the kinds of sample the reader yields; the first is the
	// kind of an expected sample that leaves Kind empty.
	Kinds []string
	// Fixtures are the engine's runs under fixtures/real.
	Fixtures []Fixture
	// Corpus is the engine's name in the real-lines corpus (LoadCorpus),
	// whose lines seed the fuzz target.
	Corpus string
	// Columns name the sample fields that the golden files show after the
	// line, time, kind and engine (see Render).
	Columns []string
	// OpenLine, if set, opens the reader for a corpus line read on its
	// own: every rank's copy of a batch kept, and a line with no time at
	// all given as a sample with a NaN time (CheckCorpus).
	OpenLine func(*lineio.Reader, enginelog.Options) Reader
	// Ranks, if set, returns the rank tags of a line's header as printed
	// and whether the reader keeps the batch lines of that rank.
	Ranks func(line []byte) (tags string, kept bool)
}

// Fixture is a run under fixtures/real whose engine log the reader reads.
type Fixture struct {
	Run    string
	T0     string // the manifest's started_at
	Format string // the dialect the reader names
}

// F returns a pointer to x, for expected samples.
func F(x float64) *float64 { return &x }

// N returns a pointer to x, for expected samples.
func N(x int64) *int64 { return &x }

// UTC parses an RFC 3339 time.
func UTC(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// ReadAll reads text as a whole log named engine.log and returns its
// samples, errors and Info.
func (e Engine) ReadAll(t testing.TB, text string, opt enginelog.Options) ([]schema.EngineSample, []error, enginelog.Info) {
	t.Helper()
	lr, err := lineio.NewReader(strings.NewReader(text), "engine.log")
	if err != nil {
		t.Fatal(err)
	}
	r := e.Open(lr, opt)
	var samples []schema.EngineSample
	var errs []error
	for s, err := range All(r.Next) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		samples = append(samples, s)
	}
	return samples, errs, r.Info()
}

// FixturesDir is the directory of the fixture runs, fixtures/real, from a
// reader's package directory (two levels below the repository's root).
const FixturesDir = "../../fixtures/real"

// FixturePath returns the path of file in the fixture run.
func FixturePath(run, file string) string { return filepath.Join(FixturesDir, run, file) }

// ReadFixture reads the engine log of a fixture run.
func (e Engine) ReadFixture(t testing.TB, fx Fixture) ([]schema.EngineSample, []error, enginelog.Info) {
	t.Helper()
	b, err := os.ReadFile(FixturePath(fx.Run, "engine.log"))
	if err != nil {
		t.Fatal(err)
	}
	return e.ReadAll(t, string(b), enginelog.Options{T0: UTC(fx.T0)})
}

// Diff compares two samples, every field, floats to 1e-9; want's empty
// Source and Kind mean a log sample of the engine's first kind. It returns
// "" when they agree.
func (e Engine) Diff(got, want schema.EngineSample) string {
	if want.Source == "" {
		want.Source = schema.SourceLog
	}
	if want.Kind == "" {
		want.Kind = e.Kinds[0]
	}
	var diffs []string
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range gv.NumField() {
		g, w := gv.Field(i), wv.Field(i)
		if show(g) != show(w) && !(g.Kind() == reflect.Float64 && math.Abs(g.Float()-w.Float()) <= 1e-9) &&
			!(g.Kind() == reflect.Pointer && !g.IsNil() && !w.IsNil() && g.Elem().Kind() == reflect.Float64 && math.Abs(g.Elem().Float()-w.Elem().Float()) <= 1e-9) {
			diffs = append(diffs, fmt.Sprintf("%s %s, want %s", gv.Type().Field(i).Name, show(g), show(w)))
		}
	}
	return strings.Join(diffs, "; ")
}

// show formats a sample's field: nil, or the value pointed to.
func show(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "nil"
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.String:
		return strconv.Quote(v.String())
	}
	return fmt.Sprint(v.Interface())
}

// LineCase is one line given to the reader alone.
type LineCase struct {
	Name string
	T0   string
	Line string
	Want *schema.EngineSample // nil: not a sample line
	Err  string               // a substring of the expected error
}

// CheckLines reads each case's line as a log of its own: a sample line
// gives Want (at line 1), a bad one a positioned error with the raw line,
// any other line nothing.
func (e Engine) CheckLines(t *testing.T, cases []LineCase) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			samples, errs, _ := e.ReadAll(t, tc.Line+"\n", enginelog.Options{T0: UTC(tc.T0)})
			if tc.Err != "" {
				if len(errs) != 1 || len(samples) != 0 {
					t.Fatalf("got %d samples, errors %v; want one error", len(samples), errs)
				}
				var pe *textpos.ParseError
				if !errors.As(errs[0], &pe) || pe.Pos.Line != 1 || string(pe.Raw) != tc.Line {
					t.Fatalf("error %#v is not a ParseError for line 1 with the raw line", errs[0])
				}
				if !strings.Contains(errs[0].Error(), tc.Err) {
					t.Fatalf("error %q does not contain %q", errs[0], tc.Err)
				}
				return
			}
			if len(errs) != 0 {
				t.Fatalf("unexpected errors %v", errs)
			}
			if tc.Want == nil {
				if len(samples) != 0 {
					t.Fatalf("got %d samples from a line that is not a sample", len(samples))
				}
				return
			}
			if len(samples) != 1 {
				t.Fatalf("got %d samples, want 1", len(samples))
			}
			want := *tc.Want
			want.Line = 1
			if d := e.Diff(samples[0], want); d != "" {
				t.Error(d)
			}
		})
	}
}

// InfoCase is a log and what Info must say of it.
type InfoCase struct {
	Name   string
	Log    string
	Tokens int64  // Info.KVPoolTokens
	Format string // Info.Format
	// Wrappers is Info.Wrappers: the wrappers in front of most timed lines.
	Wrappers string
	Err      string // the one error, "" for none
}

// CheckInfo reads each case's log (with T0 at the start of 2026) and
// checks its errors, KV pool size, dialect and wrappers.
func (e Engine) CheckInfo(t *testing.T, cases []InfoCase) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			_, errs, info := e.ReadAll(t, tc.Log, enginelog.Options{T0: UTC("2026-01-01T00:00:00Z")})
			if tc.Err == "" && len(errs) != 0 || tc.Err != "" && (len(errs) != 1 || errs[0].Error() != tc.Err) {
				t.Fatalf("errors %v, want %q", errs, tc.Err)
			}
			if info.KVPoolTokens != tc.Tokens || info.Format != tc.Format || info.Wrappers != tc.Wrappers {
				t.Errorf("KVPoolTokens %d Format %q Wrappers %q, want %d %q %q", info.KVPoolTokens, info.Format, info.Wrappers, tc.Tokens, tc.Format, tc.Wrappers)
			}
		})
	}
}

// ZoneCase is a one-line log read in a zone.
type ZoneCase struct {
	T0   string
	Line string
	Loc  *time.Location // nil: UTC
	Want float64        // the sample's time, and the log's span
}

// CheckZones reads each case's line in its zone: the sample and the span
// of the log (Info.FirstS, LastS) are at Want.
func (e Engine) CheckZones(t *testing.T, cases []ZoneCase) {
	for _, tc := range cases {
		samples, errs, info := e.ReadAll(t, tc.Line, enginelog.Options{T0: UTC(tc.T0), Loc: tc.Loc})
		if len(errs) != 0 || len(samples) != 1 {
			t.Fatalf("%q: %d samples, errors %v; want one sample", tc.Line, len(samples), errs)
		}
		if samples[0].TS != tc.Want || info.FirstS != tc.Want || info.LastS != tc.Want {
			t.Errorf("%q in %v: %v s (span %v..%v), want %v", tc.Line, tc.Loc, samples[0].TS, info.FirstS, info.LastS, tc.Want)
		}
	}
}

// CheckErrorThenContinue reads good, bad and good again (three lines):
// the bad line is an error at its position, which starts with at (such as
// "engine.log:2:55: "), and the reader goes on with the next line.
func (e Engine) CheckErrorThenContinue(t *testing.T, t0, good, bad, at string) {
	samples, errs, info := e.ReadAll(t, good+"\n"+bad+"\n"+good+"\n", enginelog.Options{T0: UTC(t0)})
	if len(samples) != 2 || samples[0].Line != 1 || samples[1].Line != 3 {
		t.Fatalf("samples %+v, want lines 1 and 3", samples)
	}
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), at) {
		t.Fatalf("errors %v, want one at %q", errs, at)
	}
	if info.SampleLines != 3 || info.Lines != 3 {
		t.Errorf("info %+v, want 3 lines, all sample lines", info)
	}
}

// CheckMatch checks Match on each line: want says whether it looks like
// one of the engine's.
func (e Engine) CheckMatch(t *testing.T, want map[string]bool) {
	for line, w := range want {
		if got := e.Match([]byte(line)); got != w {
			t.Errorf("Match(%q) = %v, want %v", line, got, w)
		}
	}
}

// CheckFixtures reads each fixture run's log: no errors, the KV pool of
// 400,000 tokens every fixture has, its dialect, samples within the
// 300-s run (the first in its first 10 s, the last in its last 10 s),
// facts of the engine's own (check), and the samples as in the golden file
// testdata/<run>.golden.
func (e Engine) CheckFixtures(t *testing.T, check func(t *testing.T, samples []schema.EngineSample, info enginelog.Info)) {
	for _, fx := range e.Fixtures {
		t.Run(fx.Run, func(t *testing.T) {
			samples, errs, info := e.ReadFixture(t, fx)
			if len(errs) != 0 {
				t.Fatalf("errors: %v", errs)
			}
			if info.KVPoolTokens != 400000 || info.Format != fx.Format {
				t.Errorf("KVPoolTokens %d Format %q; want 400000 %q", info.KVPoolTokens, info.Format, fx.Format)
			}
			if len(samples) == 0 {
				t.Fatal("no samples")
			}
			first, last := samples[0].TS, samples[len(samples)-1].TS
			if first <= 0 || first >= 10 || last >= 300 || last < 290 {
				t.Errorf("samples span %v..%v s, want within (0,10)..[290,300)", first, last)
			}
			check(t, samples, info)
			golden.Check(t, filepath.Join("testdata", fx.Run+".golden"), e.Render(info, samples))
		})
	}
}

// SpotCase is a sample read off a particular line of a fixture.
type SpotCase struct {
	Fixture Fixture
	// Want is found by its Line, or by its TS when Line is 0.
	Want schema.EngineSample
}

// CheckSpots finds each case's sample in its fixture and compares it.
func (e Engine) CheckSpots(t *testing.T, cases []SpotCase) {
	for _, tc := range cases {
		samples, _, _ := e.ReadFixture(t, tc.Fixture)
		found := false
		for _, s := range samples {
			if tc.Want.Line == s.Line || tc.Want.Line == 0 && tc.Want.TS == s.TS {
				found = true
				want := tc.Want
				want.Line = s.Line
				if d := e.Diff(s, want); d != "" {
					t.Errorf("%s line %d: %s", tc.Fixture.Run, s.Line, d)
				}
			}
		}
		if !found {
			t.Errorf("%s: no sample at line %d or %v s", tc.Fixture.Run, tc.Want.Line, tc.Want.TS)
		}
	}
}

// columns format the sample fields a golden file may show.
var columns = map[string]func(s schema.EngineSample) string{
	"running":       func(s schema.EngineSample) string { return showF(s.Running) },
	"waiting":       func(s schema.EngineSample) string { return showF(s.Waiting) },
	"kv_usage":      func(s schema.EngineSample) string { return showF(s.KVUsage) },
	"tokens_used":   func(s schema.EngineSample) string { return showI(s.TokensUsed) },
	"prompt_tput":   func(s schema.EngineSample) string { return showF(s.PromptTput) },
	"gen_tput":      func(s schema.EngineSample) string { return showF(s.GenTput) },
	"hit_rate":      func(s schema.EngineSample) string { return showF(s.LoggedHitRate) },
	"preemptions":   func(s schema.EngineSample) string { return showF(s.Preemptions) },
	"new_seqs":      func(s schema.EngineSample) string { return showI(s.NewSeqs) },
	"new_tokens":    func(s schema.EngineSample) string { return showI(s.NewTokens) },
	"cached_tokens": func(s schema.EngineSample) string { return showI(s.CachedTokens) },
}

func showF(p *float64) string { return show(reflect.ValueOf(p)) }
func showI(p *int64) string   { return show(reflect.ValueOf(p)) }

// Render writes Info and the samples in the stable text form of the golden
// files, a line each, with the engine's Columns.
func (e Engine) Render(info enginelog.Info, samples []schema.EngineSample) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# format=%s kv_pool_tokens=%d lines=%d sample_lines=%d first_s=%g last_s=%g\n",
		info.Format, info.KVPoolTokens, info.Lines, info.SampleLines, info.FirstS, info.LastS)
	fmt.Fprintf(&b, "# line t_s kind engine %s\n", strings.Join(e.Columns, " "))
	for _, s := range samples {
		fmt.Fprintf(&b, "%d %g %s %d", s.Line, s.TS, s.Kind, s.EngineIndex)
		for _, c := range e.Columns {
			b.WriteString(" " + columns[c](s))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Fuzz feeds arbitrary logs, seeded with every line of the fixtures, of
// the engine's real-lines corpus and seeds: the reader must never panic, must report errors as positioned
// ParseErrors, must yield samples of its kinds, and only from lines that
// Match.
func (e Engine) Fuzz(f *testing.F, t0 string, seeds ...string) {
	for _, fx := range e.Fixtures {
		b, err := os.ReadFile(FixturePath(fx.Run, "engine.log"))
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			f.Add(l)
		}
	}
	if e.Corpus != "" {
		for _, c := range LoadCorpus(f, e.Corpus) {
			f.Add(c.Line)
		}
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		lr, err := lineio.NewReader(strings.NewReader(line), "engine.log")
		if err != nil {
			t.Fatal(err)
		}
		r := e.Open(lr, enginelog.Options{T0: UTC(t0)})
		n := 0
		for s, err := range All(r.Next) {
			if n++; n > 1000 {
				t.Fatal("reader does not reach EOF")
			}
			if err != nil {
				var pe *textpos.ParseError
				if !errors.As(err, &pe) || pe.Pos.Line < 1 {
					t.Fatalf("error %v is not a positioned ParseError", err)
				}
				continue
			}
			if !strings.Contains(line, "\n") && !e.Match([]byte(line)) {
				t.Fatalf("sample from a line Match rejects: %q", line)
			}
			if s.Line < 1 || math.IsNaN(s.TS) || !slices.Contains(e.Kinds, s.Kind) {
				t.Fatalf("bad sample %+v", s)
			}
		}
	})
}

// Benchmark measures throughput over the fixtures' logs repeated eight
// times, read with T0 at t0.
func (e Engine) Benchmark(b *testing.B, t0 string) {
	var one []byte
	for _, fx := range e.Fixtures {
		raw, err := os.ReadFile(FixturePath(fx.Run, "engine.log"))
		if err != nil {
			b.Fatal(err)
		}
		one = append(one, raw...)
	}
	data := bytes.Repeat(one, 8)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		lr, _ := lineio.NewReader(bytes.NewReader(data), "engine.log")
		r := e.Open(lr, enginelog.Options{T0: UTC(t0)})
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			}
		}
	}
}

// CheckNote checks a reader's notes: none when want is "", else exactly
// one, containing want.
func CheckNote(t testing.TB, notes []string, want string) {
	t.Helper()
	switch {
	case want == "" && len(notes) > 0:
		t.Errorf("notes %q, want none", notes)
	case want != "" && (len(notes) != 1 || !strings.Contains(notes[0], want)):
		t.Errorf("notes %q, want one with %q", notes, want)
	}
}

// Opener adapts an engine's NewReader, which returns its own reader type,
// to Engine.Open.
func Opener[R Reader](open func(*lineio.Reader, enginelog.Options) R) func(*lineio.Reader, enginelog.Options) Reader {
	return func(lr *lineio.Reader, opt enginelog.Options) Reader { return open(lr, opt) }
}
