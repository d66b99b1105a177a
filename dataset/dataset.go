// Package dataset writes and reads outlast's Parquet dataset: one directory
// per table, Hive-partitioned by run,
//
//	DATASET/<table>/run=<name>/part-0.parquet
//
// so that DuckDB reads a table with
// read_parquet('DATASET/turns/**/*.parquet', hive_partitioning=true), and
// pyarrow, polars and Spark read the directory as a partitioned dataset.
// Files are zstd-compressed with bounded row groups, rows sorted as
// documented on schema.RunData, and the same rows always give the same bytes.
package dataset

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// MaxRowsPerRowGroup bounds row groups so that readers can stream a table
// and a writer holds at most one group's pages in memory.
const MaxRowsPerRowGroup = 64 * 1024

// maxRowsPerRowGroup is the value in use; tests make it small to write
// files of many row groups.
var maxRowsPerRowGroup int64 = MaxRowsPerRowGroup

// FileName is the name of each partition's single file.
const FileName = "part-0.parquet"

// RejectsDir holds the lines rejected in lenient mode, one JSONL file per run.
const RejectsDir = "_rejects"

// PartitionDir returns the directory of one run's partition of table.
func PartitionDir(root, table, run string) string {
	return filepath.Join(root, table, "run="+run)
}

// Stage collects the files of one or more runs in a staging directory
// inside the dataset, so that nothing becomes visible until Commit renames
// them into place. A failed ingest calls Abort and leaves the dataset as it
// was. Runs may be written at the same time from several goroutines, each
// through its own RunWriter; a run's files do not depend on which others
// are written beside it or in what order they finish. Several stages, of
// one process or many, may be open on one dataset at once (see lock.go).
type Stage struct {
	root    string
	dir     string
	created string   // CreatedBy version string
	owner   *os.File // the stage's owner file, locked until the stage ends
	removed []Owner  // abandoned stages removed when this one was made

	attempts  atomic.Int64 // runs begun, for their spill directories
	shardDirs [stageShards]struct {
		once sync.Once
		err  error
	}

	mu   sync.Mutex // guards runs and open
	runs []string   // runs finished, in the order they finished
	open []string   // runs begun and not finished

	// journaled says Commit wrote the journal: the stage is committed, and
	// Abort leaves it for the next ingest to finish.
	journaled bool
}

// NewStage starts a staging area under root (created if needed), after
// removing the stages of ingests that died (Removed lists them). version is
// the outlast version recorded in each file's created_by.
func NewStage(root, version string) (*Stage, error) {
	for try := 0; ; try++ {
		if err := os.MkdirAll(root, 0o777); err != nil {
			return nil, err
		}
		dir, owner, removed, err := makeStage(root, version)
		if err != nil {
			if _, serr := os.Stat(root); errors.Is(serr, fs.ErrNotExist) && try < 3 {
				// An ingest that made root failed and removed it
				// (RemoveIfEmpty) while this one waited for its lock.
				continue
			}
			return nil, fmt.Errorf("dataset: staging in %s: %w", root, err)
		}
		return &Stage{root: root, dir: dir, created: version, owner: owner, removed: removed}, nil
	}
}

// Removed returns the owners of the abandoned stages NewStage removed.
func (s *Stage) Removed() []Owner { return s.removed }

// WriteRun writes the five tables of d into the stage. Rows are sorted
// first, so the bytes do not depend on the order they were collected in.
func (s *Stage) WriteRun(d *schema.RunData) error {
	rw, err := s.BeginRun(d.Run.Run)
	if err != nil {
		return err
	}
	d.Sort()
	for _, t := range d.Turns {
		if err := rw.AddTurn(t); err != nil {
			return err
		}
	}
	turns := d.Turns
	d.Turns = nil
	err = rw.Finish(d)
	d.Turns = turns
	return err
}

// RunWriter writes one run into a stage: the turns and sessions one by one
// as they are read (AddTurn, AddSession), the small tables at the end
// (Finish). Until Finish the run is not part of the stage.
type RunWriter struct {
	s        *Stage
	name     string
	turns    *SortedWriter[schema.Turn]
	sessions *SortedWriter[schema.Session]
	syncer   fileSyncer // the run's finished files
}

// BeginRun starts writing the run called name.
func (s *Stage) BeginRun(name string) (*RunWriter, error) {
	if name == "" || strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") {
		return nil, fmt.Errorf("dataset: bad run name %q", name)
	}
	if err := s.makeTableDirs(name); err != nil {
		return nil, err
	}
	if err := s.begin(name); err != nil {
		return nil, err
	}
	// Each attempt at a run spills into a directory of its own, made only
	// if it spills, so that leftovers of an aborted attempt at the same
	// run are never merged, and a run that does not spill costs no system
	// call for it.
	spill := filepath.Join(s.dir, ".spill", fmt.Sprintf("%s.%d", name, s.attempts.Add(1)))
	rw := &RunWriter{s: s, name: name}
	tw, err := newSortedWriter(s.stagedPath(schema.TableTurns, name),
		schema.TableTurns+"/"+name, spill, schema.TableTurns, schema.CompareTurns, s.spec(schema.TableTurns, false), name, &rw.syncer)
	if err != nil {
		s.end(name, false)
		return nil, err
	}
	sw, err := newSortedWriter(s.stagedPath(schema.TableSessions, name),
		schema.TableSessions+"/"+name, spill, schema.TableSessions, schema.CompareSessions, s.spec(schema.TableSessions, false), name, &rw.syncer)
	if err != nil {
		tw.abort()
		s.end(name, false)
		return nil, err
	}
	rw.turns, rw.sessions = tw, sw
	return rw, nil
}

// begin marks the run called name as being written.
func (s *Stage) begin(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Contains(s.runs, name) || slices.Contains(s.open, name) {
		return fmt.Errorf("dataset: run %q given twice", name)
	}
	s.open = append(s.open, name)
	return nil
}

// end marks the run called name as no longer being written: finished (part
// of the stage) or abandoned.
func (s *Stage) end(name string, finished bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open = slices.DeleteFunc(s.open, func(n string) bool { return n == name })
	if finished {
		s.runs = append(s.runs, name)
	}
}

// AddTurn writes one turn, in any order (the file is sorted, see
// SortedWriter).
func (w *RunWriter) AddTurn(t schema.Turn) error { return w.turns.Add(t) }

// AddSession writes one session, in any order (the file is sorted, see
// SortedWriter).
func (w *RunWriter) AddSession(s schema.Session) error { return w.sessions.Add(s) }

// FixSessions sets a function applied to every session row as the file is
// completed (SortedWriter.Fix).
func (w *RunWriter) FixSessions(fix func(*schema.Session)) { w.sessions.Fix(fix) }

// Finish completes the turns and sessions files and writes the other
// three tables of d. d.Turns must be empty (they went through AddTurn);
// d.Sessions are added to those given to AddSession. d's other tables are
// sorted first.
func (w *RunWriter) Finish(d *schema.RunData) error {
	if d.Run.Run != w.name {
		return fmt.Errorf("dataset: run %q finished as %q", w.name, d.Run.Run)
	}
	if len(d.Turns) > 0 {
		return fmt.Errorf("dataset: run %q: %d turns given to Finish instead of AddTurn", w.name, len(d.Turns))
	}
	if err := w.turns.Close(); err != nil {
		w.sessions.abort()
		return err
	}
	for _, row := range d.Sessions {
		if err := w.sessions.Add(row); err != nil {
			w.sessions.abort()
			return err
		}
	}
	if err := w.sessions.Close(); err != nil {
		return err
	}
	d.Sort()
	s, name := w.s, w.name
	if err := writeTable(s, schema.TableRuns, name, []schema.Run{d.Run}, &w.syncer); err != nil {
		return err
	}
	if err := writeTable(s, schema.TableEvents, name, d.Events, &w.syncer); err != nil {
		return err
	}
	if err := writeTable(s, schema.TableEngine, name, d.Engine, &w.syncer); err != nil {
		return err
	}
	// Every file of the run is closed (and, where the stage is not synced
	// whole at Commit, on disk) before it counts as staged.
	if err := w.syncer.wait(); err != nil {
		return err
	}
	if w.turns.spilled || w.sessions.spilled {
		os.RemoveAll(w.turns.spillDir)
	}
	s.end(name, true)
	return nil
}

// Abort stops writing the run after an error: its goroutine ends and its
// file is closed. The stage itself is aborted or committed as usual.
func (w *RunWriter) Abort() {
	w.turns.abort()
	w.sessions.abort()
	w.s.end(w.name, false)
}

// spec returns how the stage writes table's files; onePage for a table of
// at most one row.
func (s *Stage) spec(table string, onePage bool) fileSpec {
	page := pageBuffer
	if onePage {
		page = onePageBuffer
	}
	return fileSpec{table: table, created: s.created, pageBuffer: page}
}

// WriteRejects stages the lines of run rejected in lenient mode as JSONL,
// one object per line: pos (file:line), reason, and the line verbatim
// ("line", or "line_base64" when it is not UTF-8). An empty slice removes
// an earlier rejects file on Commit.
func (s *Stage) WriteRejects(run string, rejects []*textpos.ParseError) error {
	dir := filepath.Join(s.dir, RejectsDir)
	if len(rejects) == 0 {
		// Commit removes the dataset's rejects file of a run without one.
		if err := os.Remove(filepath.Join(dir, run+".jsonl")); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	var buf bytes.Buffer
	for _, r := range rejects {
		buf.Write(rejectJSON(r))
		buf.WriteByte('\n')
	}
	return os.WriteFile(filepath.Join(dir, run+".jsonl"), buf.Bytes(), 0o666)
}

func writeTable[T any](s *Stage, table, run string, rows []T, syncer *fileSyncer) error {
	if err := s.makeTableDirs(run); err != nil {
		return err
	}
	spec := s.spec(table, len(rows) <= 1)
	w, err := newRowWriter[T](s.stagedPath(table, run), table+"/"+run, &spec, run, false)
	if err != nil {
		return err
	}
	if err := w.writeAll(rows); err != nil {
		w.close(nil)
		return err
	}
	return w.close(syncer)
}

// Abort discards the stage, unless Commit got as far as its journal: then
// the stage is left to be finished (see Commit).
func (s *Stage) Abort() error {
	if s.journaled {
		// A commit that failed halfway: the stage is the dataset's now,
		// and whoever finds it abandoned finishes it (Commit).
		s.owner.Close()
		liveStages.Delete(stageKey(s.dir))
		return nil
	}
	return dropStage(s.dir, s.owner)
}

// Write writes whole runs held in memory into the dataset at root (created
// if needed) through one stage, for callers that build runs rather than
// ingest them (tests, simulations): either every run becomes visible, or,
// on an error, none does. Like Stage.WriteRun it sorts each run's rows.
func Write(root, version string, runs ...*schema.RunData) error {
	st, err := NewStage(root, version)
	if err != nil {
		return err
	}
	for _, d := range runs {
		if err := st.WriteRun(d); err != nil {
			st.Abort()
			return err
		}
	}
	return st.Commit()
}

// Runs lists the runs in the dataset at root, sorted by name. A commit
// that an ingest left halfway is finished first where the dataset can be
// written; where it cannot, its runs are listed as committed, and read
// from where they are (snapshot.go).
func Runs(root string) ([]string, error) {
	if _, err := finishCommits(root); err != nil && !errors.Is(err, os.ErrNotExist) && !cannotWrite(err) {
		return nil, err
	}
	snap, err := openSnapshot(root)
	if err != nil {
		if _, serr := os.Stat(root); errors.Is(serr, os.ErrNotExist) {
			return nil, fmt.Errorf("dataset: %s does not exist", root)
		}
		return nil, err
	}
	defer snap.close()
	entries, err := os.ReadDir(filepath.Join(root, schema.TableRuns))
	if err != nil && !(errors.Is(err, os.ErrNotExist) && snap.stage != "") {
		if errors.Is(err, os.ErrNotExist) {
			if _, serr := os.Stat(filepath.Join(root, LockName)); serr == nil {
				return nil, fmt.Errorf("dataset: %s holds no runs: no ingest into it has finished", root)
			}
			return nil, fmt.Errorf("dataset: %s has no %s table: not an outlast dataset", root, schema.TableRuns)
		}
		return nil, err
	}
	var runs []string
	for _, e := range entries {
		if name, ok := strings.CutPrefix(e.Name(), "run="); ok && e.IsDir() && !snap.runs[name] {
			runs = append(runs, name)
		}
	}
	for name := range snap.runs {
		runs = append(runs, name)
	}
	sort.Strings(runs)
	return runs, nil
}

// finishCommits is FinishCommits, which tests replace to play a reader
// that cannot write the dataset.
var finishCommits = FinishCommits

// rejectJSON encodes a line rejected in lenient mode as one JSONL object
// {"pos","reason","line"}: its position (file:line, and :column where the
// error has one, as the strict error would print it), the reason, and the
// line verbatim (without its line ending). A line that is not valid UTF-8
// goes into "line_base64" instead, so its bytes survive exactly.
func rejectJSON(e *textpos.ParseError) []byte {
	pos := e.Pos.String()
	if e.Column > 0 {
		pos += ":" + strconv.Itoa(e.Column)
	}
	rec := struct {
		Pos        string `json:"pos"`
		Reason     string `json:"reason"`
		Line       string `json:"line,omitempty"`
		LineBase64 string `json:"line_base64,omitempty"`
	}{Pos: pos}
	if e.Err != nil {
		rec.Reason = e.Err.Error()
	}
	if utf8.Valid(e.Raw) {
		rec.Line = string(e.Raw)
	} else {
		rec.LineBase64 = base64.StdEncoding.EncodeToString(e.Raw)
	}
	b, _ := json.Marshal(rec)
	return b
}
