//go:build linux

package dataset

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSyncStage checks the one sync of a stage: it succeeds through a live
// owner file and fails, with the stage named, through a closed one, rather
// than reporting nothing.
func TestSyncStage(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), ownerName))
	if err != nil {
		t.Fatal(err)
	}
	if err := syncStage(f); err != nil {
		t.Fatalf("syncStage: %v", err)
	}
	f.Close()
	if err := syncStage(f); err == nil {
		t.Fatal("syncStage through a closed file gave no error")
	}
}
