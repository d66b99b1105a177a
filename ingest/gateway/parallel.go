package gateway

import (
	"bytes"
	"io"
	"runtime"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/ordered"
	"github.com/outlast-dev/outlast/textpos"
)

// ChunkSize is how many bytes of whole lines one parsing goroutine takes
// at a time: large enough that handing chunks over costs nothing next to
// parsing them (about 1,700 turn lines), small enough that the chunks in
// flight (a few per goroutine) stay a few megabytes.
const ChunkSize = 512 << 10

// chunkSize is ChunkSize; tests make it small to cut inputs into many chunks.
var chunkSize = ChunkSize

// batch is one chunk of input lines and what parsing made of them.
type batch struct {
	chunk      []byte
	first      int // line number of the chunk's first line
	items      []item
	blank      int
	firstBlank textpos.Pos
	last       bool  // the input's last chunk
	lastLine   int   // line number of the chunk's last line
	truncated  bool  // the last chunk's last line has no newline
	err        error // a read error instead of a chunk
	// boxes holds the batch's turns; it is reused with the batch, since
	// the consumer copies each turn before it releases the batch.
	boxes []turnBox
}

// item is one non-blank line: its record, or why it is bad (rec.Pos and
// rec.Raw are set either way).
type item struct {
	rec Record
	err *lineError
}

// pipeline reads chunks on one goroutine, parses them on GOMAXPROCS
// goroutines, and hands them out in input order.
type pipeline struct {
	*ordered.Pipeline[*batch]
	// free holds released batches for reuse of their buffers. A channel,
	// not a sync.Pool: a pool is emptied by every GC, and reallocating
	// the buffers would make more garbage.
	free chan *batch
	// size is chunkSize when the pipeline started: the reading goroutine
	// must not look at the variable, which tests change between readers.
	size int
}

func startPipeline(lr *lineio.Reader, t0 time.Time) *pipeline {
	workers := runtime.GOMAXPROCS(0)
	p := &pipeline{free: make(chan *batch, 4*workers), size: chunkSize}
	name := lr.Name()
	p.Pipeline = ordered.Start(workers, p.reader(lr), func() func(*batch) {
		r := newParser(t0)
		return func(b *batch) {
			if b.err == nil {
				r.parseChunk(b, name)
			}
		}
	})
	return p
}

// reader returns the function that cuts lr into batches, reusing released
// ones; a read error ends the input with a batch that carries it.
func (p *pipeline) reader(lr *lineio.Reader) func() (*batch, bool) {
	failed := false
	return func() (*batch, bool) {
		if failed {
			return nil, false
		}
		var b *batch
		select {
		case b = <-p.free:
		default:
			b = &batch{}
		}
		chunk, first, err := lr.NextChunk(b.chunk[:0], p.size)
		*b = batch{chunk: chunk, first: first, items: b.items[:0], boxes: b.boxes[:0]}
		if err == io.EOF {
			return nil, false
		}
		if err != nil {
			b.err, failed = err, true
			return b, true
		}
		// Only the input's last line can lack a newline, so a chunk that
		// ends without one is the last.
		b.truncated = lr.Truncated()
		b.last = b.truncated
		return b, true
	}
}

// parseChunk parses every line of b.chunk into b.items.
func (r *Reader) parseChunk(b *batch, name string) {
	data := b.chunk
	line := b.first
	r.boxes = b.boxes
	defer func() { b.boxes, r.boxes = r.boxes, nil }()
	for len(data) > 0 {
		raw := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if n := len(raw); n > 0 && raw[n-1] == '\r' {
			raw = raw[:n-1]
		}
		pos := textpos.Pos{File: name, Line: line}
		b.lastLine = line
		line++
		if skipSpace(raw, 0) == len(raw) {
			if b.blank == 0 {
				b.firstBlank = pos
			}
			b.blank++
			continue
		}
		rec, ok := r.fastTurn(raw, pos)
		var err *lineError
		if !ok {
			if rec, err = r.parse(raw, pos); err != nil {
				rec = Record{Pos: pos, Raw: raw}
			}
		}
		b.items = append(b.items, item{rec: rec, err: err})
	}
}

// next returns the next batch once parsed, or io.EOF after the last.
func (p *pipeline) next() (*batch, error) {
	b, ok := p.Next()
	if !ok {
		return nil, io.EOF
	}
	if b.err != nil {
		return nil, b.err
	}
	return b, nil
}

// release recycles a batch the consumer is done with.
func (p *pipeline) release(b *batch) {
	clear(b.items) // drop the records' pointers
	select {
	case p.free <- b:
	default:
	}
}
