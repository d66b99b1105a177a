package dataset

import (
	"errors"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/rogpeppe/go-internal/lockedfile"

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
func (s *Stage) stagedPath(table, run string) string {
	return filepath.Join(s.dir, table, strconv.Itoa(stageShard(run)), run+".parquet")
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
func (s *Stage) Commit() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := lockedfile.MutexAt(filepath.Join(s.root, LockName)).Lock()
	if err != nil {
		return err
	}
	defer unlock()
	// Every staged file is on disk before the first enters the dataset.
	if err := syncStage(s.owner); err != nil {
		return err
	}
	// Each table is a directory of its own, and making entries in one
	// directory takes turns on its lock, so the tables move at once, one
	// goroutine each, beside the rejects; the runs table after them.
	var g errGroup
	for _, table := range schema.Tables {
		if table != schema.TableRuns {
			g.Go(func() error { return s.commitTable(table) })
		}
	}
	g.Go(s.commitRejects)
	if err := g.Wait(); err != nil {
		return err
	}
	if err := s.commitTable(schema.TableRuns); err != nil {
		return err
	}
	return dropStage(s.dir, s.owner)
}

// commitTable moves every staged run's file of table into the dataset.
func (s *Stage) commitTable(table string) error {
	if err := os.MkdirAll(filepath.Join(s.root, table), 0o777); err != nil {
		return err
	}
	for _, run := range s.runs {
		dstDir := PartitionDir(s.root, table, run)
		if err := os.Mkdir(dstDir, 0o777); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		if err := os.Rename(s.stagedPath(table, run), filepath.Join(dstDir, FileName)); err != nil {
			return err
		}
	}
	return nil
}

// commitRejects moves every staged run's rejects file into the dataset and
// removes the dataset's rejects file of a run that has none now.
func (s *Stage) commitRejects() error {
	for _, run := range s.runs {
		rej := filepath.Join(s.dir, RejectsDir, run+".jsonl")
		dst := filepath.Join(s.root, RejectsDir, run+".jsonl")
		if st, err := os.Stat(rej); err == nil && st.Size() > 0 {
			if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
				return err
			}
			if err := os.Rename(rej, dst); err != nil {
				return err
			}
		} else if err := os.Remove(dst); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
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
