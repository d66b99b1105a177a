package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/outlast-dev/outlast/schema"
)

// This file is the stage's layout and its commit: where staged files wait,
// and how they enter the dataset.

// stagedPath is where the stage holds one run's file of table until
// Commit: a file per run in one of stageShards directories per table, so
// that staging a run makes no directory of its own (each costs a system
// call to make and one to remove), while runs written at once seldom
// create their files in the same directory: creations in one directory
// take turns on its lock, and on ext4 the waiters spin, which cost a
// campaign's ingest more system time than all its other calls together.
func (s *Stage) stagedPath(table, run string) string { return stagedPath(s.dir, table, run) }

// stagedPath is where the stage in dir holds run's file of table.
func stagedPath(dir, table, run string) string {
	return filepath.Join(dir, table, strconv.Itoa(stageShard(run)), run+".parquet")
}

// stageShards is how many directories per table the stage spreads its
// files over: a few times the runs written at once on a large machine.
const stageShards = 16

// stageShard returns the shard of run's staged files.
func stageShard(run string) int {
	h := fnv.New32a()
	h.Write([]byte(run))
	return int(h.Sum32() % stageShards)
}

// makeTableDirs makes the stage's directories for run's files, once for
// each shard.
func (s *Stage) makeTableDirs(run string) error {
	i := stageShard(run)
	d := &s.shardDirs[i]
	d.once.Do(func() {
		for _, t := range schema.Tables {
			if err := os.MkdirAll(filepath.Join(s.dir, t, strconv.Itoa(i)), 0o777); err != nil {
				d.err = err
				return
			}
		}
	})
	return d.err
}

// Commit moves every staged run into the dataset, replacing earlier files of
// the same runs, and removes the stage. Each file is replaced by a rename,
// so a reader never sees a partial file; the runs-table files come last,
// after every other table's file of every run, so a new run is listed only
// once its other tables are in place. Commits of concurrent ingests take
// turns under the dataset's lock.
//
// A commit is many renames, and a process can die between two of them. So
// before the first, Commit writes the stage's journal (journalName): the
// runs it moves in, on disk after every staged byte. A stage with a
// journal is committed, whatever happens next: whoever finds it abandoned
// (the next ingest, or a reader listing the runs) finishes its renames
// rather than removing it (finishCommit), and a Commit that fails after
// writing it leaves the stage to them. A stage without one is removed
// whole, and the dataset was never touched.
func (s *Stage) Commit() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := lockWriter(s.root)
	if err != nil {
		return err
	}
	defer unlock()
	// A commit that died before this one is finished first: replayed
	// later, its renames would overwrite this commit's files.
	if _, err := removeAbandoned(s.root, true); err != nil {
		return err
	}
	// Every staged file is on disk before the first enters the dataset.
	if err := syncStage(s.owner); err != nil {
		return err
	}
	runs := make([]commitRun, len(s.runs))
	for i, run := range s.runs {
		st, err := os.Stat(filepath.Join(s.dir, RejectsDir, run+".jsonl"))
		runs[i] = commitRun{Run: run, Rejects: err == nil && st.Size() > 0}
	}
	// A journal in place is the commit, even when syncing its directory
	// failed after: readers may already read the runs from it (snapshot.go),
	// so the stage is kept to be finished, not removed by Abort.
	inPlace, err := writeJournal(s.dir, runs)
	s.journaled = inPlace
	switch {
	case err != nil && inPlace:
		return fmt.Errorf("%w (the commit is finished by the next ingest into %s)", err, s.root)
	case err != nil:
		return err
	}
	if err := moveIn(s.root, s.dir, runs, false); err != nil {
		return fmt.Errorf("dataset: commit: %w (the commit is finished by the next ingest into %s)", err, s.root)
	}
	// The renames are on disk before the journal goes with the stage.
	if err := syncStage(s.owner); err != nil {
		return err
	}
	return dropStage(s.dir, s.owner)
}

// moveIn moves the staged files of runs from the stage in dir into the
// dataset at root: the tables but the runs table at once, one goroutine
// each (making entries in one directory takes turns on its lock), beside
// the rejects; the runs table after them. resumed says that a commit that
// died is being finished: a staged file that is gone was moved in by it.
func moveIn(root, dir string, runs []commitRun, resumed bool) error {
	var g errGroup
	for _, table := range schema.Tables {
		if table != schema.TableRuns {
			g.Go(func() error { return moveTable(root, dir, table, runs, resumed) })
		}
	}
	g.Go(func() error { return moveRejects(root, dir, runs, resumed) })
	if err := g.Wait(); err != nil {
		return err
	}
	return moveTable(root, dir, schema.TableRuns, runs, resumed)
}

// beforeMove is called before each rename or removal of a commit: tests
// kill their process there.
var beforeMove = func() {}

// moveTable moves every run's staged file of table into the dataset.
func moveTable(root, dir, table string, runs []commitRun, resumed bool) error {
	if err := os.MkdirAll(filepath.Join(root, table), 0o777); err != nil {
		return err
	}
	for _, r := range runs {
		dstDir := PartitionDir(root, table, r.Run)
		if err := os.Mkdir(dstDir, 0o777); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		beforeMove()
		err := os.Rename(stagedPath(dir, table, r.Run), filepath.Join(dstDir, FileName))
		if err != nil && !(resumed && errors.Is(err, os.ErrNotExist)) {
			return err
		}
	}
	return nil
}

// moveRejects moves every run's staged rejects file into the dataset and
// removes the dataset's rejects file of a run that has none now.
func moveRejects(root, dir string, runs []commitRun, resumed bool) error {
	for _, r := range runs {
		dst := filepath.Join(root, RejectsDir, r.Run+".jsonl")
		beforeMove()
		if !r.Rejects {
			if err := os.Remove(dst); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
			return err
		}
		err := os.Rename(filepath.Join(dir, RejectsDir, r.Run+".jsonl"), dst)
		if err != nil && !(resumed && errors.Is(err, os.ErrNotExist)) {
			return err
		}
	}
	return nil
}

// journalName is a committed stage's journal: JSON, the runs it moves in.
const journalName = "commit"

// commitRun is one run of a commit, as its journal records it.
type commitRun struct {
	Run string `json:"run"`
	// Rejects says the run has a rejects file to move in; without one,
	// the dataset's rejects file of the run is removed.
	Rejects bool `json:"rejects"`
}

// writeJournal writes the journal of the stage in dir, durably: to a
// temporary file, synced, renamed into place, and the directory synced,
// so that a journal is never seen half written. inPlace says the journal
// was renamed into place, whatever failed after.
func writeJournal(dir string, runs []commitRun) (inPlace bool, err error) {
	b, err := json.Marshal(runs)
	if err != nil {
		return false, err
	}
	tmp := filepath.Join(dir, journalName+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return false, fmt.Errorf("dataset: commit journal: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, journalName))
		inPlace = err == nil
	}
	if err == nil {
		err = syncJournalDir(dir)
	}
	if err != nil {
		return inPlace, fmt.Errorf("dataset: commit journal: %w", err)
	}
	return true, nil
}

// syncJournalDir is syncDir, which tests replace to fail the journal's
// directory sync.
var syncJournalDir = syncDir

// syncDir flushes the entries of directory dir to disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// readJournal returns the runs of the journal of the stage in dir, and
// false when it has none: the stage was never committed.
func readJournal(dir string) ([]commitRun, bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, journalName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var runs []commitRun
	if err := json.Unmarshal(b, &runs); err != nil {
		return nil, false, fmt.Errorf("dataset: commit journal %s: %w", filepath.Join(dir, journalName), err)
	}
	return runs, true, nil
}

// finishCommit finishes the commit of the abandoned stage in dir under
// root, if it has a journal, and reports how many runs it moved in. The
// dataset's lock must be held.
func finishCommit(root, dir string) (int, error) {
	runs, ok, err := readJournal(dir)
	if err != nil || !ok {
		return 0, err
	}
	if err := moveIn(root, dir, runs, true); err != nil {
		return 0, fmt.Errorf("dataset: finishing the commit of %s: %w", dir, err)
	}
	return len(runs), nil
}

// errGroup runs functions on goroutines of their own and keeps the first
// error.
type errGroup struct {
	wg   sync.WaitGroup
	once sync.Once
	err  error
}

// Go runs f on a new goroutine.
func (g *errGroup) Go(f func() error) {
	g.wg.Go(func() {
		if err := f(); err != nil {
			g.once.Do(func() { g.err = err })
		}
	})
}

// Wait returns once every function has returned, with the first error.
func (g *errGroup) Wait() error {
	g.wg.Wait()
	return g.err
}
