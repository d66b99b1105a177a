package dataset

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/internal/slowtest"
)

// cannotFinish makes readers behave as without write access to the
// dataset, for the rest of the test: finishing a commit fails as opening
// the lock file for writing would.
func cannotFinish(t *testing.T) {
	t.Helper()
	finishCommits = func(root string) ([]Owner, error) {
		if _, err := os.Stat(root); err != nil {
			return nil, err
		}
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(root, LockName), Err: fs.ErrPermission}
	}
	t.Cleanup(func() { finishCommits = FinishCommits })
}

// journaledStages returns the stages under root that hold a journal.
func journaledStages(t *testing.T, root string) []string {
	t.Helper()
	j, err := filepath.Glob(filepath.Join(root, StagePrefix+"*", journalName))
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestReaderWithoutWriteAccessSeesKilledCommit kills a commit before each
// of its moves in turn, into a dataset holding an older version of its
// runs and into an empty one, and reads the dataset as a reader that
// cannot write it: the runs are listed and read as the killed commit left
// them committed, every table of the new version, and the reader leaves
// the stage for the next writer, which finishes it.
func TestReaderWithoutWriteAccessSeesKilledCommit(t *testing.T) {
	at := []int{1, 8, 16} // make test; make test-all kills at every kind of move
	if slowtest.All() {
		at = []int{1, 4, 8, 12, 15, 16, 18}
	}
	for _, old := range []bool{true, false} {
		for _, at := range at {
			root := t.TempDir()
			if old {
				if err := commitWithRejects(root, "old", "r2"); err != nil {
					t.Fatal(err)
				}
			}
			killCommit(t, root, at)
			func() {
				cannotFinish(t)
				defer func() { finishCommits = FinishCommits }()
				runs, err := Runs(root)
				if err != nil {
					t.Fatalf("old=%v, killed at move %d: %v", old, at, err)
				}
				if want := []string{"r1", "r2", "r3"}; !slices.Equal(runs, want) {
					t.Errorf("old=%v, killed at move %d: runs %v, want %v", old, at, runs, want)
				}
				checkVersion(t, root, at, "new")
				if j := journaledStages(t, root); len(j) != 1 {
					t.Errorf("old=%v, killed at move %d: journaled stages %v after reading, want the killed one, untouched", old, at, j)
				}
			}()
			st, err := NewStage(root, "test")
			if err != nil {
				t.Fatal(err)
			}
			st.Abort()
			if len(st.Removed()) != 1 || st.Removed()[0].Finished != 3 {
				t.Errorf("old=%v, killed at move %d: the next writer removed %+v, want the killed commit of 3 runs finished", old, at, st.Removed())
			}
			checkVersion(t, root, at, "new")
		}
	}
}

// TestReadDuringCommitIsWhole reads a run that a commit is replacing
// while the commit is paused between its tables' moves and the runs
// table's: the read waits for the commit and gives the new version whole,
// not the new turns with the old runs row.
func TestReadDuringCommitIsWhole(t *testing.T) {
	root := t.TempDir()
	if err := commitWithRejects(root, "old", "r2"); err != nil {
		t.Fatal(err)
	}
	// 3 runs: 12 moves of four tables and 3 of rejects, then the runs
	// table's 3; pause before the 16th, the first of the runs table.
	paused, resume := make(chan struct{}), make(chan struct{})
	var n atomic.Int64
	beforeMove = func() {
		if n.Add(1) == 16 {
			close(paused)
			<-resume
		}
	}
	defer func() { beforeMove = func() {} }()
	committed := make(chan error, 1)
	go func() { committed <- commitWithRejects(root, "new", "r3") }()
	<-paused
	read := make(chan error, 1)
	var labels string
	var turns int
	go func() {
		d, err := ReadRun(root, "r1")
		if err == nil {
			labels, turns = d.Run.Labels, len(d.Turns)
		}
		read <- err
	}()
	select {
	case err := <-read:
		t.Errorf("read finished while the commit was halfway: labels %s, %d turns, %v", labels, turns, err)
		close(resume)
	case <-time.After(200 * time.Millisecond):
		close(resume)
		if err := <-read; err != nil {
			t.Fatal(err)
		}
		if want := killedRuns("new")[0]; labels != want.Run.Labels || turns != len(want.Turns) {
			t.Errorf("read labels %s, %d turns; want the new version's %s, %d", labels, turns, want.Run.Labels, len(want.Turns))
		}
	}
	if err := <-committed; err != nil {
		t.Fatal(err)
	}
}

// TestReadOnlyDatasetAfterKilledCommit is TestReaderWithoutWriteAccessSeesKilledCommit
// with real permissions: the dataset's directories and files are made
// read-only. Root ignores them, so the test is skipped as root.
func TestReadOnlyDatasetAfterKilledCommit(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores file permissions")
	}
	for _, at := range []int{1, 8, 16} {
		root := t.TempDir()
		if err := commitWithRejects(root, "old", "r2"); err != nil {
			t.Fatal(err)
		}
		killCommit(t, root, at)
		chmodTree(t, root, 0o555, 0o444)
		t.Cleanup(func() { chmodTree(t, root, 0o755, 0o644) })
		runs, err := Runs(root)
		if err != nil {
			t.Fatalf("killed at move %d: %v", at, err)
		}
		if want := []string{"r1", "r2", "r3"}; !slices.Equal(runs, want) {
			t.Errorf("killed at move %d: runs %v, want %v", at, runs, want)
		}
		checkVersion(t, root, at, "new")
	}
}

// chmodTree sets the mode of every directory and file under root.
func chmodTree(t *testing.T, root string, dirMode, fileMode fs.FileMode) {
	t.Helper()
	var paths []string
	var modes []fs.FileMode
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		paths = append(paths, p)
		if d.IsDir() {
			modes = append(modes, dirMode)
		} else {
			modes = append(modes, fileMode)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Deepest first, so that making a directory read-only or writable
	// again comes after what is in it.
	for i := len(paths) - 1; i >= 0; i-- {
		if err := os.Chmod(paths[i], modes[i]); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStageModeFollowsUmask checks that a staging directory is made as
// the dataset's own directories are, not private to its owner, so that
// a reader of another user can read a commit left halfway in it.
func TestStageModeFollowsUmask(t *testing.T) {
	root := t.TempDir()
	st, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Abort()
	ref := filepath.Join(root, "ref")
	if err := os.Mkdir(ref, 0o777); err != nil {
		t.Fatal(err)
	}
	got, err1 := os.Stat(st.dir)
	want, err2 := os.Stat(ref)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if got.Mode().Perm() != want.Mode().Perm() {
		t.Errorf("stage directory mode %v, want %v (0777 less the umask)", got.Mode().Perm(), want.Mode().Perm())
	}
}

// TestUnreadableStageRefused makes the stage of a killed commit one that
// the reader cannot look into, as another user's private stage is: the
// reader cannot tell the runs it left half replaced, and says so rather
// than read them. Skipped as root, which ignores permissions.
func TestUnreadableStageRefused(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores file permissions")
	}
	root, stage := killedStage(t, 8)
	if err := os.Chmod(stage, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(stage, 0o755) })
	cannotFinish(t)
	_, err := Runs(root)
	if err == nil || !strings.Contains(err.Error(), "cannot tell whether the ingest that made") {
		t.Errorf("Runs: %v; want an error naming the stage that cannot be looked into", err)
	}
	if _, err := ReadRun(root, "r1"); err == nil || !strings.Contains(err.Error(), "cannot tell whether the ingest that made") {
		t.Errorf("ReadRun: %v; want an error naming the stage that cannot be looked into", err)
	}
}

// TestRunsOfAnInterruptedFirstIngest lists the runs of a dataset whose
// first ingest stopped before committing: it says the dataset holds no
// runs yet, rather than that it is not a dataset.
func TestRunsOfAnInterruptedFirstIngest(t *testing.T) {
	root := t.TempDir()
	st, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	st.Abort()
	if _, err := Runs(root); err == nil || !strings.Contains(err.Error(), "holds no runs: no ingest into it has finished") {
		t.Errorf("Runs: %v; want that it holds no runs yet", err)
	}
	if _, err := Runs(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not an outlast dataset") {
		t.Errorf("Runs of an empty directory: %v; want not an outlast dataset", err)
	}
}

// TestCommitRefusesUnreadableStage commits beside a stage that cannot be
// looked into, as another user's private one: it may hold a commit left
// halfway, which its owner finishing later would lay over this commit's
// runs, so the commit is refused, and the dataset left as it was. Skipped
// as root, which ignores permissions.
func TestCommitRefusesUnreadableStage(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores file permissions")
	}
	root := t.TempDir()
	st, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Abort()
	private := filepath.Join(root, StagePrefix+"other")
	if err := os.Mkdir(private, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(private, 0o755) })
	if err := st.WriteRun(sampleRun("r1")); err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(); err == nil || !strings.Contains(err.Error(), "cannot tell whether "+private) {
		t.Errorf("Commit: %v; want it refused, naming %s", err, private)
	}
	if _, err := os.Stat(PartitionDir(root, "runs", "r1")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("r1 in the dataset after a refused commit: %v", err)
	}
}

// TestLockUnsupported checks which errors of locking the dataset's lock
// file let a reader go on without the lock: those of a file system that
// cannot lock, where no commit can run either, and not others.
func TestLockUnsupported(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{syscall.ENOTSUP, true},
		{syscall.EOPNOTSUPP, true},
		{syscall.ENOSYS, true},
		{syscall.ENOLCK, true},
		{syscall.EACCES, false},
		{syscall.EIO, false},
	} {
		err := &fs.PathError{Op: "RLock", Path: LockName, Err: c.err}
		if got := lockUnsupported(err); got != c.want {
			t.Errorf("lockUnsupported(%v) = %v, want %v", err, got, c.want)
		}
	}
}

// TestStagedFileNotLookedIntoRefused kills a commit before the runs
// table's moves, its other tables all moved in, and makes the stage's
// directory of r1's staged runs file one that the reader cannot look
// into: the reader cannot tell that file there, and says so rather than
// read the dataset's older runs row beside the new turns. Skipped as
// root, which ignores permissions.
func TestStagedFileNotLookedIntoRefused(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores file permissions")
	}
	root, stage := killedStage(t, 16)
	shard := filepath.Dir(stagedPath(stage, "runs", "r1"))
	if err := os.Chmod(shard, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(shard, 0o755) })
	cannotFinish(t)
	d, err := ReadRun(root, "r1")
	if err == nil {
		t.Fatalf("ReadRun read labels %s, %d turns; want an error, the staged runs row being out of sight", d.Run.Labels, len(d.Turns))
	}
	if !strings.Contains(err.Error(), shard) {
		t.Errorf("ReadRun: %v; want an error naming %s", err, shard)
	}
}

// killedStage commits a dataset's first version, then kills the commit of
// its next before move at, and returns the dataset's root and the stage
// that commit left halfway.
func killedStage(t *testing.T, at int) (root, stage string) {
	t.Helper()
	root = t.TempDir()
	if err := commitWithRejects(root, "old", "r2"); err != nil {
		t.Fatal(err)
	}
	killCommit(t, root, at)
	j := journaledStages(t, root)
	if len(j) != 1 {
		t.Fatalf("journaled stages %v, want 1", j)
	}
	return root, filepath.Dir(j[0])
}
