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
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/rogpeppe/go-internal/lockedfile"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// MaxRowsPerRowGroup bounds row groups so that readers can stream a table
// and a writer holds at most one group's pages in memory.
const MaxRowsPerRowGroup = 64 * 1024

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

	mu   sync.Mutex // guards runs and open
	runs []string   // runs finished, in the order they finished
	open []string   // runs begun and not finished
}

// NewStage starts a staging area under root (created if needed), after
// removing the stages of ingests that died (Removed lists them). version is
// the outlast version recorded in each file's created_by.
func NewStage(root, version string) (*Stage, error) {
	if err := os.MkdirAll(root, 0o777); err != nil {
		return nil, err
	}
	dir, owner, removed, err := makeStage(root, version)
	if err != nil {
		return nil, fmt.Errorf("dataset: staging in %s: %w", root, err)
	}
	return &Stage{root: root, dir: dir, created: version, owner: owner, removed: removed}, nil
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
}

// BeginRun starts writing the run called name.
func (s *Stage) BeginRun(name string) (*RunWriter, error) {
	if name == "" || strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") {
		return nil, fmt.Errorf("dataset: bad run name %q", name)
	}
	if err := s.begin(name); err != nil {
		return nil, err
	}
	spill := filepath.Join(s.dir, ".spill", name)
	// Leftovers of an aborted attempt at the same run must not be merged.
	if err := os.RemoveAll(spill); err != nil {
		s.end(name, false)
		return nil, err
	}
	tw, err := newSortedWriter(filepath.Join(PartitionDir(s.dir, schema.TableTurns, name), FileName),
		schema.TableTurns+"/"+name, spill, schema.TableTurns, schema.CompareTurns, s.options(schema.TableTurns, name))
	if err != nil {
		s.end(name, false)
		return nil, err
	}
	sw, err := newSortedWriter(filepath.Join(PartitionDir(s.dir, schema.TableSessions, name), FileName),
		schema.TableSessions+"/"+name, spill, schema.TableSessions, schema.CompareSessions, s.options(schema.TableSessions, name))
	if err != nil {
		tw.abort()
		s.end(name, false)
		return nil, err
	}
	return &RunWriter{s: s, name: name, turns: tw, sessions: sw}, nil
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
	if err := writeTable(s, schema.TableRuns, name, []schema.Run{d.Run}); err != nil {
		return err
	}
	if err := writeTable(s, schema.TableEvents, name, d.Events); err != nil {
		return err
	}
	if err := writeTable(s, schema.TableEngine, name, d.Engine); err != nil {
		return err
	}
	os.RemoveAll(filepath.Join(s.dir, ".spill", name))
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

// options returns the writer options of one table's file.
func (s *Stage) options(table, run string) []parquet.WriterOption {
	return []parquet.WriterOption{
		parquet.KeyValueMetadata(schema.VersionKey, schema.Version),
		parquet.KeyValueMetadata(schema.TableKey, table),
		parquet.KeyValueMetadata(schema.RunKey, run),
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedFastest}),
		parquet.MaxRowsPerRowGroup(MaxRowsPerRowGroup),
		// One page buffer per column: 256 KB holds a row group's worth of
		// most columns in a few pages, and bounds the writer's memory at
		// columns x 256 KB whatever the table's size.
		parquet.PageBufferSize(256 << 10),
		// Fewer, larger writes to the file: 32 KB (the default) costs a
		// system call every few hundred turns.
		parquet.WriteBufferSize(1 << 20),
		parquet.CreatedBy("outlast", s.created, "schema-"+schema.Version),
	}
}

// WriteRejects stages the lines of run rejected in lenient mode as JSONL,
// one object per line: pos (file:line), reason, and the line verbatim
// ("line", or "line_base64" when it is not UTF-8). An empty slice removes
// an earlier rejects file on Commit.
func (s *Stage) WriteRejects(run string, rejects []*textpos.ParseError) error {
	dir := filepath.Join(s.dir, RejectsDir)
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

func writeTable[T any](s *Stage, table, run string, rows []T) error {
	path := filepath.Join(PartitionDir(s.dir, table, run), FileName)
	w, err := newRowWriter[T](path, table+"/"+run, s.options(table, run), false)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := w.add(r); err != nil {
			w.close(false)
			return err
		}
	}
	return w.close(true)
}

// Commit moves every staged run into the dataset, replacing earlier files of
// the same runs, and removes the stage. Each file is replaced by a rename,
// so a reader never sees a partial file; a run's runs-table file comes
// last, so a new run is listed only once its other tables are in place.
// Commits of concurrent ingests take turns under the dataset's lock.
func (s *Stage) Commit() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := lockedfile.MutexAt(filepath.Join(s.root, LockName)).Lock()
	if err != nil {
		return err
	}
	defer unlock()
	isRuns := func(t string) bool { return t == schema.TableRuns }
	tables := append(slices.DeleteFunc(slices.Clone(schema.Tables), isRuns), schema.TableRuns)
	for _, run := range s.runs {
		for _, table := range tables {
			src := filepath.Join(PartitionDir(s.dir, table, run), FileName)
			dstDir := PartitionDir(s.root, table, run)
			if err := os.MkdirAll(dstDir, 0o777); err != nil {
				return err
			}
			if err := os.Rename(src, filepath.Join(dstDir, FileName)); err != nil {
				return err
			}
		}
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
	return dropStage(s.dir, s.owner)
}

// Abort discards the stage.
func (s *Stage) Abort() error { return dropStage(s.dir, s.owner) }

// Runs lists the runs in the dataset at root, sorted by name.
func Runs(root string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, schema.TableRuns))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("dataset: %s has no %s table: not an outlast dataset", root, schema.TableRuns)
		}
		return nil, err
	}
	var runs []string
	for _, e := range entries {
		if name, ok := strings.CutPrefix(e.Name(), "run="); ok && e.IsDir() {
			runs = append(runs, name)
		}
	}
	sort.Strings(runs)
	return runs, nil
}

// ReadRunRow reads one run's row of the runs table alone, without its
// other tables.
func ReadRunRow(root, run string) (schema.Run, error) {
	runs, err := readTable[schema.Run](root, schema.TableRuns, run)
	if err != nil {
		return schema.Run{}, err
	}
	if len(runs) != 1 {
		return schema.Run{}, fmt.Errorf("dataset: %s: want 1 row in runs, have %d", run, len(runs))
	}
	runs[0].Run = run
	return runs[0], nil
}

// ReadRun reads one run's five tables back.
func ReadRun(root, run string) (*schema.RunData, error) {
	d := &schema.RunData{}
	var err error
	if d.Run, err = ReadRunRow(root, run); err != nil {
		return nil, err
	}
	if d.Sessions, err = readTable[schema.Session](root, schema.TableSessions, run); err != nil {
		return nil, err
	}
	if d.Turns, err = readTable[schema.Turn](root, schema.TableTurns, run); err != nil {
		return nil, err
	}
	if d.Events, err = readTable[schema.Event](root, schema.TableEvents, run); err != nil {
		return nil, err
	}
	if d.Engine, err = readTable[schema.EngineSample](root, schema.TableEngine, run); err != nil {
		return nil, err
	}
	d.Run.Run = run
	for i := range d.Sessions {
		d.Sessions[i].Run = run
	}
	for i := range d.Turns {
		d.Turns[i].Run = run
	}
	for i := range d.Events {
		d.Events[i].Run = run
	}
	for i := range d.Engine {
		d.Engine[i].Run = run
	}
	return d, nil
}

// ReadAll reads every run of the dataset at root, in run-name order.
func ReadAll(root string) ([]*schema.RunData, error) {
	runs, err := Runs(root)
	if err != nil {
		return nil, err
	}
	// Runs are independent files: decode them on every core, keeping the
	// result in run-name order. The first error (in run order) wins.
	out := make([]*schema.RunData, len(runs))
	errs := make([]error, len(runs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(runs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = ReadRun(root, runs[i])
			}
		}()
	}
	for i := range runs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func readTable[T any](root, table, run string) (rows []T, err error) {
	path := filepath.Join(PartitionDir(root, table, run), FileName)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	if v, _ := pf.Lookup(schema.VersionKey); v != schema.Version {
		return nil, fmt.Errorf("dataset: %s: schema version %q, this outlast reads %q", path, v, schema.Version)
	}
	// NewGenericReader panics on an incompatible schema (parquet-go's TODO);
	// turn that into an error naming the file.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("dataset: %s: %v", path, r)
		}
	}()
	rd := parquet.NewGenericReader[T](pf)
	defer rd.Close()
	// Read straight into the result in large batches: small batches make
	// parquet-go decode each page again per call (measured: 2× the time and
	// 4× the allocations with 1,024-row batches).
	rows = make([]T, pf.NumRows())
	read := 0
	for read < len(rows) {
		n, err := rd.Read(rows[read:min(len(rows), read+MaxRowsPerRowGroup)])
		read += n
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("dataset: %s: %w", path, err)
		}
	}
	if read != len(rows) {
		return nil, fmt.Errorf("dataset: %s: read %d rows, footer says %d", path, read, len(rows))
	}
	return rows, nil
}
