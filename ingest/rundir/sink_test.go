package rundir

import (
	"errors"
	"go/build"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// memSink is a Sink that keeps what it is given.
type memSink struct {
	turns    []schema.Turn
	sessions []schema.Session
	fix      func(*schema.Session)
	finished *schema.RunData
	aborted  bool
}

func (s *memSink) AddTurn(t schema.Turn) error           { s.turns = append(s.turns, t); return nil }
func (s *memSink) AddSession(r schema.Session) error     { s.sessions = append(s.sessions, r); return nil }
func (s *memSink) FixSessions(fix func(*schema.Session)) { s.fix = fix }
func (s *memSink) Finish(d *schema.RunData) error        { s.finished = d; return nil }
func (s *memSink) Abort()                                { s.aborted = true }

// TestStreamIntoSink checks the Sink contract on its own: the rows given
// to a Sink, fixed and with the sessions left for Finish, are the tables
// Read keeps in memory.
func TestStreamIntoSink(t *testing.T) {
	for _, name := range fixtureRuns {
		t.Run(name, func(t *testing.T) {
			mem := read(t, fixture(name), Options{Version: "test"})
			var sink *memSink
			res, err := Stream(fixture(name), Options{Version: "test"}, func(run string) (Sink, error) {
				if run != name {
					t.Errorf("Sink begun for %q, want %q", run, name)
				}
				sink = &memSink{}
				return sink, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if sink.finished != res.Data || sink.aborted {
				t.Fatalf("finished with %p (result %p), aborted %v", sink.finished, res.Data, sink.aborted)
			}
			sessions := append(sink.sessions, res.Data.Sessions...)
			for i := range sessions {
				if sink.fix != nil {
					sink.fix(&sessions[i])
				}
			}
			slices.SortFunc(sessions, schema.CompareSessions)
			slices.SortFunc(sink.turns, schema.CompareTurns)
			if !reflect.DeepEqual(sink.turns, mem.Data.Turns) || !reflect.DeepEqual(sessions, mem.Data.Sessions) {
				t.Errorf("the Sink got %d turns and %d sessions unlike the %d and %d read into memory",
					len(sink.turns), len(sessions), len(mem.Data.Turns), len(mem.Data.Sessions))
			}
			if res.Turns != int64(len(sink.turns)) || res.Sessions != int64(len(sessions)) {
				t.Errorf("counted %d turns and %d sessions, the Sink got %d and %d", res.Turns, res.Sessions, len(sink.turns), len(sessions))
			}
		})
	}
}

// TestStreamAbortsTheSink checks that a strict error aborts the Sink and
// does not finish it, and that an error opening the Sink is returned.
func TestStreamAbortsTheSink(t *testing.T) {
	dir := appendedRun(t, `not json`)
	sink := &memSink{}
	_, err := Stream(dir, Options{Version: "test"}, func(string) (Sink, error) { return sink, nil })
	if err == nil || !sink.aborted || sink.finished != nil {
		t.Errorf("error %v, aborted %v, finished %v: want an error and the Sink aborted", err, sink.aborted, sink.finished != nil)
	}
	full := errors.New("disk full")
	if _, err := Stream(dir, Options{Version: "test"}, func(string) (Sink, error) { return nil, full }); !errors.Is(err, full) {
		t.Errorf("error %v, want the Sink's", err)
	}
}

// TestLayers checks that the run-directory reader does not write the
// dataset itself (cmd/outlast connects the two) and that the dataset
// imports only the bottom packages.
func TestLayers(t *testing.T) {
	const module = "github.com/outlast-dev/outlast/"
	imports := func(dir string) []string {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, imp := range pkg.Imports {
			if p, ok := strings.CutPrefix(imp, module); ok {
				out = append(out, p)
			}
		}
		return out
	}
	for _, p := range imports("../../dataset") {
		if p != "schema" && p != "textpos" {
			t.Errorf("dataset imports %s", p)
		}
	}
	if slices.Contains(imports("."), "dataset") {
		t.Error("ingest/rundir imports dataset")
	}
}
