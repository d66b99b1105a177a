package outlastlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/internal/golden"
	"github.com/outlast-dev/outlast/textpos"
	"go.yaml.in/yaml/v3"
)

// ingest reads a gateway log leniently, as `outlast ingest --lenient`
// would, and renders everything it learned as text: errors, warnings,
// unknown kinds and the tables. It returns the collector too.
func ingest(t testing.TB, data []byte, t0 time.Time, runEndS float64) (string, *Collector) {
	t.Helper()
	r, c := newTestReader(t, string(data), t0), NewCollector()
	errs, other := feed(r, c)
	if other != nil {
		t.Fatal(other)
	}
	var out strings.Builder
	for _, err := range errs {
		fmt.Fprintf(&out, "error: %v\n", err)
	}
	for _, w := range r.Warnings() {
		fmt.Fprintf(&out, "warning: %s\n", w)
	}
	for _, u := range c.Unknown() {
		fmt.Fprintf(&out, "unknown: %s\n", u.Warning())
	}
	sessions, turns, events := c.Tables(runEndS)
	fmt.Fprintf(&out, "tables: %d sessions, %d turns, %d events\n", len(sessions), len(turns), len(events))
	for _, s := range sessions {
		fmt.Fprintf(&out, "session %s origin=%s arrive=%s end=%s %s planned=%s done=%d context=%s\n",
			s.Session, s.Origin, num(s.ArriveS), optNum(s.EndS), s.Status, optInt(s.TurnsPlanned), s.TurnsDone, optInt(s.ContextTokens))
	}
	for _, tr := range turns {
		fmt.Fprintf(&out, "turn %s/%d origin=%s ready=%s sent=%s first=%s done=%s prompt=%d cached=%d output=%d %s\n",
			tr.Session, tr.Turn, tr.Origin, optNum(tr.ReadyS), optNum(tr.SentS), optNum(tr.FirstTokenS), num(tr.DoneS),
			tr.PromptTokens, tr.CachedTokens, tr.OutputTokens, tr.Status)
	}
	for _, e := range events {
		fmt.Fprintln(&out, describeEvent(e))
	}
	return out.String(), c
}

// TestBadInput reads one file per bad-input class of run-format.md; the
// golden files hold the exact messages.
func TestBadInput(t *testing.T) {
	for _, file := range golden.Glob(t, "testdata/bad/*.jsonl") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data := readertest.ReadFile(t, file)
			got, _ := ingest(t, data, specT0, 300)
			if !strings.Contains(got, "error: ") && !strings.Contains(got, "warning: ") && !strings.Contains(got, "unknown: ") {
				t.Errorf("no error, warning or unknown kind reported:\n%s", got)
			}
			golden.Check(t, strings.TrimSuffix(file, ".jsonl")+".golden", []byte(got))
		})
	}
}

// fixtureRun is what these tests take of a fixture run's run.yaml. The
// manifest package is not used: it reads the table of formats
// (ingest/inputs), which holds this package's reader.
type fixtureRun struct {
	StartedAt time.Time `yaml:"started_at"`
	DurationS float64   `yaml:"duration_s"`
}

// loadFixture returns a fixture run's start and length and its
// gateway.jsonl.
func loadFixture(t testing.TB, dir string) (fixtureRun, []byte) {
	t.Helper()
	var m fixtureRun
	if err := yaml.Unmarshal(readertest.ReadFile(t, dir, "run.yaml"), &m); err != nil || m.StartedAt.IsZero() || m.DurationS <= 0 {
		t.Fatalf("%s/run.yaml: %+v, %v", dir, m, err)
	}
	return m, readertest.ReadFile(t, dir, "gateway.jsonl")
}

func fixtureDirs(t testing.TB) []string {
	t.Helper()
	dirs := golden.Glob(t, filepath.Join(readertest.FixturesDir, "*", "gateway.jsonl"))
	for i, d := range dirs {
		dirs[i] = filepath.Dir(d)
	}
	return dirs
}

// TestFixtures reads every fixture run: no errors, the invariants hold, and
// the tables match the golden files.
func TestFixtures(t *testing.T) {
	for _, dir := range fixtureDirs(t) {
		run := filepath.Base(dir)
		t.Run(run, func(t *testing.T) {
			m, data := loadFixture(t, dir)
			got, c := ingest(t, data, m.StartedAt, m.DurationS)
			if strings.Contains(got, "error: ") || strings.Contains(got, "warning: ") {
				t.Fatalf("fixture has problems:\n%s", got)
			}
			readertest.Golden(t, filepath.Join("fixtures", run), []byte(got))

			sessions, turns, _ := c.Tables(m.DurationS)
			origin := map[string]string{}
			for _, s := range sessions {
				origin[s.Session] = s.Origin
				if s.ArriveS < 0 || s.ArriveS > m.DurationS {
					t.Errorf("session %s arrives at %v, outside the run", s.Session, s.ArriveS)
				}
			}
			for _, tr := range turns {
				if tr.CachedTokens > tr.PromptTokens || tr.CachedTokens < 0 || tr.OutputTokens < 0 {
					t.Errorf("turn %s/%d: counts %d/%d/%d", tr.Session, tr.Turn, tr.PromptTokens, tr.CachedTokens, tr.OutputTokens)
				}
				// The workload: 2048 system + 4096 task + 1324 per turn.
				if want := int64(6144 + 1324*int(tr.Turn)); tr.PromptTokens != want {
					t.Errorf("turn %s/%d: prompt %d, want %d", tr.Session, tr.Turn, tr.PromptTokens, want)
				}
				if tr.Origin != origin[tr.Session] {
					t.Errorf("turn %s/%d: origin %q, want the session's %q", tr.Session, tr.Turn, tr.Origin, origin[tr.Session])
				}
				if tr.ReadyS == nil || tr.SentS == nil || *tr.ReadyS > *tr.SentS || *tr.SentS > tr.DoneS {
					t.Errorf("turn %s/%d: times out of order", tr.Session, tr.Turn)
				}
			}
		})
	}
}

// TestFixtureValues checks a few numbers against hand computation from the
// fixture files.
func TestFixtureValues(t *testing.T) {
	m, data := loadFixture(t, filepath.Join(readertest.FixturesDir, "vllm-2026"))
	got, c := ingest(t, data, m.StartedAt, m.DurationS)
	if strings.Contains(got, "error: ") {
		t.Fatalf("fixture has errors:\n%s", got)
	}
	sessions, turns, events := c.Tables(m.DurationS)
	// Line 1: "ts":"2026-10-27T12:00:25.060Z", started_at 12:00:00Z.
	if s := sessions[0]; s.Session != "b-0001" || num(s.ArriveS) != "25.06" {
		t.Errorf("first session %s at %v, want b-0001 at 25.06", s.Session, s.ArriveS)
	}
	// Line 3: b-0001's turn 0 done 12:00:32.130, ready 25.060, sent 25.070,
	// first token 25.530; the cold first request has cached_tokens null.
	if tr := turns[0]; tr.Session != "b-0001" || tr.Turn != 0 || num(tr.DoneS) != "32.13" ||
		num(*tr.ReadyS) != "25.06" || num(*tr.SentS) != "25.07" || num(*tr.FirstTokenS) != "25.53" ||
		tr.PromptTokens != 6144 || tr.CachedTokens != 0 || tr.OutputTokens != 300 {
		t.Errorf("first turn %+v", tr)
	}
	// Trigger start at 12:02:00 = 120 s, end at 180 s; a park/resume pair;
	// control samples every 20 s from 200 s.
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, fmt.Sprintf("%s@%s", e.Kind, num(e.TS)))
	}
	want := "[trigger@120 trigger@180 control@200 park@210.64 control@220 resume@235.14 control@240 control@260 control@280]"
	if got := fmt.Sprint(kinds); got != want {
		t.Errorf("events %s\nwant   %s", got, want)
	}
}

func FuzzGatewayLine(f *testing.F) {
	for _, dir := range fixtureDirs(f) {
		data := readertest.ReadFile(f, dir, "gateway.jsonl")
		for line := range bytes.Lines(data) {
			f.Add(bytes.TrimSuffix(line, []byte("\n")))
		}
	}
	bad, _ := filepath.Glob("testdata/bad/*.jsonl")
	for _, file := range bad {
		data := readertest.ReadFile(f, file)
		for line := range bytes.Lines(data) {
			f.Add(bytes.TrimSuffix(line, []byte("\n")))
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.ContainsAny(line, "\n\r") {
			return // one line at a time
		}
		r := newTestReader(t, string(line)+"\n", specT0)
		rec, err := r.Next()
		if err == io.EOF {
			if skipSpace(line, 0) != len(line) {
				t.Fatalf("io.EOF for a non-blank line")
			}
			return
		}
		if err != nil {
			var perr *textpos.ParseError
			if !errors.As(err, &perr) || perr.Pos.Line != 1 {
				t.Fatalf("error %v (%T) is not a ParseError at line 1", err, err)
			}
			return
		}
		if !json.Valid(line) {
			t.Fatalf("accepted a line encoding/json rejects: %q", line)
		}
		if tr := rec.Turn; tr != nil {
			if tr.PromptTokens < 0 || tr.CachedTokens < 0 || tr.OutputTokens < 0 || tr.CachedTokens > tr.PromptTokens || tr.Turn < 0 {
				t.Fatalf("turn breaks the invariants: %+v", tr)
			}
		}
		if e := rec.Event; e != nil && !json.Valid([]byte(e.Extra)) {
			t.Fatalf("Extra is not JSON: %q", e.Extra)
		}
		c := NewCollector()
		if rec.Turn != nil || rec.Event != nil && rec.Event.Session != nil || rec.End != nil {
			if c.Add(rec) == nil {
				t.Fatalf("a record for a session never started was accepted")
			}
		} else if err := c.Add(rec); err != nil {
			t.Fatalf("Add: %v", err)
		}
	})
}

// BenchmarkReader measures reading throughput on the fixture lines
// repeated to about 4 MB, the hot path of a real run's gateway log.
func BenchmarkReader(b *testing.B) {
	var one []byte
	for _, dir := range fixtureDirs(b) {
		data := readertest.ReadFile(b, dir, "gateway.jsonl")
		one = append(one, data...)
	}
	data := bytes.Repeat(one, 4<<20/len(one)+1)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		lr, _ := lineio.NewReader(bytes.NewReader(data), "gateway.jsonl")
		r := NewReader(lr, specT0)
		for _, err := range readertest.All(r.Next) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
