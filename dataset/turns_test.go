package dataset

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// manyTurns returns n distinct turns in table order, with ties in done_s
// so that the session and turn columns decide.
func manyTurns(n int) []schema.Turn {
	out := make([]schema.Turn, n)
	for i := range out {
		s := fmt.Sprintf("s-%04d", i%97)
		out[i] = schema.Turn{Session: s, Turn: int32(i / 97), Origin: "base", DoneS: float64(i / 3), PromptTokens: int64(i), Status: "ok"}
		if i%5 == 0 {
			out[i].ReadyS = ptr(float64(i/3) - 1)
		}
	}
	slices.SortFunc(out, schema.CompareTurns)
	return out
}

// stageRun writes run "r" into a new dataset through a RunWriter: add
// gives it the streamed rows, then d (sampleRun's other tables, with the
// turns and sessions add left out) finishes it. It returns the dataset's
// root.
func stageRun(t *testing.T, add func(*RunWriter) error, d *schema.RunData) string {
	t.Helper()
	root := t.TempDir()
	st, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	rw, err := st.BeginRun("r")
	if err != nil {
		t.Fatal(err)
	}
	if err := add(rw); err != nil {
		t.Fatal(err)
	}
	if err := rw.Finish(d); err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(root, ".staging-*")); len(left) > 0 {
		t.Errorf("staging left behind: %v", left)
	}
	return root
}

// readBack checks that run "r"'s table at root holds rows sorted by
// compare, after norm (which clears what the file adds or the writer
// changes), and returns the file's bytes.
func readBack[T any](t *testing.T, root, table string, rows []T, compare func(a, b T) int, norm func(got, want *T)) []byte {
	t.Helper()
	got, err := readTable[T](root, table, "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(rows)
	slices.SortFunc(want, compare)
	if len(got) != len(want) {
		t.Fatalf("%s: read back %d rows, wrote %d", table, len(got), len(want))
	}
	for i := range got {
		norm(&got[i], &want[i])
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s: row %d: got %+v, want %+v", table, i, got[i], want[i])
		}
	}
	b, err := os.ReadFile(filepath.Join(PartitionDir(root, table, "r"), FileName))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stageTurns writes run "r" with turns added in the given order and
// returns the turns file's bytes after checking its rows.
func stageTurns(t *testing.T, turns []schema.Turn) []byte {
	t.Helper()
	d := sampleRun("r")
	d.Turns = nil
	root := stageRun(t, func(rw *RunWriter) error {
		for _, tr := range turns {
			if err := rw.AddTurn(tr); err != nil {
				return err
			}
		}
		return nil
	}, d)
	return readBack(t, root, schema.TableTurns, turns, schema.CompareTurns, func(got, _ *schema.Turn) { got.Run = "" })
}

// TestTurnWriterAnyOrder checks that the turns file is sorted and
// byte-identical whatever the input order: sorted, slightly disordered
// (within the reorder window), disordered beyond it (late rows merged from
// memory), and far beyond it (late rows spilled to several files), the
// rows sorted on the writer's goroutine.
func TestTurnWriterAnyOrder(t *testing.T) {
	defer func(w, l, b int) { reorderWindow, lateSpillRows, sortBatch = w, l, b }(reorderWindow, lateSpillRows, sortBatch)
	reorderWindow, lateSpillRows, sortBatch = 64, 100, 37
	sorted := manyTurns(3000)
	want := stageTurns(t, sorted)

	rng := rand.New(rand.NewPCG(1, 2))
	near := slices.Clone(sorted)
	for i := range near { // swaps within 20 rows: inside the window
		j := min(len(near)-1, i+rng.IntN(20))
		near[i], near[j] = near[j], near[i]
	}
	late := slices.Clone(sorted)
	for range 50 { // a few rows moved far back: late, merged from memory
		i, j := rng.IntN(1000), 2000+rng.IntN(1000)
		late[i], late[j] = late[j], late[i]
	}
	reversed := slices.Clone(sorted)
	slices.Reverse(reversed) // nearly every row late: many spills
	shuffled := slices.Clone(sorted)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })

	for name, in := range map[string][]schema.Turn{"near": near, "late": late, "reversed": reversed, "shuffled": shuffled} {
		if got := stageTurns(t, in); !bytes.Equal(got, want) {
			t.Errorf("%s: the turns file differs from the one of sorted input", name)
		}
	}
}

// TestWriteRunSameBytesAsStreaming checks that WriteRun (a run in memory)
// and BeginRun/AddTurn/Finish (a streamed run) write the same turns file.
func TestWriteRunSameBytesAsStreaming(t *testing.T) {
	turns := manyTurns(20000) // more than one write batch
	streamed := stageTurns(t, turns)
	root := t.TempDir()
	d := sampleRun("r")
	d.Turns = slices.Clone(turns)
	slices.Reverse(d.Turns)
	writeRuns(t, root, d)
	b, err := os.ReadFile(filepath.Join(PartitionDir(root, schema.TableTurns, "r"), FileName))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, streamed) {
		t.Error("WriteRun and the streaming writer give different turns files")
	}
}

func TestBeginRunTwice(t *testing.T) {
	st, err := NewStage(t.TempDir(), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Abort()
	if _, err := st.BeginRun("a"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.BeginRun("a"); err == nil {
		t.Error("a run begun twice was accepted")
	}
	if _, err := st.BeginRun("../x"); err == nil {
		t.Error("a bad run name was accepted")
	}
}

// stageSessions writes run "r" with sessions added one by one in the given
// order, or through Finish's RunData when viaFinish, with fix set, and
// returns the sessions file's bytes after checking its rows.
func stageSessions(t *testing.T, sessions []schema.Session, viaFinish bool, fix func(*schema.Session)) []byte {
	t.Helper()
	d := sampleRun("r")
	d.Turns, d.Sessions = nil, nil
	if viaFinish {
		d.Sessions = slices.Clone(sessions)
	}
	root := stageRun(t, func(rw *RunWriter) error {
		if !viaFinish {
			for _, s := range sessions {
				if err := rw.AddSession(s); err != nil {
					return err
				}
			}
		}
		rw.FixSessions(fix)
		return nil
	}, d)
	return readBack(t, root, schema.TableSessions, sessions, schema.CompareSessions, func(got, want *schema.Session) {
		got.Run = ""
		if fix != nil {
			fix(want)
		}
	})
}

// TestSessionsAnyOrder checks the sessions file written through the same
// sorted writer as the turns: byte-identical whether the rows come in
// order, in end order (disordered beyond the window), reversed, or all at
// Finish; and that a fix is applied to every row, rows already written
// included.
func TestSessionsAnyOrder(t *testing.T) {
	defer func(w, l, b int) { reorderWindow, lateSpillRows, sortBatch = w, l, b }(reorderWindow, lateSpillRows, sortBatch)
	reorderWindow, lateSpillRows, sortBatch = 64, 100, 37
	sessions := make([]schema.Session, 3000)
	for i := range sessions {
		end := float64(i/2 + 200*(i%7))
		sessions[i] = schema.Session{Session: fmt.Sprintf("s-%04d", (i*7919)%3000), Origin: "base",
			ArriveS: float64(i / 2), EndS: &end, Status: "done", TurnsDone: int64(i % 13)}
	}
	sorted := slices.Clone(sessions)
	slices.SortFunc(sorted, schema.CompareSessions)
	want := stageSessions(t, sorted, false, nil)
	byEnd := slices.Clone(sorted)
	slices.SortStableFunc(byEnd, func(a, b schema.Session) int { return cmp.Compare(*a.EndS, *b.EndS) })
	reversed := slices.Clone(sorted)
	slices.Reverse(reversed)
	for name, in := range map[string][]schema.Session{"by end": byEnd, "reversed": reversed} {
		if got := stageSessions(t, in, false, nil); !bytes.Equal(got, want) {
			t.Errorf("%s: the sessions file differs from the one of sorted input", name)
		}
	}
	if got := stageSessions(t, reversed, true, nil); !bytes.Equal(got, want) {
		t.Error("sessions given to Finish: the file differs from the streamed one")
	}
	fix := func(s *schema.Session) {
		if s.Session == "s-0007" {
			s.TurnsDone += 5
		}
	}
	fixed := stageSessions(t, byEnd, false, fix)
	if bytes.Equal(fixed, want) {
		t.Error("the fix changed nothing")
	}
	if got := stageSessions(t, reversed, true, fix); !bytes.Equal(got, fixed) {
		t.Error("fixed sessions: the file depends on the input order")
	}
}

// TestSortingErrorReported checks that an error on the sorting goroutine
// (here, a spill file that cannot be made) is returned to the caller, by
// AddTurn or by Finish, and that the run can then be abandoned.
func TestSortingErrorReported(t *testing.T) {
	defer func(w, l, b int) { reorderWindow, lateSpillRows, sortBatch = w, l, b }(reorderWindow, lateSpillRows, sortBatch)
	reorderWindow, lateSpillRows, sortBatch = 64, 100, 37
	st, err := NewStage(t.TempDir(), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Abort()
	// Spills go under the stage's .spill, which a file now stands in for.
	if err := os.WriteFile(filepath.Join(st.dir, ".spill"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	rw, err := st.BeginRun("r")
	if err != nil {
		t.Fatal(err)
	}
	turns := manyTurns(3000)
	slices.Reverse(turns) // nearly every row late: spills
	for _, tr := range turns {
		if err = rw.AddTurn(tr); err != nil {
			break
		}
	}
	if err == nil {
		d := sampleRun("r")
		d.Turns = nil
		err = rw.Finish(d)
	}
	if err == nil {
		t.Fatal("a spill that could not be written was not reported")
	}
	rw.Abort()
}
