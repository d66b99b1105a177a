package dataset

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/outlast-dev/outlast/schema"
	"github.com/parquet-go/parquet-go"
)

// The turns table of a large gateway log does not fit in memory, so it
// streams: turns arrive in completion order, which is nearly the table's
// order (done_s, session, turn). A TurnWriter keeps a reorder window and
// writes the smallest rows once the window is full. A row smaller than one
// already written (disorder wider than the window) is "late": late rows
// are kept aside, sorted and spilled to temporary Parquet files when many,
// and at the end the written file, the spills and the rest are merged into
// the final file. Either way the file holds the same rows in the same
// order, written in the same batches, so its bytes do not depend on the
// input's order or on which path was taken.
const (
	// ReorderWindow is how many rows of disorder cost nothing: twice as
	// many rows are buffered, sorted, and the smaller half written.
	ReorderWindow = 16 << 10
	// LateSpillRows is how many late rows are kept in memory before they
	// are sorted and spilled to a temporary file.
	LateSpillRows = 128 << 10
	// writeBatch is the number of rows handed to the Parquet writer at a
	// time. Every writer uses it, from the first row of the file, so that
	// the same rows give the same pages whichever way they came.
	writeBatch = 8192
)

// reorderWindow and lateSpillRows are the values in use; tests make them
// small to exercise every path.
var (
	reorderWindow = ReorderWindow
	lateSpillRows = LateSpillRows
)

// CompareTurns orders turns as the turns table is sorted: by done_s, then
// session, then turn.
func CompareTurns(a, b *schema.Turn) int {
	return cmp.Or(cmp.Compare(a.DoneS, b.DoneS), strings.Compare(a.Session, b.Session), cmp.Compare(a.Turn, b.Turn))
}

// rowWriter hands rows to a Parquet writer in batches of writeBatch. An
// async rowWriter encodes and compresses on its own goroutine, so that
// this work (the larger half of writing the turns) overlaps with parsing
// and collecting.
type rowWriter[T any] struct {
	f    *os.File
	w    *parquet.GenericWriter[T]
	buf  []T
	what string

	async bool
	full  chan []T      // batches to write, in order
	free  chan []T      // written batches, for reuse
	done  chan struct{} // closed when the goroutine has written every batch
	err   error         // the goroutine's first error, read after done

	closed bool
}

func newRowWriter[T any](path, what string, opts []parquet.WriterOption, async bool) (*rowWriter[T], error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	rw := &rowWriter[T]{f: f, w: parquet.NewGenericWriter[T](f, opts...), buf: make([]T, 0, writeBatch), what: what, async: async}
	if async {
		// Two batches in flight: enough to keep both sides busy.
		rw.full, rw.free, rw.done = make(chan []T, 2), make(chan []T, 3), make(chan struct{})
		rw.free <- make([]T, 0, writeBatch)
		rw.free <- make([]T, 0, writeBatch)
		go rw.run()
	}
	return rw, nil
}

func (rw *rowWriter[T]) run() {
	defer close(rw.done)
	for b := range rw.full {
		if rw.err == nil {
			rw.err = rw.write(b)
		}
		clear(b) // drop string references
		rw.free <- b[:0]
	}
}

func (rw *rowWriter[T]) write(b []T) error {
	if _, err := rw.w.Write(b); err != nil {
		return fmt.Errorf("dataset: write %s: %w", rw.what, err)
	}
	return nil
}

func (rw *rowWriter[T]) add(row T) error {
	rw.buf = append(rw.buf, row)
	if len(rw.buf) == writeBatch {
		return rw.flush()
	}
	return nil
}

func (rw *rowWriter[T]) flush() error {
	if len(rw.buf) == 0 {
		return nil
	}
	if !rw.async {
		err := rw.write(rw.buf)
		clear(rw.buf)
		rw.buf = rw.buf[:0]
		return err
	}
	select {
	case <-rw.done:
		return rw.err // the goroutine stopped on an error
	default:
	}
	rw.full <- rw.buf
	rw.buf = <-rw.free
	return nil
}

// close finishes the file; with sync it is flushed to disk first. Closing
// again does nothing.
func (rw *rowWriter[T]) close(sync bool) error {
	if rw.closed {
		return nil
	}
	rw.closed = true
	err := rw.flush()
	if rw.async {
		close(rw.full)
		<-rw.done
		if err == nil {
			err = rw.err
		}
	}
	if err == nil {
		if err = rw.w.Close(); err != nil {
			err = fmt.Errorf("dataset: close %s: %w", rw.what, err)
		}
	}
	if err == nil && sync {
		err = rw.f.Sync()
	}
	if cerr := rw.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// TurnWriter streams one run's turns into its staged file, in any input
// order (see ReorderWindow). Memory stays bounded: the reorder window,
// up to LateSpillRows late rows, and the Parquet writer's current row
// group.
type TurnWriter struct {
	path, what string
	spillDir   string
	opts       []parquet.WriterOption
	out        *rowWriter[schema.Turn]
	window     []schema.Turn
	last       schema.Turn // the largest row written
	written    bool
	late       []schema.Turn
	spills     []string
	n          int64
}

func newTurnWriter(path, what, spillDir string, opts []parquet.WriterOption) (*TurnWriter, error) {
	out, err := newRowWriter[schema.Turn](path, what, opts, true)
	if err != nil {
		return nil, err
	}
	return &TurnWriter{path: path, what: what, spillDir: spillDir, opts: opts, out: out, window: make([]schema.Turn, 0, 2*reorderWindow)}, nil
}

// Add takes one turn.
func (tw *TurnWriter) Add(t schema.Turn) error {
	tw.n++
	if tw.written && CompareTurns(&t, &tw.last) < 0 {
		tw.late = append(tw.late, t)
		if len(tw.late) == lateSpillRows {
			return tw.spill()
		}
		return nil
	}
	tw.window = append(tw.window, t)
	if len(tw.window) == cap(tw.window) {
		return tw.drain(reorderWindow)
	}
	return nil
}

// Rows returns the number of turns added.
func (tw *TurnWriter) Rows() int64 { return tw.n }

// drain sorts the window and writes its n smallest rows.
func (tw *TurnWriter) drain(n int) error {
	w := tw.window
	// Nearly sorted input: pdqsort finds the runs, so this is about linear.
	slices.SortFunc(w, func(a, b schema.Turn) int { return CompareTurns(&a, &b) })
	for i := range w[:n] {
		if err := tw.out.add(w[i]); err != nil {
			return err
		}
	}
	if n > 0 {
		tw.last, tw.written = w[n-1], true
	}
	rest := copy(w, w[n:])
	clear(w[rest:])
	tw.window = w[:rest]
	return nil
}

// spill writes the late rows, sorted, to a temporary file.
func (tw *TurnWriter) spill() error {
	slices.SortFunc(tw.late, func(a, b schema.Turn) int { return CompareTurns(&a, &b) })
	if err := os.MkdirAll(tw.spillDir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(tw.spillDir, fmt.Sprintf("turns-%d.parquet", len(tw.spills)))
	// Uncompressed: the file is read once, soon, and deleted.
	sw, err := newRowWriter[schema.Turn](path, "turns spill", nil, false)
	if err != nil {
		return err
	}
	for _, t := range tw.late {
		if err := sw.add(t); err != nil {
			sw.close(false)
			return err
		}
	}
	if err := sw.close(false); err != nil {
		return err
	}
	tw.spills = append(tw.spills, path)
	clear(tw.late)
	tw.late = tw.late[:0]
	return nil
}

// Close writes the rest and completes the file, merging late rows in.
func (tw *TurnWriter) Close() error {
	if err := tw.drain(len(tw.window)); err != nil {
		tw.out.close(false)
		return err
	}
	if len(tw.late) == 0 && len(tw.spills) == 0 {
		return tw.out.close(true)
	}
	// Late rows: the file written so far is one sorted run among others.
	if err := tw.out.close(false); err != nil {
		return err
	}
	first := filepath.Join(tw.spillDir, "turns-main.parquet")
	if err := os.MkdirAll(tw.spillDir, 0o755); err != nil {
		return err
	}
	if err := os.Rename(tw.path, first); err != nil {
		return err
	}
	slices.SortFunc(tw.late, func(a, b schema.Turn) int { return CompareTurns(&a, &b) })
	runs := []turnSource{&sliceSource{rows: tw.late}}
	defer func() {
		for _, r := range runs {
			r.close()
		}
	}()
	for _, p := range append([]string{first}, tw.spills...) {
		fs, err := openFileSource(p)
		if err != nil {
			return err
		}
		runs = append(runs, fs)
	}
	out, err := newRowWriter[schema.Turn](tw.path, tw.what, tw.opts, true)
	if err != nil {
		return err
	}
	if err := mergeTurns(runs, out.add); err != nil {
		out.close(false)
		return err
	}
	if err := out.close(true); err != nil {
		return err
	}
	for _, p := range append([]string{first}, tw.spills...) {
		os.Remove(p)
	}
	return nil
}

// abort closes the file without completing it.
func (tw *TurnWriter) abort() {
	tw.out.close(false)
}

// turnSource is one sorted run of turns for the merge.
type turnSource interface {
	// peek returns the current row, or nil when the run is done.
	peek() (*schema.Turn, error)
	advance()
	close()
}

type sliceSource struct {
	rows []schema.Turn
	i    int
}

func (s *sliceSource) peek() (*schema.Turn, error) {
	if s.i == len(s.rows) {
		return nil, nil
	}
	return &s.rows[s.i], nil
}
func (s *sliceSource) advance() { s.i++ }
func (s *sliceSource) close()   {}

type fileSource struct {
	path string
	f    *os.File
	r    *parquet.GenericReader[schema.Turn]
	buf  []schema.Turn
	i, n int
	eof  bool
}

func openFileSource(path string) (*fileSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &fileSource{path: path, f: f, r: parquet.NewGenericReader[schema.Turn](f), buf: make([]schema.Turn, 1024)}, nil
}

func (s *fileSource) peek() (*schema.Turn, error) {
	for s.i == s.n {
		if s.eof {
			return nil, nil
		}
		n, err := s.r.Read(s.buf)
		s.i, s.n = 0, n
		if errors.Is(err, io.EOF) {
			s.eof = true
		} else if err != nil {
			return nil, fmt.Errorf("dataset: read back %s: %w", filepath.Base(s.path), err)
		}
	}
	return &s.buf[s.i], nil
}
func (s *fileSource) advance() { s.i++ }
func (s *fileSource) close()   { s.r.Close(); s.f.Close() }

// mergeHeap orders sources by their current row.
type mergeHeap struct {
	src []turnSource
	cur []*schema.Turn
}

func (h *mergeHeap) Len() int           { return len(h.src) }
func (h *mergeHeap) Less(i, j int) bool { return CompareTurns(h.cur[i], h.cur[j]) < 0 }
func (h *mergeHeap) Swap(i, j int) {
	h.src[i], h.src[j] = h.src[j], h.src[i]
	h.cur[i], h.cur[j] = h.cur[j], h.cur[i]
}
func (h *mergeHeap) Push(x any) { panic("unused") }
func (h *mergeHeap) Pop() any {
	n := len(h.src) - 1
	h.src, h.cur = h.src[:n], h.cur[:n]
	return nil
}

// mergeTurns calls emit with the rows of the sorted runs in order.
func mergeTurns(runs []turnSource, emit func(schema.Turn) error) error {
	h := &mergeHeap{}
	for _, r := range runs {
		t, err := r.peek()
		if err != nil {
			return err
		}
		if t != nil {
			h.src, h.cur = append(h.src, r), append(h.cur, t)
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		if err := emit(*h.cur[0]); err != nil {
			return err
		}
		h.src[0].advance()
		t, err := h.src[0].peek()
		if err != nil {
			return err
		}
		if t == nil {
			heap.Pop(h)
			continue
		}
		h.cur[0] = t
		heap.Fix(h, 0)
	}
	return nil
}
