// Package textpos defines positions in outlast's text inputs and the
// positioned ParseError that every reader (gateway, engine logs, metrics,
// manifests, the load generators' exports) and every rules file returns, in
// the manner of encoding/csv's ParseError: "file:line: reason" or
// "file:line:column: reason". Its reason is often a Reason: the message,
// where on the line the fault lies, and its kind, a sentinel (ErrSyntax, a
// reader's own) that errors.Is matches through the ParseError, as
// csv.ErrQuote is matched through csv's.
//
// It is the bottom of outlast's input side: it imports nothing of outlast,
// so readers, the dataset (rejected lines keep their positions) and
// compare/check can all share it without pointing at each other.
package textpos

import (
	"errors"
	"fmt"
)

// Pos is a position in an input file: its name as given and a 1-based line.
type Pos struct {
	File string
	Line int
}

// String formats the position as file:line.
func (p Pos) String() string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// ParseError is a bad input line. Readers that return one have consumed the
// line and can go on with the next, so a lenient caller may keep reading.
type ParseError struct {
	Pos    Pos
	Column int    // 1-based byte column, 0 if unknown
	Raw    []byte // the offending line, verbatim (without its newline)
	Err    error  // the reason
}

// Error formats the error as "file:line: reason" or "file:line:col: reason".
func (e *ParseError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Pos, e.Column, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Pos, e.Err)
}

// Unwrap returns the reason.
func (e *ParseError) Unwrap() error { return e.Err }

// Errorf builds a ParseError at pos for raw with a formatted reason. The
// raw line is copied, since readers reuse their line buffers.
func Errorf(pos Pos, raw []byte, format string, args ...any) *ParseError {
	return &ParseError{Pos: pos, Raw: append([]byte(nil), raw...), Err: fmt.Errorf(format, args...)}
}

// At is Errorf with a 1-based byte column.
func At(pos Pos, col int, raw []byte, format string, args ...any) *ParseError {
	e := Errorf(pos, raw, format, args...)
	e.Column = col
	return e
}

// ErrSyntax is the kind of a line or document that is not in its format's
// syntax (not JSON, a value cut off): a reader may take it for a last line
// cut short by a killed writer, and a document cannot be read past it.
var ErrSyntax = errors.New("syntax error")

// Reason is why a line, a value or a file is bad, found before its position
// is known or apart from it (a reader parses a line's bytes, then places
// the fault): the message, its byte offset in the line, and its kind.
type Reason struct {
	Off  int    // byte offset in the line, -1 when the fault has no place (a missing field)
	Kind error  // the sentinel errors.Is matches (ErrSyntax, a reader's own); nil for a bad value
	Msg  string // the message, the whole of Error
}

// Reasonf returns a Reason of kind (nil for none) at offset off.
func Reasonf(off int, kind error, format string, args ...any) *Reason {
	return &Reason{Off: off, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Error returns the message.
func (r *Reason) Error() string { return r.Msg }

// Unwrap returns the kind, so that errors.Is matches it.
func (r *Reason) Unwrap() error { return r.Kind }

// At places r on the line raw at pos: a ParseError whose column is r's
// offset (none without one) and whose reason is r. The raw line is copied.
func (r *Reason) At(pos Pos, raw []byte) *ParseError {
	e := &ParseError{Pos: pos, Raw: append([]byte(nil), raw...), Err: r}
	if r.Off >= 0 {
		e.Column = r.Off + 1
	}
	return e
}
