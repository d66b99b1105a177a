// Package jsondoc reads the JSON the load generators write, with
// positions: a one-document file (GuideLLM's benchmarks.json,
// inference-perf's per_request_lifecycle_metrics.json) streamed through
// github.com/go-json-experiment/json's jsontext decoder, which validates
// every byte and keeps only the value being read in memory, and the
// objects of such a document or of a JSON-lines file (AIPerf) walked in
// memory once validated.
//
// doc.go holds the streaming Doc and the line tracking behind its
// positions, object.go the walk over a validated object, values.go the
// conversion of member values with errors at their offset.
package jsondoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/outlast-dev/outlast/textpos"
)

// Doc reads one JSON document as a stream of tokens and values, knowing
// the line and column of every byte it has read (Pos). Memory holds the
// value being read, the decoder's read-ahead and, for a pretty-printed
// document, the offsets of the newlines since the last Release.
type Doc struct {
	name  string
	dec   *jsontext.Decoder
	lines *lineTracker
	// posOf, when set, replaces the line tracker: a document converted
	// from another form (YAML) maps offsets back to that form's positions.
	posOf func(off int64) (line, col int)
}

// New returns a Doc reading r; name is the file name used in positions.
func New(r io.Reader, name string) *Doc {
	lt := &lineTracker{r: r, lastNL: -1}
	return &Doc{name: name, lines: lt, dec: jsontext.NewDecoder(lt)}
}

// NewMapped returns a Doc reading the JSON in data, whose positions are
// those posOf gives for an offset in data: data was converted from
// another form, and posOf names the place in the original.
func NewMapped(data []byte, name string, posOf func(off int64) (line, col int)) *Doc {
	d := New(bytes.NewReader(data), name)
	d.posOf = posOf
	return d
}

// Name returns the document's file name.
func (d *Doc) Name() string { return d.name }

// Pos returns the position of the byte at offset off, which must not lie
// before the last Release.
func (d *Doc) Pos(off int64) (textpos.Pos, int) {
	if d.posOf != nil {
		line, col := d.posOf(off)
		return textpos.Pos{File: d.name, Line: line}, col
	}
	line, col := d.lines.pos(off)
	return textpos.Pos{File: d.name, Line: line}, col
}

// Release says that no position before off will be asked for again, so
// that the newlines before it need not be kept.
func (d *Doc) Release(off int64) { d.lines.release(off) }

// Offset returns the offset just after the last token or value read.
func (d *Doc) Offset() int64 { return d.dec.InputOffset() }

// PeekKind returns the kind of the next token, 0 at the end or on an error
// (which the next read returns).
func (d *Doc) PeekKind() jsontext.Kind { return d.dec.PeekKind() }

// ReadToken reads the next token.
func (d *Doc) ReadToken() (jsontext.Token, error) {
	tok, err := d.dec.ReadToken()
	if err != nil {
		return tok, d.wrap(err)
	}
	return tok, nil
}

// ReadValue reads the next value whole and returns its bytes (valid until
// the next read) and the offset of its first byte.
func (d *Doc) ReadValue() ([]byte, int64, error) {
	v, err := d.dec.ReadValue()
	if err != nil {
		return nil, 0, d.wrap(err)
	}
	return v, d.dec.InputOffset() - int64(len(v)), nil
}

// SkipValue reads past the next value.
func (d *Doc) SkipValue() error {
	if err := d.dec.SkipValue(); err != nil {
		return d.wrap(err)
	}
	return nil
}

// Key reads an object member's name; ok is false at the object's end,
// whose closing brace is then read. off is the offset of the name.
func (d *Doc) Key() (name string, off int64, ok bool, err error) {
	if d.dec.PeekKind() == '}' {
		_, err := d.ReadToken()
		return "", 0, false, err
	}
	v, err := d.dec.ReadValue() // a name reads as a string value
	if err != nil {
		return "", 0, false, d.wrap(err)
	}
	off = d.dec.InputOffset() - int64(len(v))
	b, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return "", 0, false, d.Errorf(off, nil, "invalid JSON: %v", err)
	}
	return string(b), off, true, nil
}

// Errorf returns a ParseError at offset off with the bytes raw.
func (d *Doc) Errorf(off int64, raw []byte, format string, args ...any) *textpos.ParseError {
	pos, col := d.Pos(off)
	return textpos.At(pos, col, raw, format, args...)
}

// wrap turns a decoder error into a ParseError at its offset; read errors
// of the input pass unchanged.
func (d *Doc) wrap(err error) error {
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		if err == io.EOF {
			return io.EOF
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return d.Errorf(d.lines.off, nil, "the file ends inside a JSON value: it was cut short")
		}
		var pe *textpos.ParseError
		if errors.As(err, &pe) {
			return err
		}
		return fmt.Errorf("%s: %w", d.name, err)
	}
	msg := "invalid JSON: " + se.Err.Error()
	if errors.Is(se.Err, io.ErrUnexpectedEOF) {
		msg = "the file ends inside a JSON value: it was cut short"
	}
	if p := string(se.JSONPointer); p != "" {
		msg += " (at JSON pointer " + p + ")"
	}
	return d.Errorf(se.ByteOffset, nil, "%s", msg)
}

// lineTracker passes a document's bytes on to the decoder and notes where
// its newlines are, so that an offset becomes a line and a column.
type lineTracker struct {
	r   io.Reader
	off int64 // bytes read so far
	// nl holds the offsets of the newlines read since the released
	// offset; before holds how many came earlier and lastNL where the last
	// of those was (-1 if none).
	nl     []int64
	before int
	lastNL int64
}

func (t *lineTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	for i := 0; ; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			break
		}
		t.nl = append(t.nl, t.off+int64(i+j))
		i += j + 1
	}
	t.off += int64(n)
	return n, err
}

// pos returns the 1-based line and byte column of offset off.
func (t *lineTracker) pos(off int64) (line, col int) {
	k, _ := slices.BinarySearch(t.nl, off)
	last := t.lastNL
	if k > 0 {
		last = t.nl[k-1]
	}
	return t.before + k + 1, int(off - last)
}

// release forgets the newlines before off.
func (t *lineTracker) release(off int64) {
	k, _ := slices.BinarySearch(t.nl, off)
	if k == 0 {
		return
	}
	t.before += k
	t.lastNL = t.nl[k-1]
	t.nl = append(t.nl[:0], t.nl[k:]...)
}
