package enginelog

import (
	"bytes"

	"github.com/outlast-dev/outlast/textpos"
)

// Fields walks the ", "-separated "key: value" fields of a stats or batch
// line, as bufio.Scanner walks lines. A piece without ": " continues the
// value of the field before it when the caller passed that field over
// (Skip): a field newer than the reader whose value is a list holding
// ", ". Anywhere else it is an error.
type Fields struct {
	body []byte
	sep  []byte
	// The current field: its key is body[key:colon], its value
	// body[colon+2:end]. Offsets rather than slices, so that stepping on
	// stores no pointer, which costs a write barrier while the GC runs.
	key, colon, end int
	next            int
	skip            bool
	err             error
}

// Key returns the current field's key.
func (f *Fields) Key() []byte { return f.body[f.key:f.colon] }

// Val returns the current field's value.
func (f *Fields) Val() []byte { return f.body[f.colon+len(keySep) : f.end] }

// Off returns the offset of the current field's value in the fields part.
func (f *Fields) Off() int { return f.colon + len(keySep) }

var (
	fieldSep = []byte(", ")
	keySep   = []byte(": ")
)

// NewFields returns the fields of body, the fields part of a line. A body
// that ends with ", " ends with an empty field, which is an error.
func NewFields(body []byte) Fields { return Fields{body: body, sep: fieldSep} }

// NewFieldsSep returns the fields of body separated by sep instead of
// ", " (SGLang 0.1 separated them by ". ").
func NewFieldsSep(body, sep []byte) Fields { return Fields{body: body, sep: sep} }

// Next advances to the next field, reporting whether there is one; at the
// end or at an error it reports false (see Err).
func (f *Fields) Next() bool {
	for f.err == nil && f.next <= len(f.body) {
		at, rest := f.next, f.body[f.next:]
		end := bytes.Index(rest, f.sep)
		if end < 0 {
			end = len(rest)
		}
		piece := rest[:end]
		f.next += end + len(f.sep)
		colon := bytes.Index(piece, keySep)
		if colon < 0 {
			switch {
			case f.skip:
			case at+end == len(f.body) && bytes.HasSuffix(bytes.TrimRight(piece, " "), keySep[:1]):
				// "Key:" or "Key: " closing the line: its value is gone.
				f.err = textpos.Reasonf(at+end, nil, "field %q has no value: the line is cut or damaged", bytes.TrimRight(piece, " "))
			default:
				f.err = textpos.Reasonf(at, nil, "field %q is not \"key: value\"", piece)
			}
			continue
		}
		f.skip = false
		f.key, f.colon, f.end = at, at+colon, at+end
		return true
	}
	return false
}

// Err returns the error of a piece that is not "key: value" (a
// *textpos.Reason at its offset in the fields part), or nil.
func (f *Fields) Err() error { return f.err }

// Skip records that the caller passes over the current field, whatever its
// value.
func (f *Fields) Skip() { f.skip = true }

// ValueErr returns err as a *textpos.Reason at offset at of the current
// field's value (its offset in the fields part, so the reader can turn it
// into a column), naming its key.
func (f *Fields) ValueErr(at int, err error) error {
	return textpos.Reasonf(f.Off()+at, nil, "%s: %v", f.Key(), err)
}
