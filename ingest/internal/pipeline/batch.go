// Package pipeline parses a line reader's input on several goroutines: one
// goroutine cuts it into chunks of whole lines (lineio.Reader.NextChunk),
// GOMAXPROCS workers parse the chunks, and the consumer takes what they
// made line by line in input order (ordered.Pipeline), with exact
// positions, as a sequential reader would. The readers of the large
// line-oriented inputs (gateway.jsonl, AIPerf's profile_export.jsonl) share
// it.
package pipeline

import (
	"bytes"

	"github.com/outlast-dev/outlast/textpos"
)

// Batch is one chunk of input lines and what parsing made of them: an item
// of type I for each non-blank line, and scratch space S that is kept when
// the batch is reused (a slab the items point into, say).
type Batch[I, S any] struct {
	Items   []I
	Scratch S

	name       string // the input's name, for positions
	chunk      []byte
	first      int  // line number of the chunk's first line
	lastLine   int  // line number of the chunk's last line
	lastItem   int  // line number of the last non-blank line
	truncated  bool // the input's last line, in this chunk, has no newline
	blank      int  // blank lines, not parsed
	firstBlank textpos.Pos
	err        error // a read error instead of a chunk
}

// Parse calls parse on every line of the chunk that isBlank does not
// report, in order, each with its position (the line without its line
// ending) and a new zero item appended to Items; blank lines are counted
// instead. Items move as the slice grows: a pointer into its item that
// parse leaves behind is stale by the time the consumer gets the item,
// which must renew it.
func (b *Batch[I, S]) Parse(isBlank func([]byte) bool, parse func(raw []byte, pos textpos.Pos, it *I)) {
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
		pos := textpos.Pos{File: b.name, Line: line}
		b.lastLine = line
		line++
		if isBlank(raw) {
			if b.blank == 0 {
				b.firstBlank = pos
			}
			b.blank++
			continue
		}
		b.lastItem = pos.Line
		var zero I
		b.Items = append(b.Items, zero)
		parse(raw, pos, &b.Items[len(b.Items)-1])
	}
}
