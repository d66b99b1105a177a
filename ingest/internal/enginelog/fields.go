package enginelog

import (
	"bytes"
	"fmt"
)

// Fields walks the ", "-separated "key: value" fields of a stats or batch
// line. A piece without ": " continues the value of the field before it
// when the caller passed that field over (Skip): a field newer than the
// reader whose value is a list holding ", ". Anywhere else it is an error.
type Fields struct {
	body []byte
	off  int
	skip bool
}

// Field is one "key: value" field.
type Field struct {
	Key, Val []byte
	Off      int // offset of Val in the fields part
}

var (
	fieldSep = []byte(", ")
	keySep   = []byte(": ")
)

// NewFields returns the fields of body, the fields part of a line. A body
// that ends with ", " ends with an empty field, which is an error.
func NewFields(body []byte) Fields { return Fields{body: body} }

// Next returns the next field, false after the last, or a *FieldError for
// a piece that is not "key: value".
func (f *Fields) Next() (Field, bool, error) {
	for f.off <= len(f.body) {
		at, rest := f.off, f.body[f.off:]
		end := bytes.Index(rest, fieldSep)
		if end < 0 {
			end = len(rest)
		}
		piece := rest[:end]
		f.off += end + len(fieldSep)
		colon := bytes.Index(piece, keySep)
		if colon < 0 {
			if f.skip {
				continue
			}
			return Field{}, false, &FieldError{Off: at, Err: fmt.Errorf("field %q is not \"key: value\"", piece)}
		}
		f.skip = false
		return Field{Key: piece[:colon], Val: piece[colon+len(keySep):], Off: at + colon + len(keySep)}, true, nil
	}
	return Field{}, false, nil
}

// Skip records that the caller passes over the field Next returned last,
// whatever its value.
func (f *Fields) Skip() { f.skip = true }

// Err returns err as a *FieldError at offset at of the field's value,
// naming its key.
func (fd Field) Err(at int, err error) error {
	return &FieldError{Off: fd.Off + at, Err: fmt.Errorf("%s: %w", fd.Key, err)}
}

// FieldError is a bad "key: value" field of a log line, at byte offset Off
// of the line's fields part, so the reader can turn it into a column.
type FieldError struct {
	Off int
	Err error
}

// Error returns the reason.
func (e *FieldError) Error() string { return e.Err.Error() }

// Unwrap returns the reason.
func (e *FieldError) Unwrap() error { return e.Err }
