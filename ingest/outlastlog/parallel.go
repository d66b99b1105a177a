package outlastlog

import (
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/pipeline"
	"github.com/outlast-dev/outlast/textpos"
)

// ChunkSize is how many bytes of whole lines one parsing goroutine takes
// at a time: large enough that handing chunks over costs nothing next to
// parsing them (about 1,700 turn lines), small enough that the chunks in
// flight (a few per goroutine) stay a few megabytes.
const ChunkSize = 512 << 10

// chunkSize is ChunkSize; tests make it small to cut inputs into many chunks.
var chunkSize = ChunkSize

// item is one non-blank line: its record, or why it is bad (rec.Pos and
// rec.Raw are set either way).
type item struct {
	rec Record
	err *textpos.Reason
}

// batch is one chunk of input lines and the items parsing made of them.
// Its scratch holds the batch's turns; it is reused with the batch, since
// the consumer copies each turn before it releases the batch.
type batch = pipeline.Batch[item, []turnBox]

// newWorker returns the work function of one parsing goroutine, with a
// parser of its own.
func newWorker(t0 time.Time) func() func(*batch) {
	return func() func(*batch) {
		r := newParser(t0)
		line := r.parseLine
		return func(b *batch) {
			r.boxes = b.Scratch[:0]
			b.Parse(isBlank, line)
			b.Scratch, r.boxes = r.boxes, nil
		}
	}
}

// isBlank reports whether a line is only JSON white space.
func isBlank(raw []byte) bool { return skipSpace(raw, 0) == len(raw) }

// parseLine parses one non-blank line into it.
func (r *Reader) parseLine(raw []byte, pos textpos.Pos, it *item) {
	rec, ok := r.fastTurn(raw, pos)
	var err *textpos.Reason
	if !ok {
		if rec, err = r.parse(raw, pos); err != nil {
			rec = Record{Pos: pos, Raw: raw}
		}
	}
	*it = item{rec: rec, err: err}
}
