package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/lockedfile"

	"github.com/outlast-dev/outlast/schema"
)

// Several ingests may write one dataset at the same time, and all of them
// succeed: each stages its runs in its own directory and commits them under
// the dataset's lock, so commits take turns and every run of every ingest
// ends up in the dataset (of two ingests of the same run, the one that
// commits last wins, whole). An ingest that dies (kill -9, power loss)
// leaves its stage behind; the next ingest into the dataset removes it.
//
// A stage is known to be abandoned by its owner file, DIR/.staging-*/owner,
// which its ingest holds locked (flock) for the stage's whole life and which
// names the ingest (pid, host, start time). The kernel drops the lock when
// the process dies however it dies, so a stage whose owner file can be
// locked has no owner. Stages are made and abandoned ones removed while the
// dataset's lock file, DIR/.outlast.lock, is held, so a stage is never seen
// between its creation and its owner's lock.

// LockName is the dataset's lock file, held while a stage is made, while
// abandoned stages are removed, and while a stage is committed.
const LockName = schema.DatasetLockName

// TurnstileName is the file a writer locks while it waits for the
// dataset's lock, and that readers pass before they take theirs
// (lockWriter, snapshot.go).
const TurnstileName = ".outlast.wait"

// lockWriter takes the dataset's lock at root for a writer, and returns
// its unlock. Readers share that lock (snapshot.go), and flock gives a
// writer waiting for it no priority: readers that keep overlapping, as a
// report's one per CPU do, would hold a commit off until they all
// stopped. So a writer first takes the turnstile, which every reader
// passes (a shared lock taken and dropped at once) before taking the
// dataset's lock: while a writer waits, new readers wait behind it, and
// it gets the lock once the readers already in are done.
func lockWriter(root string) (func(), error) {
	gate, err := lockedfile.MutexAt(filepath.Join(root, TurnstileName)).Lock()
	if err != nil {
		return nil, err
	}
	defer gate()
	return lockedfile.MutexAt(filepath.Join(root, LockName)).Lock()
}

// StagePrefix begins the name of every staging directory in a dataset.
const StagePrefix = ".staging-"

// ownerName is the owner file of a stage.
const ownerName = "owner"

// Owner is the ingest that made a stage.
type Owner struct {
	Stage   string    `json:"-"` // the staging directory's name
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
	Version string    `json:"outlast_version"`
	// Finished is how many runs the stage's commit moved into the
	// dataset when it was found: its ingest died while committing, and
	// the commit was finished rather than the stage removed (0 for a
	// stage that never reached its commit).
	Finished int `json:"-"`
}

// String describes the owner for a message: "pid 812 on gpu-3, started
// 2026-10-27T12:00:00Z (outlast 0.1.0)".
func (o Owner) String() string {
	if o.PID == 0 {
		return "owner unknown"
	}
	return fmt.Sprintf("pid %d on %s, started %s (outlast %s)", o.PID, o.Host, o.Started.Format(time.RFC3339), o.Version)
}

// liveStages are the staging directories this process holds, by absolute
// path. Another stage of the same process is never probed: where flock is
// emulated with POSIX locks (NFS), a process's own locks do not exclude
// it, and closing the probe would drop them.
var liveStages sync.Map // absolute directory → struct{}

// stageKey is dir's key in liveStages.
func stageKey(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// makeStage makes a staging directory under root, owned by this process,
// after removing the stages whose owners are gone. It returns the
// directory, its open and locked owner file, and the owners of the stages
// it removed.
func makeStage(root, version string) (dir string, owner *os.File, removed []Owner, err error) {
	unlock, err := lockWriter(root)
	if err != nil {
		return "", nil, nil, err
	}
	defer unlock()
	removed, err = removeAbandoned(root, false)
	if err != nil {
		return "", nil, removed, err
	}
	dir, err = mkdirStage(root)
	if err != nil {
		return "", nil, removed, err
	}
	owner, err = os.OpenFile(filepath.Join(dir, ownerName), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err == nil {
		err = lockOwner(owner)
	}
	if err == nil {
		host, _ := os.Hostname()
		b, _ := json.Marshal(Owner{PID: os.Getpid(), Host: host, Started: time.Now().UTC().Truncate(time.Second), Version: version})
		_, err = owner.Write(append(b, '\n'))
	}
	if err != nil {
		if owner != nil {
			owner.Close()
		}
		os.RemoveAll(dir)
		return "", nil, removed, err
	}
	liveStages.Store(stageKey(dir), struct{}{})
	return dir, owner, removed, nil
}

// mkdirStage makes a new staging directory under root. Its mode follows
// the umask, as the dataset's directories' do (os.MkdirTemp's is 0700):
// a reader of another user who can read the dataset can read the files of
// a commit that an ingest left halfway, which are the dataset's
// (snapshot.go), and they are no more open to others than once moved in.
func mkdirStage(root string) (string, error) {
	for range 10000 {
		dir := filepath.Join(root, StagePrefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		err := os.Mkdir(dir, 0o777)
		if !errors.Is(err, fs.ErrExist) {
			return dir, err
		}
	}
	return "", fmt.Errorf("making a staging directory under %s: too many tries", root)
}

// dropStage removes a stage of this process and releases its owner file.
// The directory goes first, so that no other ingest sees it unowned.
func dropStage(dir string, owner *os.File) error {
	err := os.RemoveAll(dir)
	owner.Close()
	liveStages.Delete(stageKey(dir))
	return err
}

// removeAbandoned removes the stages under root whose owner is gone and
// returns their owners. The dataset's lock must be held. A stage that
// cannot be probed or removed (another user's, say) is left as it is: it
// is no reason to refuse this ingest, unless committing says it must know
// of every commit left halfway, and the stage cannot be looked into: one
// there, finished later, would overwrite this commit's runs with older
// ones. For the same reason a commit is refused beside the stage of an
// ingest that has not ended whose commit failed halfway (failedCommitLeft).
func removeAbandoned(root string, committing bool) ([]Owner, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var removed []Owner
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), StagePrefix) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if _, ours := liveStages.Load(stageKey(dir)); ours {
			if committing {
				if err := failedCommitLeft(dir); err != nil {
					return removed, err
				}
			}
			continue
		}
		o, abandoned, err := probeStage(dir)
		if err != nil {
			_, journal, jerr := readJournal(dir)
			if journal {
				// A commit left halfway that cannot be finished: reading
				// or writing the dataset as it is would mix two states.
				return removed, err
			}
			if committing && jerr != nil {
				return removed, fmt.Errorf("dataset: cannot tell whether %s, another ingest's stage, holds a commit left halfway, which finished later would overwrite this one's runs: %w; commit once it is gone, or as its owner", dir, err)
			}
			continue
		}
		if !abandoned {
			if committing {
				if err := failedCommitLeft(dir); err != nil {
					return removed, err
				}
			}
			continue
		}
		o.Stage = e.Name()
		removed = append(removed, o)
	}
	return removed, nil
}

// failedCommitLeft returns an error if the stage dir, whose ingest has not
// ended, holds a journal: its commit failed halfway (a commit holds the
// dataset's lock from its journal to its stage's removal), and once the
// ingest ends it is finished, over the runs of any commit made beside it.
func failedCommitLeft(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, journalName)); err != nil {
		return nil
	}
	return fmt.Errorf("dataset: %s holds a commit that failed halfway, of an ingest that has not ended; finished once it ends, it would overwrite this commit's runs: commit once that ingest has ended", dir)
}

// probeStage reports whether the stage dir is abandoned, and if so removes
// it while holding its owner's lock and returns who owned it. A stage
// without an owner file was made by an outlast that did not write one, or
// its ingest died before writing it (the dataset's lock is held from the
// directory's creation until its owner is locked, so no live ingest is in
// that state, unless it is an outlast from before owner files): it is
// abandoned too. Where a lock cannot be tested without waiting, no stage
// is abandoned.
func probeStage(dir string) (Owner, bool, error) {
	var o Owner
	// Read-only is enough for flock, and works on another user's file.
	f, err := os.Open(filepath.Join(dir, ownerName))
	if errors.Is(err, fs.ErrNotExist) {
		return o, true, os.RemoveAll(dir)
	}
	if err != nil {
		return o, false, err
	}
	defer f.Close()
	free, err := tryLockOwner(f)
	if errors.Is(err, errors.ErrUnsupported) || err == nil && !free {
		return o, false, nil
	}
	if err != nil {
		return o, false, err
	}
	if b, err := os.ReadFile(f.Name()); err == nil {
		json.Unmarshal(b, &o) // an unreadable owner is "owner unknown"
	}
	if o.Finished, err = finishCommit(filepath.Dir(dir), dir); err != nil {
		return o, false, err // kept, to be finished once it can be
	}
	if o.Finished > 0 {
		// The renames are on disk before the journal goes with the stage.
		if err := syncStage(f); err != nil {
			return o, false, err
		}
	}
	return o, true, os.RemoveAll(dir)
}

// FinishCommits finishes the commits of the ingests that died while
// committing into the dataset at root (see Stage.Commit) and returns their
// owners; it does nothing, without taking the dataset's lock, where no
// stage has a journal. Readers call it (Runs) so that what they read is
// whole.
func FinishCommits(root string) ([]Owner, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	pending := false
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), StagePrefix) {
			if _, err := os.Stat(filepath.Join(root, e.Name(), journalName)); err == nil {
				pending = true
				break
			}
		}
	}
	if !pending {
		return nil, nil
	}
	unlock, err := lockWriter(root)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: an ingest died while committing, and finishing its commit needs the dataset's lock: %w", root, err)
	}
	defer unlock()
	removed, err := removeAbandoned(root, false)
	var done []Owner
	for _, o := range removed {
		if o.Finished > 0 {
			done = append(done, o)
		}
	}
	return done, err
}
