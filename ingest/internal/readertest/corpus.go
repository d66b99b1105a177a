package readertest

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// CorpusDir is the real-lines corpus, fixtures/real-lines, from a reader's
// package directory: log lines copied byte for byte from public issues
// and repositories, with the values a careful reader takes from each,
// written down by hand (the schema is in its README.md).
const CorpusDir = "../../fixtures/real-lines"

// CorpusLine is one line of the corpus.
type CorpusLine struct {
	ID          string     `yaml:"id"`
	Source      string     `yaml:"source"`
	Version     string     `yaml:"version"`
	Date        string     `yaml:"date"`
	DerivedFrom string     `yaml:"derived_from"`
	Note        string     `yaml:"note"`
	Line        string     `yaml:"line"`
	Want        CorpusWant `yaml:"want"`
}

// CorpusWant is what a careful reader takes from a corpus line. A field
// left out is not on the line; it never means zero.
type CorpusWant struct {
	Kind      string `yaml:"kind"`  // stats, prefill, decode, kv_pool, none, damaged
	Clock     string `yaml:"clock"` // the stamp as written, "HH:MM:SS" when only the time is known
	ClockFrom string `yaml:"clock_from"`
	Wrapper   string `yaml:"wrapper"` // "+"-joined when there are several

	EngineIndex *int32   `yaml:"engine_index"`
	PromptTput  *float64 `yaml:"prompt_tput"`
	GenTput     *float64 `yaml:"gen_tput"`
	Running     *float64 `yaml:"running"`
	Waiting     *float64 `yaml:"waiting"`
	Swapped     *float64 `yaml:"swapped"` // the V0 swap queue, which the engine table does not keep
	KVUsage     *float64 `yaml:"kv_usage"`
	HitRate     *float64 `yaml:"hit_rate"`
	Preemptions *float64 `yaml:"preemptions"`

	NewSeqs      *int64 `yaml:"new_seqs"`
	NewTokens    *int64 `yaml:"new_tokens"`
	CachedTokens *int64 `yaml:"cached_tokens"`
	TokensUsed   *int64 `yaml:"tokens_used"`
	KVPoolTokens *int64 `yaml:"kv_pool_tokens"`

	Ranks *string `yaml:"ranks"`
}

var (
	corpusKinds    = map[string]bool{"stats": true, "prefill": true, "decode": true, "kv_pool": true, "none": true, "damaged": true}
	corpusWrappers = map[string]bool{"none": true, "tqdm": true, "glued-text": true}
)

func init() {
	for w := range enginelog.PyLogging + 1 {
		corpusWrappers[w.String()] = true
	}
}

// LoadCorpus reads the corpus files of an engine, CorpusDir/<engine>*.yaml,
// and checks that each line is well described: an id of its own, a
// source, a version, a date, a known kind and wrapper.
func LoadCorpus(t testing.TB, engine string) []CorpusLine {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(CorpusDir, engine+"*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files %s*.yaml in %s (%v)", engine, CorpusDir, err)
	}
	var all []CorpusLine
	ids := map[string]bool{}
	for _, f := range files {
		var lines []CorpusLine
		decodeYAMLFile(t, f, &lines)
		for _, c := range lines {
			switch {
			case c.ID == "" || ids[c.ID]:
				t.Errorf("%s: id %q empty or repeated", f, c.ID)
			case c.Source == "" || c.Version == "" || c.Date == "":
				t.Errorf("%s: %s lacks its source, version or date", f, c.ID)
			case !corpusKinds[c.Want.Kind]:
				t.Errorf("%s: %s: unknown kind %q", f, c.ID, c.Want.Kind)
			}
			for _, w := range strings.Split(c.Want.Wrapper, "+") {
				if c.Want.Wrapper != "" && !corpusWrappers[w] {
					t.Errorf("%s: %s: unknown wrapper %q", f, c.ID, w)
				}
			}
			ids[c.ID] = true
		}
		all = append(all, lines...)
	}
	return all
}

// corpusDate matches the date of a corpus line, which may carry a note
// ("2026-09-02 (year inferred)") or lack its day ("2024-10").
var corpusDate = regexp.MustCompile(`^(\d{4})-(\d{2})(?:-(\d{2}))?`)

// corpusT0 returns noon UTC of the line's date (mid-month without a day):
// the run's start that a yearless or time-only stamp is placed around.
func corpusT0(t *testing.T, c CorpusLine) time.Time {
	m := corpusDate.FindStringSubmatch(c.Date)
	if m == nil {
		t.Fatalf("date %q", c.Date)
	}
	if m[3] == "" {
		m[3] = "15"
	}
	return UTC(m[1] + "-" + m[2] + "-" + m[3] + "T12:00:00Z")
}

// CheckCorpus reads each corpus line as a log of its own, with T0 at noon
// of its date and the engine's stamps taken as UTC, and compares what the
// reader takes from it with what the corpus says, line by line: the kind
// (a sample of it, a KV pool size, nothing, or a positioned error for a
// damaged line), every value (a value the corpus does not give must be
// null), the engine's clock, the wrappers, the engine index or rank tags.
// A line the reader opened with Open leaves out (another rank's copy of a
// batch, a line with no time) is read with OpenLine for its values.
func (e Engine) CheckCorpus(t *testing.T, lines []CorpusLine) {
	exact := 0
	for _, c := range lines {
		ok := t.Run(c.ID, func(t *testing.T) {
			var errs []string
			e.checkCorpusLine(t, c, func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) })
			if len(errs) > 0 {
				t.Errorf("%s (%s)\n\t%s\n\t%s", c.ID, c.Source, c.Line, strings.Join(errs, "\n\t"))
			}
		})
		if ok {
			exact++
		}
	}
	t.Logf("%d of %d real lines read as the corpus says", exact, len(lines))
}

func (e Engine) checkCorpusLine(t *testing.T, c CorpusLine, errorf func(string, ...any)) {
	w := c.Want
	t0 := corpusT0(t, c)
	open := e.OpenLine
	if open == nil {
		open = e.Open
	}
	samples, errs, info := Engine{Open: open}.ReadAll(t, c.Line+"\n", enginelog.Options{T0: t0})
	plain, _, plainInfo := e.ReadAll(t, c.Line+"\n", enginelog.Options{T0: t0})
	sample := w.Kind == "stats" || w.Kind == "prefill" || w.Kind == "decode"

	switch {
	case w.Kind == "damaged":
		var pe *textpos.ParseError
		if len(errs) != 1 || !errors.As(errs[0], &pe) || pe.Pos.Line != 1 || string(pe.Raw) != c.Line {
			errorf("damaged: want one positioned error with the raw line, got %v", errs)
		}
		if len(samples) != 0 {
			errorf("damaged: got %d samples", len(samples))
		}
	case len(errs) != 0:
		errorf("errors %v", errs)
	case !sample && len(samples) != 0:
		errorf("%s: got %d samples", w.Kind, len(samples))
	case sample && len(samples) != 1:
		errorf("%s: got %d samples, want 1", w.Kind, len(samples))
	}
	var kvPool int64
	if w.KVPoolTokens != nil {
		kvPool = *w.KVPoolTokens
	}
	if info.KVPoolTokens != kvPool {
		errorf("KV pool %d tokens, want %d", info.KVPoolTokens, kvPool)
	}
	if sample && len(samples) == 1 {
		e.checkCorpusSample(samples[0], w, errorf)
		e.checkCorpusKept(c, plain, plainInfo, errorf)
	}
	checkCorpusClock(c, t0, samples, info, errorf)
	checkCorpusWrappers(c, info, errorf)
	if e.Ranks != nil {
		tags, _ := e.Ranks([]byte(c.Line))
		if want := ""; w.Ranks != nil && *w.Ranks != tags || w.Ranks == nil && tags != want {
			errorf("rank tags %q, want %v", tags, show(reflect.ValueOf(w.Ranks)))
		}
	}
}

// checkCorpusSample compares a sample with the corpus's values: each
// value the line gives, and null for each it does not.
func (e Engine) checkCorpusSample(s schema.EngineSample, w CorpusWant, errorf func(string, ...any)) {
	if s.Kind != w.Kind || s.Source != schema.SourceLog {
		errorf("kind %s/%s, want %s/log", s.Kind, s.Source, w.Kind)
	}
	floats := []struct {
		name      string
		got, want *float64
	}{
		{"running", s.Running, w.Running}, {"waiting", s.Waiting, w.Waiting}, {"kv_usage", s.KVUsage, w.KVUsage},
		{"prompt_tput", s.PromptTput, w.PromptTput}, {"gen_tput", s.GenTput, w.GenTput},
		{"hit_rate", s.LoggedHitRate, w.HitRate}, {"preemptions", s.Preemptions, w.Preemptions},
	}
	for _, f := range floats {
		switch {
		case f.got == nil && f.want != nil:
			errorf("%s null, want %v", f.name, *f.want)
		case f.got != nil && f.want == nil:
			errorf("%s %v, not on the line", f.name, *f.got)
		case f.got != nil && math.Abs(*f.got-*f.want) > 1e-9:
			errorf("%s %v, want %v", f.name, *f.got, *f.want)
		}
	}
	counts := []struct {
		name      string
		got, want *int64
	}{
		{"new_seqs", s.NewSeqs, w.NewSeqs}, {"new_tokens", s.NewTokens, w.NewTokens},
		{"cached_tokens", s.CachedTokens, w.CachedTokens}, {"tokens_used", s.TokensUsed, w.TokensUsed},
	}
	for _, f := range counts {
		if show(reflect.ValueOf(f.got)) != show(reflect.ValueOf(f.want)) {
			errorf("%s %s, want %s", f.name, show(reflect.ValueOf(f.got)), show(reflect.ValueOf(f.want)))
		}
	}
	want := int32(0) // the reader's engine index without an "Engine NNN" or a DP tag
	if w.EngineIndex != nil {
		want = *w.EngineIndex
	} else if w.Ranks != nil {
		want = dpRank(*w.Ranks)
	}
	if s.EngineIndex != want {
		errorf("engine index %d, want %d", s.EngineIndex, want)
	}
	for _, f := range []*float64{s.IntervalS, s.PrefixQueries, s.PrefixHits, s.PromptTokens, s.GenerationTokens} {
		if f != nil {
			errorf("a metrics field set on a log sample: %+v", s)
		}
	}
}

// checkCorpusKept checks what the reader opened with Open makes of a
// sample line: the sample, unless the line has no time at all (counted in
// Info.Untimed). A line of a rank whose copies of a batch are not the
// ones kept when every rank's lines are there is, read on its own, the
// lowest rank present: kept, with a note that the rank kept by the rule
// is missing.
func (e Engine) checkCorpusKept(c CorpusLine, plain []schema.EngineSample, info enginelog.Info, errorf func(string, ...any)) {
	kept := true
	if e.Ranks != nil {
		_, kept = e.Ranks([]byte(c.Line))
	}
	timed := c.Want.Clock != "" || c.Want.ClockFrom == "wrapper"
	switch {
	case !timed && (len(plain) != 0 || info.Untimed != 1):
		errorf("a line without a time: %d samples and %d untimed lines, want 0 and 1", len(plain), info.Untimed)
	case timed && !kept && (len(plain) != 1 || info.Repeats != 0 || len(info.Notes) != 1):
		errorf("another rank's copy, alone: %d samples, %d repeats, notes %q; want the sample and a note of the rank missing", len(plain), info.Repeats, info.Notes)
	case timed && kept && (len(plain) != 1 || info.Untimed+info.Repeats != 0 || len(info.Notes) != 0):
		errorf("%d samples, %d untimed, %d repeats; want the sample", len(plain), info.Untimed, info.Repeats)
	}
}

// checkCorpusClock checks the time the reader gives the line: the
// sample's, or that of the line's header (Info.FirstS) for other lines,
// against the engine's clock as written; a wrapper's clock, for a line
// without the engine's, against the wrapper's stamp.
func checkCorpusClock(c CorpusLine, t0 time.Time, samples []schema.EngineSample, info enginelog.Info, errorf func(string, ...any)) {
	w := c.Want
	at := info.FirstS
	if len(samples) == 1 {
		at = samples[0].TS
	}
	switch {
	case w.ClockFrom == "wrapper":
		if st := enginelog.ReadLine([]byte(c.Line)).WrapperStamp(); !strings.HasPrefix(string(st), w.Clock) {
			errorf("wrapper stamp %q, want %q", st, w.Clock)
		}
	case w.Clock == "":
		if !math.IsNaN(at) {
			errorf("a time (%v s) for a line without one", at)
		}
	case math.IsNaN(at):
		errorf("no time, want %s", w.Clock)
	default:
		got := t0.Add(time.Duration(math.Round(at * 1e9))).Format("2006-01-02T15:04:05.999999999")
		if len(w.Clock) == len("15:04:05") {
			got = got[len("2006-01-02T"):]
		}
		if got != w.Clock {
			errorf("clock %s, want %s", got, w.Clock)
		}
	}
}

// checkCorpusWrappers checks the wrappers the preamble finds in front of
// the line; text glued in front of the engine's line (a progress bar,
// streamed output) is no wrapper, and the reader counts it in Info.Glued.
func checkCorpusWrappers(c CorpusLine, info enginelog.Info, errorf func(string, ...any)) {
	want := c.Want.Wrapper
	glued := want == "tqdm" || want == "glued-text"
	if want == "none" || glued {
		want = ""
	}
	if got := enginelog.ReadLine([]byte(c.Line)).Wrappers().String(); got != want {
		errorf("wrappers %q, want %q", got, want)
	}
	if g := info.Glued == 1; g != glued {
		errorf("%d lines with text glued in front, want glued %v", info.Glued, glued)
	}
}

// dpRank returns the number of the DP tag among rank tags, 0 without one.
func dpRank(tags string) int32 {
	for _, tag := range strings.Fields(tags) {
		var n int32
		if _, err := fmt.Sscanf(tag, "DP%d", &n); err == nil && strings.HasPrefix(tag, "DP") {
			return n
		}
	}
	return 0
}
