package dataset

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/outlast-dev/outlast/internal/slowtest"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// killedRuns are the runs of TestCommitKilledIsFinished: each table of the
// new version differs from the old one's, and r2 loses its rejects where
// r3 gains some.
func killedRuns(version string) []*schema.RunData {
	var runs []*schema.RunData
	for _, name := range []string{"r1", "r2", "r3"} {
		d := sampleRun(name)
		if version == "new" {
			d.Run.Labels = `{"v":"new"}`
			d.Turns, d.Sessions, d.Events, d.Engine = d.Turns[:1], d.Sessions[:1], d.Events[:1], d.Engine[:1]
		}
		runs = append(runs, d)
	}
	return runs
}

// commitWithRejects stages runs, with rejects for the run named rejects,
// and commits them.
func commitWithRejects(root, version, rejects string) error {
	st, err := NewStage(root, "test")
	if err != nil {
		return err
	}
	for _, d := range killedRuns(version) {
		if err := st.WriteRun(d); err != nil {
			return err
		}
	}
	rej := []*textpos.ParseError{textpos.Errorf(textpos.Pos{File: "gateway.jsonl", Line: 3}, []byte("x"), "%s", version)}
	if err := st.WriteRejects(rejects, rej); err != nil {
		return err
	}
	return st.Commit()
}

// killCommit runs this test binary again to commit killedRuns("new") into
// root, killed (exit 9, as by kill -9) before its at-th move.
func killCommit(t *testing.T, root string, at int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCommitKilledIsFinished$")
	cmd.Env = append(os.Environ(), "OUTLAST_TEST_COMMIT_ROOT="+root, "OUTLAST_TEST_KILL_AT="+strconv.Itoa(at))
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 9 {
		t.Fatalf("killed at move %d: %v, %s; want exit 9", at, err, out)
	}
}

// checkVersion checks that every table of every run in root is of
// killedRuns(version), whole: no run mixes two commits.
func checkVersion(t *testing.T, root string, at int, version string) {
	t.Helper()
	want := killedRuns(version)[0]
	for _, name := range []string{"r1", "r2", "r3"} {
		d, err := ReadRun(root, name)
		if err != nil {
			t.Fatalf("killed at move %d: %v", at, err)
		}
		if d.Run.Labels != want.Run.Labels || len(d.Turns) != len(want.Turns) || len(d.Sessions) != len(want.Sessions) ||
			len(d.Events) != len(want.Events) || len(d.Engine) != len(want.Engine) {
			t.Errorf("killed at move %d: run %s has labels %s, %d turns, %d sessions, %d events, %d engine rows; want the %s version's",
				at, name, d.Run.Labels, len(d.Turns), len(d.Sessions), len(d.Events), len(d.Engine), version)
		}
	}
}

// TestCommitKilledIsFinished kills a process in the middle of a commit
// that replaces three runs, before each of its renames and removals in
// turn, as kill -9 would, and checks that a reader listing the runs
// afterwards finds every table of every run of the killed commit, and no
// stage left. The killed process is this test binary run again.
func TestCommitKilledIsFinished(t *testing.T) {
	if root := os.Getenv("OUTLAST_TEST_COMMIT_ROOT"); root != "" {
		at, _ := strconv.Atoi(os.Getenv("OUTLAST_TEST_KILL_AT"))
		var n atomic.Int64 // the tables move on goroutines of their own
		beforeMove = func() {
			if n.Add(1) == int64(at) {
				os.Exit(9)
			}
		}
		if err := commitWithRejects(root, "new", "r3"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// 5 tables and the rejects of 3 runs: 18 moves, the tables' on
	// goroutines of their own; a kill before the first, in the middle,
	// before the runs table's, and before the last (make test-all; make
	// test kills at three of them: each kill is a process, a second under
	// -race).
	at := []int{1, 8, 16}
	if slowtest.All() {
		at = []int{1, 4, 8, 12, 16, 18}
	}
	for _, at := range at {
		root := t.TempDir()
		if err := commitWithRejects(root, "old", "r2"); err != nil {
			t.Fatal(err)
		}
		killCommit(t, root, at)
		if _, err := Runs(root); err != nil {
			t.Fatalf("killed at move %d: %v", at, err)
		}
		checkVersion(t, root, at, "new")
		_, err2 := os.Stat(filepath.Join(root, RejectsDir, "r2.jsonl"))
		_, err3 := os.Stat(filepath.Join(root, RejectsDir, "r3.jsonl"))
		if !errors.Is(err2, os.ErrNotExist) || err3 != nil {
			t.Errorf("killed at move %d: rejects of r2 %v, of r3 %v; want r3's only", at, err2, err3)
		}
		if stages, _ := filepath.Glob(filepath.Join(root, StagePrefix+"*")); len(stages) != 0 {
			t.Errorf("killed at move %d: stages %v left", at, stages)
		}
	}
}

// TestKilledBeforeJournalLeavesDataset checks the other side: a stage that
// never wrote its journal is removed whole, not moved in.
func TestKilledBeforeJournalLeavesDataset(t *testing.T) {
	root := t.TempDir()
	writeRuns(t, root, killedRuns("old")...)
	st, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range killedRuns("new") {
		if err := st.WriteRun(d); err != nil {
			t.Fatal(err)
		}
	}
	// The process dies: its owner file's lock goes with it.
	st.owner.Close()
	liveStages.Delete(stageKey(st.dir))
	st2, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Abort()
	if len(st2.Removed()) != 1 || st2.Removed()[0].Finished != 0 {
		t.Errorf("removed %+v, want one stage, not finished", st2.Removed())
	}
	d, err := ReadRun(root, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Turns) != 2 {
		t.Errorf("r1 has %d turns, want the old version's 2", len(d.Turns))
	}
}

// TestCommitAfterADeadCommitWins makes a stage, lets another ingest die in
// the middle of its commit of the same runs, and commits the stage: the
// dead commit is finished before this one, not replayed over it later, so
// the runs are this commit's, whole, rejects included.
func TestCommitAfterADeadCommitWins(t *testing.T) {
	for _, at := range []int{4, 8, 16} {
		root := t.TempDir()
		st, err := NewStage(root, "test")
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range killedRuns("old") {
			if err := st.WriteRun(d); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.WriteRejects("r2", []*textpos.ParseError{textpos.Errorf(textpos.Pos{File: "g", Line: 1}, []byte("x"), "last")}); err != nil {
			t.Fatal(err)
		}
		killCommit(t, root, at)
		if err := st.Commit(); err != nil {
			t.Fatal(err)
		}
		if _, err := Runs(root); err != nil {
			t.Fatal(err)
		}
		checkVersion(t, root, at, "old")
		if _, err := os.Stat(filepath.Join(root, RejectsDir, "r2.jsonl")); err != nil {
			t.Errorf("killed at move %d: the last commit's rejects of r2: %v", at, err)
		}
	}
}

// TestCommitBesideAFailedCommitOfALiveIngest lets a commit fail halfway
// (a directory where one of its files goes), its ingest still running,
// so that its stage is committed but not abandoned, and commits another
// version of one of its runs beside it: that commit is refused, for the
// failed one, finished once its ingest ends, would lay its remaining files
// over this one's; and r1 is read whole all along.
func TestCommitBesideAFailedCommitOfALiveIngest(t *testing.T) {
	root := t.TempDir()
	a, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Abort()
	for _, d := range killedRuns("new") {
		if err := a.WriteRun(d); err != nil {
			t.Fatal(err)
		}
	}
	obstacle := filepath.Join(PartitionDir(root, "turns", "r3"), FileName)
	if err := os.MkdirAll(filepath.Join(obstacle, "x"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(); err == nil {
		t.Fatal("commit succeeded with a directory in place of one of its files")
	}
	whole := func(when string) {
		t.Helper()
		d, err := ReadRun(root, "r1")
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		for _, v := range []string{"old", "new"} {
			w := killedRuns(v)[0]
			if d.Run.Labels == w.Run.Labels && len(d.Turns) == len(w.Turns) && len(d.Sessions) == len(w.Sessions) {
				return
			}
		}
		t.Errorf("%s: r1 has labels %s and %d turns: two versions mixed", when, d.Run.Labels, len(d.Turns))
	}
	whole("after the failed commit")

	b, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Abort()
	if err := b.WriteRun(killedRuns("old")[0]); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err == nil || !strings.Contains(err.Error(), a.dir) {
		t.Errorf("commit beside the failed one: %v; want it refused, naming %s", err, a.dir)
	}
	whole("after the commit beside it")

	// The failed ingest ends, the directory goes, and the next ingest
	// finishes its commit.
	a.Abort()
	if err := os.RemoveAll(obstacle); err != nil {
		t.Fatal(err)
	}
	if _, err := FinishCommits(root); err != nil {
		t.Fatal(err)
	}
	whole("once the failed commit is finished")
}

// TestJournalSyncFailedKeepsTheCommit fails the sync of the journal's
// directory after the journal was renamed into place: readers may already
// read the commit's runs from the stage, so Abort keeps the stage, and the
// next ingest finishes the commit, rather than the runs readers saw
// vanishing with a removed stage.
func TestJournalSyncFailedKeepsTheCommit(t *testing.T) {
	root := t.TempDir()
	if err := commitWithRejects(root, "old", "r2"); err != nil {
		t.Fatal(err)
	}
	failed, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range killedRuns("new") {
		if err := failed.WriteRun(d); err != nil {
			t.Fatal(err)
		}
	}
	syncJournalDir = func(string) error { return errors.New("injected sync failure") }
	err = failed.Commit()
	syncJournalDir = syncDir
	failed.Abort() // as an ingest does when its commit fails
	if err == nil || !strings.Contains(err.Error(), "injected sync failure") || !strings.Contains(err.Error(), "finished by the next ingest") {
		t.Fatalf("commit with its journal's sync failed: %v", err)
	}
	if j := journaledStages(t, root); len(j) != 1 {
		t.Fatalf("journaled stages %v after the failed commit, want its stage kept", j)
	}
	checkVersion(t, root, 0, "new") // read from the journal's stage
	st, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	st.Abort()
	if len(st.Removed()) != 1 || st.Removed()[0].Finished != 3 {
		t.Errorf("the next writer removed %+v, want the commit of 3 runs finished", st.Removed())
	}
	checkVersion(t, root, 0, "new")
}
