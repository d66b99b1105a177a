package promjson

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/outlast-dev/outlast/textpos"
)

// This file is a strict JSON scanner (RFC 8259) over a document in memory
// that knows the line and column of every offset: what a query_range
// answer needs, and no reflection.

// scanner walks a JSON document.
type scanner struct {
	b    []byte
	i    int
	line int // line of b[i], 1-based
	ls   int // offset where that line starts
	name string
}

// maxDepth bounds the nesting of skipped values.
const maxDepth = 512

// ws skips whitespace.
func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\n':
			s.line++
			s.ls = s.i + 1
		case ' ', '\t', '\r':
		default:
			return
		}
		s.i++
	}
}

// lineCol returns the line and 1-based byte column of offset off, which
// is at most s.i.
func (s *scanner) lineCol(off int) (int, int) {
	if off >= s.ls {
		return s.line, off - s.ls + 1
	}
	line := s.line - bytes.Count(s.b[off:s.ls], []byte{'\n'})
	return line, off - (bytes.LastIndexByte(s.b[:off], '\n') + 1) + 1
}

// errAt returns a ParseError at offset off whose raw text is b[from:to]
// (at most 256 bytes of it).
func (s *scanner) errAt(off, from, to int, format string, args ...any) *textpos.ParseError {
	line, col := s.lineCol(off)
	to = min(to, from+256, len(s.b))
	return textpos.At(textpos.Pos{File: s.name, Line: line}, col, s.b[from:to], format, args...)
}

// fail returns a syntax error at the current offset.
func (s *scanner) fail(format string, args ...any) error {
	return s.syntaxAt(s.i, s.i, s.i+40, format, args...)
}

// syntaxAt is errAt for an error that leaves the scanner's position
// undefined, so that the rest of the document cannot be read: its reason is
// of kind textpos.ErrSyntax.
func (s *scanner) syntaxAt(off, from, to int, format string, args ...any) *textpos.ParseError {
	e := s.errAt(off, from, to, format, args...)
	e.Err = &textpos.Reason{Off: e.Column - 1, Kind: textpos.ErrSyntax, Msg: e.Err.Error()}
	return e
}

// unexpected describes the byte at the current offset.
func (s *scanner) unexpected(want string) error {
	if s.i >= len(s.b) {
		return s.fail("unexpected end of input, want %s: the file is cut short", want)
	}
	return s.fail("unexpected %q, want %s", s.b[s.i], want)
}

// expect consumes byte c after whitespace.
func (s *scanner) expect(c byte) error {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return nil
	}
	return s.unexpected(fmt.Sprintf("%q", c))
}

// more is the loop of an object or array after its opening byte: it
// reports whether another member follows (consuming the comma), or the
// closing byte end.
func (s *scanner) more(first *bool, end byte) (bool, error) {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == end {
		s.i++
		return false, nil
	}
	if !*first {
		if s.i >= len(s.b) || s.b[s.i] != ',' {
			return false, s.unexpected(fmt.Sprintf("',' or %q", end))
		}
		s.i++
		s.ws()
	}
	*first = false
	return true, nil
}

// object reads an object, calling member with the name of each member,
// the scanner then at the member's value, which member must read.
func (s *scanner) object(member func(key []byte) error) error {
	return s.items('{', '}', func() error {
		k, err := s.key()
		if err != nil {
			return err
		}
		return member(k)
	})
}

// array reads an array, calling elem with the scanner at each element,
// which elem must read.
func (s *scanner) array(elem func() error) error { return s.items('[', ']', elem) }

// items reads an object or array from its opening byte to its closing
// one, calling item at each member or element.
func (s *scanner) items(open, end byte, item func() error) error {
	if err := s.expect(open); err != nil {
		return err
	}
	for first := true; ; {
		ok, err := s.more(&first, end)
		if err != nil || !ok {
			return err
		}
		if err := item(); err != nil {
			return err
		}
	}
}

// key reads an object member's name and its colon.
func (s *scanner) key() ([]byte, error) {
	k, err := s.str()
	if err != nil {
		return nil, err
	}
	return k, s.expect(':')
}

// str reads a string at the current offset (after whitespace), resolving
// escapes. The result aliases the document when there are none.
func (s *scanner) str() ([]byte, error) { return s.string(true) }

// ascii reads a string as str does, without checking that it is UTF-8:
// for values that must be numbers, whose parsing rejects other bytes.
func (s *scanner) ascii() ([]byte, error) { return s.string(false) }

func (s *scanner) string(checkUTF8 bool) ([]byte, error) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, s.unexpected("a string")
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			if checkUTF8 && !utf8.Valid(s.b[start:j]) {
				return nil, s.syntaxAt(start-1, start-1, j+1, "string is not valid UTF-8")
			}
			return s.b[start:j], nil
		case c == '\\':
			return s.escaped(start)
		case c < 0x20:
			s.i = j
			return nil, s.fail("control character %q in a string", c)
		}
	}
	s.i = len(s.b)
	return nil, s.unexpected("the end of the string")
}

// escaped reads the rest of a string that holds escapes, from start.
func (s *scanner) escaped(start int) ([]byte, error) {
	out := make([]byte, 0, 32)
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			if !utf8.Valid(out) {
				return nil, s.syntaxAt(start-1, start-1, j+1, "string is not valid UTF-8")
			}
			return out, nil
		case c < 0x20:
			s.i = j
			return nil, s.fail("control character %q in a string", c)
		case c != '\\':
			out = append(out, c)
			continue
		}
		j++
		if j >= len(s.b) {
			break
		}
		switch s.b[j] {
		case '"', '\\', '/':
			out = append(out, s.b[j])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, n := s.hex4(j + 1)
			if n < 0 {
				s.i = j - 1
				return nil, s.fail("invalid \\u escape")
			}
			j += 4
			if utf16Surrogate(r) {
				if r2, n2 := s.hex4(j + 3); j+2 < len(s.b) && s.b[j+1] == '\\' && s.b[j+2] == 'u' && n2 >= 0 {
					if c := combine(r, r2); c != utf8.RuneError {
						r = c
						j += 6
					}
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			s.i = j - 1
			return nil, s.fail("invalid escape \\%c", s.b[j])
		}
	}
	s.i = len(s.b)
	return nil, s.unexpected("the end of the string")
}

// hex4 reads four hex digits at off; n is -1 if there are none.
func (s *scanner) hex4(off int) (rune, int) {
	if off+4 > len(s.b) {
		return 0, -1
	}
	var r rune
	for _, c := range s.b[off : off+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, -1
		}
	}
	return r, 4
}

func utf16Surrogate(r rune) bool { return r >= 0xd800 && r < 0xdc00 }

func combine(hi, lo rune) rune {
	if lo < 0xdc00 || lo >= 0xe000 {
		return utf8.RuneError
	}
	return (hi-0xd800)<<10 | (lo - 0xdc00) + 0x10000
}

// number reads a JSON number and returns its text.
func (s *scanner) number() ([]byte, error) {
	s.ws()
	start, j := s.i, s.i
	b := s.b
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case j < len(b) && b[j] >= '1' && b[j] <= '9':
		j = digits(b, j)
	default:
		return nil, s.unexpected("a number")
	}
	if j < len(b) && b[j] == '.' {
		if j = digits(b, j+1); b[j-1] == '.' {
			s.i = j
			return nil, s.unexpected("a digit after the decimal point")
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if d := digits(b, j); d > j {
			j = d
		} else {
			s.i = j
			return nil, s.unexpected("a digit in the exponent")
		}
	}
	s.i = j
	return b[start:j], nil
}

// digits returns the offset past the decimal digits of b from j.
func digits(b []byte, j int) int {
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	return j
}

// kind returns the kind of the value at the current offset, after
// whitespace: "a string", "a number", "an object", ...
func (s *scanner) kind() string {
	s.ws()
	if s.i >= len(s.b) {
		return "nothing"
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	default:
		return "a number"
	}
}

// skip reads over one value of any kind, checking its syntax.
func (s *scanner) skip(depth int) error {
	if depth > maxDepth {
		return s.fail("values nested deeper than %d", maxDepth)
	}
	s.ws()
	if s.i >= len(s.b) {
		return s.unexpected("a value")
	}
	switch c := s.b[s.i]; c {
	case '"':
		_, err := s.str()
		return err
	case '{':
		return s.object(func([]byte) error { return s.skip(depth + 1) })
	case '[':
		return s.array(func() error { return s.skip(depth + 1) })
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
				s.i += len(lit)
				return nil
			}
		}
		return s.unexpected("a value")
	default:
		_, err := s.number()
		return err
	}
}
