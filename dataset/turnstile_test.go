//go:build unix

package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestWaitingWriterGoesBeforeNewReaders checks the turnstile: once a
// writer waits for the lock that a reader holds, a reader that comes
// after it waits behind it, rather than sharing the first reader's lock
// and, with others like it, holding the writer off indefinitely.
func TestWaitingWriterGoesBeforeNewReaders(t *testing.T) {
	root := t.TempDir()
	if err := commitWithRejects(root, "old", "r2"); err != nil {
		t.Fatal(err)
	}
	first, err := openSnapshot(root)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	note := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	release, writer := make(chan struct{}), make(chan error, 1)
	go func() {
		unlock, err := lockWriter(root)
		if err == nil {
			note("writer")
			<-release
			unlock()
		}
		writer <- err
	}()
	waitLocked(t, filepath.Join(root, TurnstileName))

	reader := make(chan error, 1)
	go func() {
		s, err := openSnapshot(root)
		if err == nil {
			note("reader")
			s.close()
		}
		reader <- err
	}()
	// Without the turnstile the new reader shares the first one's lock
	// at once: give it the time to.
	select {
	case err := <-reader:
		t.Fatalf("a reader came in ahead of the writer waiting (%v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	first.close()
	for len(snapshotOrder(&mu, &order)) == 0 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	if err := <-writer; err != nil {
		t.Fatal(err)
	}
	if err := <-reader; err != nil {
		t.Fatal(err)
	}
	if got := snapshotOrder(&mu, &order); !slices.Equal(got, []string{"writer", "reader"}) {
		t.Errorf("the lock went to %v, want the waiting writer first", got)
	}
}

// snapshotOrder returns a copy of *order, read under mu.
func snapshotOrder(mu *sync.Mutex, order *[]string) []string {
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(*order)
}

// waitLocked waits until another holder has the file at path locked.
func waitLocked(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		f, err := os.Open(path)
		if err != nil {
			continue // not made yet
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		f.Close() // drops the lock, if it was taken
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return
		}
	}
	t.Fatalf("nothing locked %s", path)
}
