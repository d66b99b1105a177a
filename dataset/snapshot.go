package dataset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/lockedfile"
)

// This file is what a reader reads: the dataset's committed state, taken
// under a shared lock so that no commit is halfway while a run's files
// are read, and read without writing anything, so that a reader needs no
// write access to the dataset.
//
// A commit renames a run's files one by one under the dataset's lock. A
// reader that read a run's files with no lock could read some before a
// commit of the run and some after (the turns of one ingest with the runs
// row of another). So a reader reads each run's files under a shared lock
// on the dataset's lock file, which a commit's exclusive lock excludes.
//
// An ingest that died while committing left a stage with a journal: its
// runs are committed, some of their files renamed into the dataset and
// the rest still in the stage. The next writer finishes the commit
// (finishCommit), and so does a reader that can write (FinishCommits);
// one that cannot reads the committed state where it is: each file of a
// journal's run from the stage while it is there, else from the dataset.
// Under the shared lock no commit is running (a commit holds the lock from
// its journal to the stage's removal), and nothing moves; a stage whose
// ingest is alive but whose commit failed halfway is as a dead one's, and
// no commit is made beside it (failedCommitLeft).

// snapshot is the committed state of the dataset at root, held under a
// shared lock until close.
type snapshot struct {
	root  string
	stage string          // the stage of a commit left halfway, "" if none
	runs  map[string]bool // the runs of its journal
	lock  *lockedfile.File
}

// openSnapshot takes a shared lock on the dataset at root and finds the
// commit an ingest left halfway, if one did. A dataset without a lock file
// has had no writer, and is read without a lock.
func openSnapshot(root string) (*snapshot, error) {
	s := &snapshot{root: root}
	// Past the turnstile first, behind any writer waiting (lockWriter).
	// It only orders readers behind writers: a dataset without one (made
	// before it, or read-only) is read as safely without.
	if gate, err := lockedfile.Open(filepath.Join(root, TurnstileName)); err == nil {
		gate.Close()
	}
	lock, err := lockedfile.Open(filepath.Join(root, LockName))
	switch {
	case err == nil:
		s.lock = lock
	case errors.Is(err, fs.ErrNotExist), lockUnsupported(err):
		// Where files cannot be locked (some FUSE mounts), no ingest can
		// commit either (Commit takes the lock): there is nothing to
		// exclude.
	default:
		return nil, fmt.Errorf("dataset: %s: %w", root, err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("dataset: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), StagePrefix) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if _, err := os.Stat(filepath.Join(dir, journalName)); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // no commit began
			}
			// Another user's stage that cannot be looked into (one made
			// private, by an older outlast or under umask 077): it may be
			// a commit left halfway, whose runs would read half replaced.
			s.close()
			return nil, fmt.Errorf("dataset: %s: cannot tell whether the ingest that made %s died while committing, which would leave runs half replaced: %w; read the dataset as that stage's owner, or once an ingest into %s has removed it", root, dir, err, root)
		}
		runs, ok, err := readJournal(dir)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("dataset: %s: an ingest died while committing, and its journal cannot be read: %w; an ingest into %s by a user who can read and write it finishes the commit", root, err, root)
		}
		if !ok {
			continue
		}
		if s.stage != "" {
			// Each commit finishes the one left before it first, so two
			// are never left: which came first is unknown.
			s.close()
			return nil, fmt.Errorf("dataset: %s: two commits left halfway, %s and %s; an ingest into %s finishes them", root, s.stage, dir, root)
		}
		s.stage, s.runs = dir, map[string]bool{}
		for _, r := range runs {
			s.runs[r.Run] = true
		}
	}
	return s, nil
}

// path returns where the committed file of run's table is.
func (s *snapshot) path(table, run string) string {
	if s.runs[run] {
		staged := stagedPath(s.stage, table, run)
		// Only a file known to be gone was moved in: one that cannot be
		// looked up may be there, and reading it says why it cannot be
		// read, where the dataset's would be the older version.
		if _, err := os.Lstat(staged); !errors.Is(err, fs.ErrNotExist) {
			return staged
		}
	}
	return filepath.Join(PartitionDir(s.root, table, run), FileName)
}

// close releases the lock.
func (s *snapshot) close() {
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
}

// readFiles reads the committed files of run's tables, whole, under the
// snapshot's lock, and returns their paths and bytes in the order of
// tables.
func readFiles(root, run string, tables ...string) (paths []string, data [][]byte, err error) {
	s, err := openSnapshot(root)
	if err != nil {
		return nil, nil, err
	}
	defer s.close()
	for _, t := range tables {
		p := s.path(t, run)
		// A run's files are small beside its rows once decoded: read each
		// whole, in one system call, and decode from memory, after the
		// lock is released.
		b, err := os.ReadFile(p)
		if err != nil {
			if s.runs[run] && errors.Is(err, fs.ErrPermission) {
				return nil, nil, fmt.Errorf("dataset: run %s was committed by an ingest that died while committing, and its files in %s cannot be read: %w; an ingest into %s by a user who can write it finishes the commit", run, s.stage, err, root)
			}
			return nil, nil, fmt.Errorf("dataset: %w", err)
		}
		paths, data = append(paths, p), append(data, b)
	}
	return paths, data, nil
}

// lockUnsupported reports whether err says the file system cannot lock
// files.
func lockUnsupported(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.ENOLCK)
}

// cannotWrite reports whether err says the dataset cannot be written by
// this process: a reader without write access reads the committed state
// rather than finishing a commit left halfway.
func cannotWrite(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}
