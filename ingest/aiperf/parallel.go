package aiperf

import (
	"bytes"

	"github.com/outlast-dev/outlast/ingest/internal/jsondoc"
	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
	"github.com/outlast-dev/outlast/ingest/internal/pipeline"
	"github.com/outlast-dev/outlast/textpos"
)

// chunkSize is how many bytes of whole lines one parsing goroutine takes
// at a time (some 400 records); tests make it small.
var chunkSize = 512 << 10

// item is one non-blank line: its turn, or why it is bad.
type item struct {
	turn    loadgen.Turn // Pos and Raw are always set
	times   [3]float64
	warmup  bool
	client  bool  // prompt tokens from the client-side count
	shifted bool  // times moved by the record's clock_offset_ns
	offset  int64 // that offset, ns
	// conversation is the record's conversation_id, "" without one.
	conversation string
	err          *jsondoc.Err
}

// batch is one chunk of input lines and the items parsing made of them.
type batch = pipeline.Batch[item, struct{}]

// newWorker returns the work function of one parsing goroutine, with a
// parser of its own.
func newWorker(t0ns int64) func() func(*batch) {
	return func() func(*batch) {
		var ps parser
		line := func(raw []byte, pos textpos.Pos, it *item) {
			it.turn = loadgen.Turn{Pos: pos, Raw: raw}
			it.warmup, it.err = ps.parse(raw, &it.turn, &it.times, t0ns)
			it.client, it.shifted, it.offset, it.conversation = ps.clientTokens, ps.shifted, ps.offsetNs, ps.conversation
		}
		return func(b *batch) { b.Parse(isBlank, line) }
	}
}

// isBlank reports whether a line is only white space.
func isBlank(raw []byte) bool { return len(bytes.TrimSpace(raw)) == 0 }
