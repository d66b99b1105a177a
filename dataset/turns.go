package dataset

import (
	"bufio"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"sync"

	"github.com/parquet-go/parquet-go"
)

// The turns and sessions tables of a large gateway log do not fit in
// memory, so they stream: turns arrive in completion order, which is nearly
// the table's order (done_s, session, turn), and sessions as they end,
// near their order (arrive_s, session). A SortedWriter keeps a reorder
// window and writes the smallest rows once the window is full. A row smaller than one
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

// reorderWindow, lateSpillRows and sortBatch (the rows a SortedWriter
// hands its sorting goroutine at a time) are the values in use; tests make
// them small to exercise every path.
var (
	reorderWindow = ReorderWindow
	lateSpillRows = LateSpillRows
	sortBatch     = writeBatch
)

// fileBuffers are the write buffers of the files being written, reused
// from file to file: fewer, larger writes than parquet-go's default of 32
// KB (a system call every few hundred turns), without allocating and
// clearing a megabyte for each of a run's five files. A channel, not a
// sync.Pool, which every collection empties: a campaign made a new buffer
// every dozen runs.
var fileBuffers = make(chan *bufio.Writer, 4*runtime.GOMAXPROCS(0))

func getFileBuffer() *bufio.Writer {
	select {
	case bw := <-fileBuffers:
		return bw
	default:
		return bufio.NewWriterSize(nil, 1<<20)
	}
}

func putFileBuffer(bw *bufio.Writer) {
	bw.Reset(nil)
	select {
	case fileBuffers <- bw:
	default:
	}
}

// rowBuffers keeps the zeroed row buffers of finished writers for the next
// run's, one pool per row type and use: a campaign's runs each fill a
// reorder window and write batches, and making them anew cost the
// allocation and clearing of megabytes a run. A buffer is given back with
// every element zero, so that it holds no strings alive.
var rowBuffers sync.Map // rowBufferKey → *sync.Pool of *[]T

type rowBufferKey struct {
	t      reflect.Type
	window bool // a SortedWriter's window, not a rowWriter's batch
}

// getRows returns an empty buffer, nil when the pool has none.
func getRows[T any](window bool) []T {
	if p, ok := rowBuffers.Load(rowBufferKey{reflect.TypeFor[T](), window}); ok {
		if b, ok := p.(*sync.Pool).Get().(*[]T); ok {
			return (*b)[:0]
		}
	}
	return nil
}

// putRows gives back a buffer whose elements are all zero.
func putRows[T any](b []T, window bool) {
	if cap(b) == 0 {
		return
	}
	p, _ := rowBuffers.LoadOrStore(rowBufferKey{reflect.TypeFor[T](), window}, new(sync.Pool))
	p.(*sync.Pool).Put(&b)
}

// rowWriter hands rows to a Parquet writer in batches of writeBatch. An
// async rowWriter encodes and compresses on its own goroutine, so that
// this work (the larger half of writing the turns) overlaps with parsing
// and collecting. Its buffers grow with the rows given, up to a batch, so
// that the small tables of a run cost little to write.
type rowWriter[T any] struct {
	f    *os.File
	bw   *bufio.Writer // the file's buffer, from fileBuffers
	w    *parquet.GenericWriter[T]
	spec *fileSpec // of a table's file, whose writer is reused; nil for a spill
	buf  []T
	what string

	async bool
	full  chan []T      // batches to write, in order
	free  chan []T      // written batches, for reuse
	done  chan struct{} // closed when the goroutine has written every batch
	err   error         // the goroutine's first error, read after done

	closed bool
}

// newRowWriter writes a new file at path, whose directory exists: run's
// file of a table (spec), or, with spec nil, a spill file, uncompressed.
func newRowWriter[T any](path, what string, spec *fileSpec, run string, async bool) (*rowWriter[T], error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	bw := getFileBuffer()
	bw.Reset(f)
	rw := &rowWriter[T]{f: f, bw: bw, spec: spec, what: what, async: async}
	if spec != nil {
		rw.w = getWriter[T](*spec, run, bw)
	} else {
		// The file is buffered here, so parquet-go's own buffer is turned off.
		rw.w = parquet.NewGenericWriter[T](bw, parquet.WriteBufferSize(0))
	}
	if async {
		// Up to asyncBatches batches in flight, made as they are first
		// needed: a SortedWriter hands over a reorder window's worth at
		// once (two batches), and with room for one more only, the caller
		// (the gateway's collector, the run's serial stage) waited on
		// the writer's compression.
		rw.full, rw.free, rw.done = make(chan []T, asyncBatches), make(chan []T, asyncBatches+1), make(chan struct{})
		for range asyncBatches - 1 {
			rw.free <- nil
		}
		go rw.run()
	}
	return rw, nil
}

// asyncBatches is how many batches an async rowWriter holds at most.
const asyncBatches = 4

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
	if rw.buf == nil {
		rw.buf = getRows[T](false)
	}
	rw.buf = append(rw.buf, row)
	if len(rw.buf) == writeBatch {
		return rw.flush()
	}
	return nil
}

// writeAll writes rows to a writer given none yet, in the batches add
// would make of them, but straight from rows: a run's table is already in
// memory, and copying its rows into a batch first (an engine sample is
// over 200 bytes) was a quarter of writing an SGLang run's engine table.
func (rw *rowWriter[T]) writeAll(rows []T) error {
	if rw.async || len(rw.buf) != 0 {
		panic("dataset: writeAll on an async writer or after add")
	}
	for len(rows) > 0 {
		n := min(len(rows), writeBatch)
		if err := rw.write(rows[:n]); err != nil {
			return err
		}
		rows = rows[n:]
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
	rw.buf = <-rw.free // nil at first: add grows it
	return nil
}

// close finishes the file. With a syncer the file is then flushed to disk
// and closed on the syncer's goroutines (wait for them); without, it is
// closed at once. Closing again does nothing.
func (rw *rowWriter[T]) close(syncer *fileSyncer) error {
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
	if ferr := rw.bw.Flush(); err == nil {
		err = ferr
	}
	if err == nil && rw.spec != nil {
		putWriter(*rw.spec, rw.w)
	}
	rw.w = nil
	putFileBuffer(rw.bw)
	rw.giveBack()
	if err == nil && syncer != nil {
		syncer.syncClose(rw.f)
		return nil
	}
	if cerr := rw.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// giveBack gives the writer's batches back to rowBuffers once its
// goroutine, if any, is done with them.
func (rw *rowWriter[T]) giveBack() {
	if rw.err != nil {
		return // a batch may not have been cleared
	}
	putRows(rw.buf, false)
	rw.buf = nil
	if !rw.async {
		return
	}
	for {
		select {
		case b := <-rw.free:
			putRows(b, false)
		default:
			return
		}
	}
}

// fileSyncer flushes files to disk and closes them, each on a goroutine of
// its own: a run's files then wait for the disk together rather than one
// after another, while the next file is being written. Where the stage is
// synced whole at Commit (syncEachFile false), it only closes them.
type fileSyncer struct {
	wg  sync.WaitGroup
	mu  sync.Mutex
	err error // the first error
}

func (s *fileSyncer) syncClose(f *os.File) {
	if !syncEachFile {
		// Commit syncs the whole stage at once (sync_linux.go).
		startWriteback(f)
		s.record(f.Close())
		return
	}
	s.wg.Go(func() {
		err := f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		s.record(err)
	})
}

// record keeps err if it is the first.
func (s *fileSyncer) record(err error) {
	if err == nil {
		return
	}
	s.mu.Lock()
	if s.err == nil {
		s.err = fmt.Errorf("dataset: %w", err)
	}
	s.mu.Unlock()
}

// wait returns once every file given to syncClose is on disk and closed,
// with the first error.
func (s *fileSyncer) wait() error {
	s.wg.Wait()
	return s.err
}
