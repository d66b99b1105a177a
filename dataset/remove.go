package dataset

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// IsDataset reports whether dir is an outlast dataset: it holds the lock
// file (LockName) that every ingest into it made.
func IsDataset(dir string) bool {
	st, err := os.Lstat(filepath.Join(dir, LockName))
	return err == nil && st.Mode().IsRegular()
}

// RemoveIfEmpty removes the dataset directory root if it holds nothing but
// its lock files: what an ingest that made root and then failed leaves
// once its stage is aborted. A dataset holding anything else (a run,
// another ingest's stage, a file of someone's) is left as it is. It
// reports whether root was removed.
//
// An ingest that waits for root's lock meanwhile finds root gone when it
// gets it, and makes it again (NewStage).
func RemoveIfEmpty(root string) (bool, error) {
	unlock, err := lockWriter(root)
	if err != nil {
		return false, err
	}
	defer unlock()
	entries, err := os.ReadDir(root)
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if n := e.Name(); n != LockName && n != TurnstileName {
			return false, nil
		}
	}
	for _, n := range []string{TurnstileName, LockName} {
		if err := os.Remove(filepath.Join(root, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
	}
	return true, os.Remove(root)
}
