package dataset

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRemoveIfEmpty removes what a failed ingest into a new directory
// leaves (its lock files, once its stage is aborted), and keeps a dataset
// that holds a run, another ingest's stage or a file of someone's.
func TestRemoveIfEmpty(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ds")
	st, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	if !IsDataset(root) {
		t.Fatalf("%s is no dataset once staged in", root)
	}
	if err := st.Abort(); err != nil {
		t.Fatal(err)
	}
	if removed, err := RemoveIfEmpty(root); !removed || err != nil {
		t.Fatalf("RemoveIfEmpty = %v, %v; want true, nil", removed, err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatalf("%s is still there: %v", root, err)
	}

	keep := func(name string, setup func(root string)) {
		t.Helper()
		root := filepath.Join(t.TempDir(), "ds")
		setup(root)
		before := listTree(t, root)
		if removed, err := RemoveIfEmpty(root); removed || err != nil {
			t.Errorf("%s: RemoveIfEmpty = %v, %v; want false, nil", name, removed, err)
		}
		if after := listTree(t, root); after != before {
			t.Errorf("%s: the directory changed:\n%s\nwas\n%s", name, after, before)
		}
	}
	keep("a run", func(root string) { writeRuns(t, root, sampleRun("r1")) })
	keep("another ingest's stage", func(root string) {
		st, err := NewStage(root, "test")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Abort() })
	})
	keep("a file of someone's", func(root string) {
		st, err := NewStage(root, "test")
		if err != nil {
			t.Fatal(err)
		}
		st.Abort()
		if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if IsDataset(t.TempDir()) {
		t.Error("an empty directory is taken for a dataset")
	}
}

// TestNewStageAfterRemoval has an ingest wait for the lock of a new
// dataset while the ingest that made it removes it (RemoveIfEmpty, after
// failing): the waiting one makes the directory again and stages in it.
func TestNewStageAfterRemoval(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ds")
	first, err := NewStage(root, "test")
	if err != nil {
		t.Fatal(err)
	}
	first.Abort()
	unlock, err := lockWriter(root)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		st, err := NewStage(root, "test")
		if err == nil {
			err = st.Abort()
		}
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // let it wait for the lock
	// RemoveIfEmpty's work, under the lock it holds.
	for _, n := range []string{TurnstileName, LockName} {
		if err := os.Remove(filepath.Join(root, n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(root); err != nil {
		t.Fatal(err)
	}
	unlock()
	if err := <-done; err != nil {
		t.Fatalf("NewStage while its dataset was removed: %v", err)
	}
	if !IsDataset(root) {
		t.Errorf("%s was not made again", root)
	}
}

// listTree lists the paths under root, one a line.
func listTree(t *testing.T, root string) string {
	t.Helper()
	var s string
	err := filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		s += p + "\n"
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
