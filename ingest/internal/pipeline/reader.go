package pipeline

import (
	"fmt"
	"io"
	"runtime"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/ordered"
	"github.com/outlast-dev/outlast/textpos"
)

// Reader hands out the items of a line reader's input in input order,
// parsed on GOMAXPROCS goroutines a chunk at a time. The goroutines start
// with the first call of Next.
type Reader[I, S any] struct {
	lr        *lineio.Reader
	size      int
	newWorker func() func(*Batch[I, S])

	pipe *ordered.Pipeline[*Batch[I, S]]
	free Free[I, S]
	cur  *Batch[I, S]
	idx  int

	blank      int
	firstBlank textpos.Pos
	ended      bool
	warnings   []string
}

// Free holds released batches for reuse of their buffers, by one reader or
// by all the readers of one format, whose batches then outlive a run: a
// campaign reads a thousand inputs of two chunks each, and making each
// one's chunks, items and scratch anew was a tenth of its allocation. A
// channel, not a sync.Pool: a pool is emptied by every GC, and
// reallocating the buffers would make more garbage.
type Free[I, S any] chan *Batch[I, S]

// NewFree returns a free list of a few batches per core.
func NewFree[I, S any]() Free[I, S] { return make(Free[I, S], 4*runtime.GOMAXPROCS(0)) }

// NewReader reads lr in chunks of about size bytes of whole lines. Each
// parsing goroutine gets its work function from newWorker (for a parser
// of its own) and calls it on batches as they come; the function fills
// the batch's items, usually through Batch.Parse. Batches are taken from
// and given back to free, or to a free list of the reader's own if free
// is nil. size is taken now, on the caller's goroutine: the reading
// goroutine must not look at a package's chunk size variable, which tests
// change between readers.
func NewReader[I, S any](lr *lineio.Reader, size int, free Free[I, S], newWorker func() func(*Batch[I, S])) *Reader[I, S] {
	return &Reader[I, S]{lr: lr, size: size, free: free, newWorker: newWorker}
}

func (r *Reader[I, S]) start() {
	workers := runtime.GOMAXPROCS(0)
	if r.free == nil {
		r.free = NewFree[I, S]()
	}
	r.pipe = ordered.Start(workers, r.chunks(), func() func(*Batch[I, S]) {
		work := r.newWorker()
		return func(b *Batch[I, S]) {
			if b.err == nil {
				work(b)
			}
		}
	})
}

// chunks returns the function that cuts the input into batches, reusing
// released ones; a read error ends the input with a batch that carries it.
func (r *Reader[I, S]) chunks() func() (*Batch[I, S], bool) {
	name := r.lr.Name()
	failed := false
	return func() (*Batch[I, S], bool) {
		if failed {
			return nil, false
		}
		var b *Batch[I, S]
		select {
		case b = <-r.free:
		default:
			b = &Batch[I, S]{}
		}
		chunk, first, err := r.lr.NextChunk(b.chunk[:0], r.size)
		*b = Batch[I, S]{Items: b.Items[:0], Scratch: b.Scratch, name: name, chunk: chunk, first: first}
		if err == io.EOF {
			return nil, false
		}
		if err != nil {
			b.err, failed = err, true
			return b, true
		}
		b.truncated = r.lr.Truncated()
		return b, true
	}
}

// Next returns the next item, or io.EOF after the last; other errors are
// read errors of the input. The item is valid until the next call.
// cutShort reports that the item is the input's last line and that line
// has no newline: the writer was stopped mid-line.
func (r *Reader[I, S]) Next() (it *I, cutShort bool, err error) {
	if r.pipe == nil {
		r.start()
	}
	for r.cur == nil || r.idx == len(r.cur.Items) {
		if r.cur != nil {
			r.release(r.cur)
			r.cur = nil
		}
		b, ok := r.pipe.Next()
		if !ok {
			r.end()
			return nil, false, io.EOF
		}
		if b.err != nil {
			return nil, false, b.err
		}
		if b.blank > 0 {
			if r.blank == 0 {
				r.firstBlank = b.firstBlank
			}
			r.blank += b.blank
		}
		r.cur, r.idx = b, 0
	}
	b := r.cur
	r.idx++
	cutShort = b.truncated && r.idx == len(b.Items) && b.lastItem == b.lastLine
	return &b.Items[r.idx-1], cutShort, nil
}

// release recycles a batch the consumer is done with, unless a long
// line made its chunk much larger than the others: kept, it would hold
// that memory for the rest of the campaign.
func (r *Reader[I, S]) release(b *Batch[I, S]) {
	if cap(b.chunk) > 2*r.size {
		return
	}
	clear(b.Items) // drop what the items point to
	select {
	case r.free <- b:
	default:
	}
}

// end notes, the first time the input ends, the blank lines read.
func (r *Reader[I, S]) end() {
	if r.ended {
		return
	}
	r.ended = true
	if r.blank > 0 {
		r.warnings = append(r.warnings, fmt.Sprintf("%s: %d blank line(s) ignored (first here)", r.firstBlank, r.blank))
	}
}

// CutShort warns that the input's last line, at pos, is cut short and
// ignored; why is what is wrong with it. Call it instead of reporting an
// error for an item Next gave as cut short, if the item is bad only
// because it ends early.
func (r *Reader[I, S]) CutShort(pos textpos.Pos, why string) {
	r.warnings = append(r.warnings, fmt.Sprintf("%s: the last line is cut short (%s): the run was stopped mid-write; line ignored", pos, why))
}

// Warnings returns the problems that did not stop reading: cut-short last
// lines and, once Next has returned io.EOF, the blank lines. The slice is
// the Reader's own; callers copy it.
func (r *Reader[I, S]) Warnings() []string { return r.warnings }

// Close stops the parsing goroutines and waits for them; the line reader
// may then be closed. Calling it again does nothing.
func (r *Reader[I, S]) Close() {
	if r.pipe != nil {
		r.pipe.Stop()
	}
}
