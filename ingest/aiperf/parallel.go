package aiperf

import (
	"bytes"
	"io"
	"runtime"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
	"github.com/outlast-dev/outlast/ingest/internal/ordered"
	"github.com/outlast-dev/outlast/textpos"
)

// chunkSize is how many bytes of whole lines one parsing goroutine takes
// at a time (some 400 records); tests make it small.
var chunkSize = 512 << 10

// batch is one chunk of input lines and what parsing made of them.
type batch struct {
	chunk      []byte
	first      int // line number of the chunk's first line
	items      []item
	blank      int
	firstBlank textpos.Pos
	lastLine   int
	truncated  bool  // the input's last line, in this chunk, has no newline
	err        error // a read error instead of a chunk
}

// item is one non-blank line: its turn, or why it is bad.
type item struct {
	turn   loadgen.Turn // Pos and Raw are always set
	times  [3]float64
	warmup bool
	client bool // prompt tokens from the client-side count
	err    *lineError
}

// pipeline reads chunks on one goroutine, parses them on GOMAXPROCS
// goroutines and hands them out in input order.
type pipeline struct {
	*ordered.Pipeline[*batch]
	free chan *batch // released batches, for their buffers
	// size is chunkSize when the pipeline started: the reading goroutine
	// must not look at the variable, which tests change between readers.
	size int
}

func startPipeline(lr *lineio.Reader, t0ns int64) *pipeline {
	workers := runtime.GOMAXPROCS(0)
	p := &pipeline{free: make(chan *batch, 4*workers), size: chunkSize}
	name := lr.Name()
	p.Pipeline = ordered.Start(workers, p.reader(lr), func() func(*batch) {
		var ps parser
		return func(b *batch) {
			if b.err == nil {
				ps.parseChunk(b, name, t0ns)
			}
		}
	})
	return p
}

// reader returns the function that cuts lr into batches.
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
		*b = batch{chunk: chunk, first: first, items: b.items[:0]}
		if err == io.EOF {
			return nil, false
		}
		if err != nil {
			b.err, failed = err, true
			return b, true
		}
		b.truncated = lr.Truncated()
		return b, true
	}
}

// parseChunk parses every line of b.chunk into b.items.
func (ps *parser) parseChunk(b *batch, name string, t0ns int64) {
	data := b.chunk
	line := b.first
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
		if len(bytes.TrimSpace(raw)) == 0 {
			if b.blank == 0 {
				b.firstBlank = pos
			}
			b.blank++
			continue
		}
		b.items = append(b.items, item{})
		it := &b.items[len(b.items)-1]
		it.turn = loadgen.Turn{Pos: pos, Raw: raw}
		it.warmup, it.err = ps.parse(raw, &it.turn, &it.times, t0ns)
		it.client = ps.clientTokens
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
	clear(b.items)
	select {
	case p.free <- b:
	default:
	}
}
