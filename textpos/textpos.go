// Package textpos defines positions in outlast's text inputs and the
// positioned ParseError that every reader (gateway, engine logs, metrics,
// manifests, the load generators' exports) and every rules file returns, in
// the manner of encoding/csv's ParseError: "file:line: reason" or
// "file:line:column: reason".
//
// It is the bottom of outlast's input side: it imports nothing of outlast,
// so readers, the dataset (rejected lines keep their positions) and
// compare/check can all share it without pointing at each other.
package textpos

import "fmt"

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
