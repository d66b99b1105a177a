package dataset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// abandonedStage makes a stage as an ingest that died leaves it: a
// directory with a partial file and an owner file nobody holds (owner nil:
// no owner file, as an outlast before owner files left it).
func abandonedStage(t *testing.T, root, name string, owner *Owner) string {
	t.Helper()
	dir := filepath.Join(root, StagePrefix+name)
	if err := os.MkdirAll(filepath.Join(dir, "turns", "run=x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "turns", "run=x", FileName), []byte("PAR1 partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if owner != nil {
		b, _ := json.Marshal(owner)
		if err := os.WriteFile(filepath.Join(dir, ownerName), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestAbandonedStagesRemoved(t *testing.T) {
	root := t.TempDir()
	writeRuns(t, root, sampleRun("r1"))
	dead := Owner{PID: 4242, Host: "gpu-3", Started: time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC), Version: "0.1.0"}
	a := abandonedStage(t, root, "111", &dead)
	b := abandonedStage(t, root, "222", nil)
	st, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Abort()
	for _, d := range []string{a, b} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("abandoned stage %s kept (%v)", d, err)
		}
	}
	dead.Stage = StagePrefix + "111"
	want := []Owner{dead, {Stage: StagePrefix + "222"}}
	if got := st.Removed(); !reflect.DeepEqual(got, want) {
		t.Errorf("Removed() = %+v, want %+v", got, want)
	}
	if got, want := dead.String(), "pid 4242 on gpu-3, started 2026-10-27T12:00:00Z (outlast 0.1.0)"; got != want {
		t.Errorf("Owner.String() = %q, want %q", got, want)
	}
	if _, err := ReadRun(root, "r1"); err != nil {
		t.Errorf("a committed run did not survive the clean-up: %v", err)
	}
}

// TestLiveStageKept holds a stage's owner file locked as another ingest
// would (another open file, so another flock owner) and checks that a new
// stage leaves it alone until the lock is released.
func TestLiveStageKept(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("stages are never taken for abandoned here")
	}
	root := t.TempDir()
	live := abandonedStage(t, root, "333", &Owner{PID: 1, Host: "h", Version: "v"})
	f, err := os.OpenFile(filepath.Join(live, ownerName), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := lockOwner(f); err != nil {
		t.Fatal(err)
	}
	st, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	st.Abort()
	if _, err := os.Stat(live); err != nil || len(st.Removed()) != 0 {
		t.Fatalf("a held stage was removed (%v, removed %v)", err, st.Removed())
	}
	f.Close()
	st, err = NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	st.Abort()
	if _, err := os.Stat(live); !os.IsNotExist(err) || len(st.Removed()) != 1 {
		t.Fatalf("a released stage was kept (%v, removed %v)", err, st.Removed())
	}
}

// TestConcurrentStagesBothCommit opens two stages on one dataset and
// commits both: the second does not remove the first, and the runs of both
// are in the dataset.
func TestConcurrentStagesBothCommit(t *testing.T) {
	root := t.TempDir()
	s1, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := s1.WriteRun(sampleRun("r1")); err != nil {
		t.Fatal(err)
	}
	s2, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(s2.Removed()) != 0 {
		t.Fatalf("second stage removed %v", s2.Removed())
	}
	if err := s2.WriteRun(sampleRun("r2")); err != nil {
		t.Fatal(err)
	}
	if err := s2.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := s1.Commit(); err != nil {
		t.Fatal(err)
	}
	runs, err := Runs(root)
	if err != nil || !reflect.DeepEqual(runs, []string{"r1", "r2"}) {
		t.Errorf("Runs = %v, %v; want both stages' runs", runs, err)
	}
	if left, _ := filepath.Glob(filepath.Join(root, StagePrefix+"*")); len(left) > 0 {
		t.Errorf("stages left behind: %v", left)
	}
}
