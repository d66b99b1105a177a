package dataset

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/outlast-dev/outlast/schema"
)

// SortedWriter streams one run's table into its staged file, rows given in
// any order, the file sorted by compare (see ReorderWindow). compare must
// be a total order on the rows given, so that the file does not depend on
// their order. It takes rows, not pointers: through a function value a
// pointer escapes, and every comparison would allocate. Memory stays bounded: the reorder window, up to
// LateSpillRows late rows, and the Parquet writer's current row group.
//
// Rows are sorted on a goroutine of the writer's own, started by the
// first full batch of rows, so that Add costs its caller (the gateway's
// collector, the serial stage of reading a large log) only a copy: the
// window, its sort and its merge were a third of that stage. A run too
// small to fill a batch is sorted at Close, on the caller's goroutine.
type SortedWriter[T any] struct {
	path, what string
	spillDir   string
	prefix     string // of the spill files' names
	compare    func(a, b T) int
	spec       fileSpec
	run        string
	out        *rowWriter[T]
	window     []T
	sorted     int // window[:sorted] is in order
	scratch    []T // for schema.MergeSorted
	last       T   // the largest row written
	written    bool
	late       []T
	spills     []string
	spilled    bool // spillDir was made
	fix        func(*T)
	syncer     *fileSyncer // of the finished file

	in      []T           // rows given to Add, not yet handed over
	batches chan []T      // rows for the sorting goroutine, nil until it starts
	spent   chan []T      // batches it is done with, for Add to reuse
	done    chan struct{} // closed when the sorting goroutine has ended
	err     error         // its first error, read after done
}

func newSortedWriter[T any](path, what, spillDir, prefix string, compare func(a, b T) int, spec fileSpec, run string, syncer *fileSyncer) (*SortedWriter[T], error) {
	out, err := newRowWriter[T](path, what, &spec, run, true)
	if err != nil {
		return nil, err
	}
	return &SortedWriter[T]{path: path, what: what, spillDir: spillDir, prefix: prefix, compare: compare, spec: spec, run: run, out: out, syncer: syncer}, nil
}

// Add takes one row. An error of the sorting goroutine's is returned by a
// later Add or by Close.
func (sw *SortedWriter[T]) Add(row T) error {
	if sw.in == nil {
		sw.in = getRows[T](false)
	}
	sw.in = append(sw.in, row)
	if len(sw.in) < sortBatch {
		return nil
	}
	if sw.batches == nil {
		// Two batches in flight, and one being filled.
		sw.batches, sw.spent, sw.done = make(chan []T, 2), make(chan []T, 3), make(chan struct{})
		sw.spent <- nil
		sw.spent <- nil
		go sw.sortBatches()
	}
	select {
	case <-sw.done:
		return sw.err // stopped on an error
	default:
	}
	sw.batches <- sw.in
	sw.in = <-sw.spent // nil at first: Add grows it
	return nil
}

// sortBatches takes the batches of rows Add hands over, until they end.
// After an error it takes them without looking, so that Add never waits.
func (sw *SortedWriter[T]) sortBatches() {
	defer close(sw.done)
	for b := range sw.batches {
		if sw.err == nil {
			sw.err = sw.addAll(b)
		}
		clear(b) // drop string references
		sw.spent <- b[:0]
	}
}

// stopSorting ends the sorting goroutine, if it was started, and sorts
// the rows Add holds: every row given is then in the window, late or
// written.
func (sw *SortedWriter[T]) stopSorting() error {
	if sw.batches != nil {
		close(sw.batches)
		<-sw.done
		sw.batches = nil
		if sw.err != nil {
			return sw.err
		}
		for len(sw.spent) > 0 { // the goroutine has ended: nothing else sends
			putRows(<-sw.spent, false)
		}
	}
	err := sw.addAll(sw.in)
	clear(sw.in)
	if err == nil {
		putRows(sw.in, false)
	}
	sw.in = nil
	return err
}

// addAll places rows in the window or among the late rows.
func (sw *SortedWriter[T]) addAll(rows []T) error {
	for _, row := range rows {
		if err := sw.add(row); err != nil {
			return err
		}
	}
	return nil
}

// add places one row.
func (sw *SortedWriter[T]) add(row T) error {
	if sw.written && sw.compare(row, sw.last) < 0 {
		sw.late = append(sw.late, row)
		if len(sw.late) == lateSpillRows {
			return sw.spill()
		}
		return nil
	}
	// The window grows as rows come, so a small table does not pay for a
	// full one; it starts as an earlier run's, if there is one.
	if sw.window == nil {
		sw.window = getRows[T](true)
	}
	sw.window = append(sw.window, row)
	if len(sw.window) == 2*reorderWindow {
		return sw.drain(reorderWindow)
	}
	return nil
}

// Fix sets a function applied to every row as the file is completed, for
// the rare value known only at the end of the input (a session's turn
// count when turns follow its session_end). The rows already written are
// then read back and the file written again.
func (sw *SortedWriter[T]) Fix(fix func(*T)) { sw.fix = fix }

func (sw *SortedWriter[T]) sort(rows []T) {
	slices.SortFunc(rows, sw.compare)
}

// drain sorts the window and writes its n smallest rows.
func (sw *SortedWriter[T]) drain(n int) error {
	w := sw.window
	// The rows kept from the last drain are in order; the new ones, nearly
	// so, are sorted and merged in, and in nearly sorted input only the few
	// rows where the two meet move. Sorting the whole window again cost
	// twice as much. compare is a total order, so the result is the one
	// order of these rows.
	sw.sort(w[sw.sorted:])
	sw.scratch = schema.MergeSorted(w, sw.sorted, sw.scratch, sw.compare)
	for i := range w[:n] {
		if err := sw.out.add(w[i]); err != nil {
			return err
		}
	}
	if n > 0 {
		sw.last, sw.written = w[n-1], true
	}
	rest := copy(w, w[n:])
	clear(w[rest:])
	sw.window, sw.sorted = w[:rest], rest
	return nil
}

// spill writes the late rows, sorted, to a temporary file.
func (sw *SortedWriter[T]) spill() error {
	sw.sort(sw.late)
	if err := sw.mkSpillDir(); err != nil {
		return err
	}
	path := filepath.Join(sw.spillDir, fmt.Sprintf("%s-%d.parquet", sw.prefix, len(sw.spills)))
	// Uncompressed: the file is read once, soon, and deleted.
	w, err := newRowWriter[T](path, sw.prefix+" spill", nil, "", false)
	if err != nil {
		return err
	}
	for _, t := range sw.late {
		if err := w.add(t); err != nil {
			w.close(nil)
			return err
		}
	}
	if err := w.close(nil); err != nil {
		return err
	}
	sw.spills = append(sw.spills, path)
	clear(sw.late)
	sw.late = sw.late[:0]
	return nil
}

func (sw *SortedWriter[T]) mkSpillDir() error {
	sw.spilled = true
	return os.MkdirAll(sw.spillDir, 0o777)
}

// Close writes the rest and completes the file, merging late rows in.
func (sw *SortedWriter[T]) Close() error {
	if err := sw.stopSorting(); err != nil {
		sw.out.close(nil)
		return err
	}
	if err := sw.drain(len(sw.window)); err != nil {
		sw.out.close(nil)
		return err
	}
	// Drained: every element of the window is zero.
	putRows(sw.window, true)
	sw.window = nil
	if len(sw.late) == 0 && len(sw.spills) == 0 && sw.fix == nil {
		return sw.out.close(sw.syncer)
	}
	// Late rows or a fix: the file written so far is one sorted run among
	// others, read back and written again.
	if err := sw.out.close(nil); err != nil {
		return err
	}
	first := filepath.Join(sw.spillDir, sw.prefix+"-main.parquet")
	if err := sw.mkSpillDir(); err != nil {
		return err
	}
	if err := os.Rename(sw.path, first); err != nil {
		return err
	}
	sw.sort(sw.late)
	runs := []source[T]{&sliceSource[T]{rows: sw.late}}
	defer func() {
		for _, r := range runs {
			r.close()
		}
	}()
	for _, p := range append([]string{first}, sw.spills...) {
		fs, err := openFileSource[T](p)
		if err != nil {
			return err
		}
		runs = append(runs, fs)
	}
	out, err := newRowWriter[T](sw.path, sw.what, &sw.spec, sw.run, true)
	if err != nil {
		return err
	}
	emit := out.add
	if sw.fix != nil {
		emit = func(row T) error {
			sw.fix(&row)
			return out.add(row)
		}
	}
	if err := merge(runs, sw.compare, emit); err != nil {
		out.close(nil)
		return err
	}
	if err := out.close(sw.syncer); err != nil {
		return err
	}
	for _, p := range append([]string{first}, sw.spills...) {
		os.Remove(p)
	}
	return nil
}

// abort closes the file without completing it.
func (sw *SortedWriter[T]) abort() {
	if sw.batches != nil {
		close(sw.batches)
		<-sw.done
		sw.batches = nil
	}
	sw.out.close(nil)
}

// source is one sorted run of rows for the merge.
type source[T any] interface {
	// peek returns the current row, or nil when the run is done.
	peek() (*T, error)
	advance()
	close()
}

type sliceSource[T any] struct {
	rows []T
	i    int
}

func (s *sliceSource[T]) peek() (*T, error) {
	if s.i == len(s.rows) {
		return nil, nil
	}
	return &s.rows[s.i], nil
}
func (s *sliceSource[T]) advance() { s.i++ }
func (s *sliceSource[T]) close()   {}

type fileSource[T any] struct {
	path string
	f    *os.File
	r    *parquet.GenericReader[T]
	buf  []T
	i, n int
	eof  bool
}

func openFileSource[T any](path string) (*fileSource[T], error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &fileSource[T]{path: path, f: f, r: parquet.NewGenericReader[T](f), buf: make([]T, 1024)}, nil
}

func (s *fileSource[T]) peek() (*T, error) {
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
func (s *fileSource[T]) advance() { s.i++ }
func (s *fileSource[T]) close()   { s.r.Close(); s.f.Close() }

// mergeHeap orders sources by their current row.
type mergeHeap[T any] struct {
	src     []source[T]
	cur     []*T
	compare func(a, b T) int
}

func (h *mergeHeap[T]) Len() int           { return len(h.src) }
func (h *mergeHeap[T]) Less(i, j int) bool { return h.compare(*h.cur[i], *h.cur[j]) < 0 }
func (h *mergeHeap[T]) Swap(i, j int) {
	h.src[i], h.src[j] = h.src[j], h.src[i]
	h.cur[i], h.cur[j] = h.cur[j], h.cur[i]
}
func (h *mergeHeap[T]) Push(x any) { panic("unused") }
func (h *mergeHeap[T]) Pop() any {
	n := len(h.src) - 1
	h.src, h.cur = h.src[:n], h.cur[:n]
	return nil
}

// merge calls emit with the rows of the sorted runs in order.
func merge[T any](runs []source[T], compare func(a, b T) int, emit func(T) error) error {
	h := &mergeHeap[T]{compare: compare}
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
