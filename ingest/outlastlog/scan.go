package outlastlog

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/outlast-dev/outlast/textpos"
)

// This file is a small validating JSON scanner for one gateway line. The
// gateway's objects are flat with fixed shapes, so instead of decoding into
// maps (encoding/json allocates per key and value) the scanner records where
// each member's raw value lies, and the reader converts only the members its
// record kind uses.

// member is one key of a JSON object and the raw bytes of its value.
type member struct {
	key []byte // the key, unescaped
	val []byte // the value's raw JSON text
	off int    // byte offset of the value in the line (its column is off+1)
}

// syntaxErr is a line that is not JSON (textpos.ErrSyntax: a cut-short
// last line may explain it), at byte offset off.
func syntaxErr(off int, format string, args ...any) *textpos.Reason {
	return &textpos.Reason{Off: off, Kind: textpos.ErrSyntax, Msg: "not JSON: " + fmt.Sprintf(format, args...)}
}

// fieldErr is a bad field at byte offset off, -1 when it has no place.
func fieldErr(off int, format string, args ...any) *textpos.Reason {
	return textpos.Reasonf(off, nil, format, args...)
}

// maxDepth bounds nesting inside ignored values, so hostile input cannot
// exhaust the stack.
const maxDepth = 64

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// scanObject scans the JSON object starting at b[i] (after optional
// space) and returns the offset after the closing brace. With keep, it
// appends the members to ms; without, it only validates. base is added to
// offsets so that they are line offsets.
func scanObject(b []byte, i, base int, ms []member, keep bool, depth int) ([]member, int, *textpos.Reason) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return ms, i, syntaxErr(base+i, "want an object, got the end of the line")
	}
	if b[i] != '{' {
		return ms, i, syntaxErr(base+i, "want an object starting with '{', got %s", quoteByte(b[i]))
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return ms, i + 1, nil
	}
	for {
		if i >= len(b) {
			return ms, i, syntaxErr(base+i, "the object is not closed")
		}
		if b[i] != '"' {
			return ms, i, syntaxErr(base+i, "want a quoted key, got %s", quoteByte(b[i]))
		}
		end, escaped, err := scanString(b, i, base)
		if err != nil {
			return ms, i, err
		}
		key := b[i+1 : end-1]
		if escaped && keep {
			s, err := unescape(b[i:end], base+i)
			if err != nil {
				return ms, i, err
			}
			key = []byte(s)
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return ms, i, syntaxErr(base+i, "want ':' after key %q", key)
		}
		i = skipSpace(b, i+1)
		vstart := i
		if i, err = skipValue(b, i, base, depth+1); err != nil {
			return ms, i, err
		}
		if keep {
			ms = append(ms, member{key: key, val: b[vstart:i], off: base + vstart})
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return ms, i, syntaxErr(base+i, "the object is not closed")
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return ms, i + 1, nil
		default:
			return ms, i, syntaxErr(base+i, "want ',' or '}' after the value of %q, got %s", key, quoteByte(b[i]))
		}
	}
}

// skipValue validates the JSON value at b[i] and returns the offset after it.
func skipValue(b []byte, i, base, depth int) (int, *textpos.Reason) {
	if i >= len(b) {
		return i, syntaxErr(base+i, "want a value, got the end of the line")
	}
	if depth > maxDepth {
		return i, syntaxErr(base+i, "nested deeper than %d levels", maxDepth)
	}
	switch c := b[i]; {
	case c == '"':
		end, _, err := scanString(b, i, base)
		return end, err
	case c == '{':
		_, end, err := scanObject(b, i, base, nil, false, depth)
		return end, err
	case c == '[':
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		for {
			var err *textpos.Reason
			if i, err = skipValue(b, i, base, depth+1); err != nil {
				return i, err
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return i, syntaxErr(base+i, "the list is not closed")
			}
			switch b[i] {
			case ',':
				i = skipSpace(b, i+1)
			case ']':
				return i + 1, nil
			default:
				return i, syntaxErr(base+i, "want ',' or ']' in a list, got %s", quoteByte(b[i]))
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		return scanNumber(b, i, base)
	case c == 't':
		return literal(b, i, base, "true")
	case c == 'f':
		return literal(b, i, base, "false")
	case c == 'n':
		return literal(b, i, base, "null")
	default:
		return i, syntaxErr(base+i, "want a value, got %s", quoteByte(c))
	}
}

func literal(b []byte, i, base int, word string) (int, *textpos.Reason) {
	if len(b)-i >= len(word) && string(b[i:i+len(word)]) == word {
		return i + len(word), nil
	}
	return i, syntaxErr(base+i, "want %s", word)
}

// scanString validates the string starting at the quote b[i] and returns
// the offset after its closing quote and whether it holds escapes.
func scanString(b []byte, i, base int) (int, bool, *textpos.Reason) {
	start := i
	escaped := false
	// Eight bytes at a time while none of them needs a look: most strings
	// (keys, ids, times) are plain.
	for i++; i+8 <= len(b) && !special8(binary.LittleEndian.Uint64(b[i:])); i += 8 {
	}
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return i, escaped, syntaxErr(base+start, "the string is not closed")
			}
			i++
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return i, escaped, syntaxErr(base+i-1, "bad \\u escape in a string")
				}
				i += 4
			default:
				return i, escaped, syntaxErr(base+i-1, "bad escape \\%c in a string", b[i])
			}
		case c < 0x20:
			return i, escaped, syntaxErr(base+i, "control character %#02x in a string", c)
		}
	}
	return i, escaped, syntaxErr(base+start, "the string is not closed")
}

// special8 reports whether any of the eight bytes in v is a quote, a
// backslash or a control character (below 0x20), by the bit tricks of
// "Bit Twiddling Hacks": each test is exact for "any byte".
func special8(v uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := v ^ (ones * '"')
	bslash := v ^ (ones * '\\')
	return ((quote-ones)&^quote|(bslash-ones)&^bslash|(v-ones*0x20)&^v)&highs != 0
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// scanNumber validates a JSON number at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(b []byte, i, base int) (int, *textpos.Reason) {
	start := i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return i, syntaxErr(base+start, "bad number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return i, syntaxErr(base+start, "bad number: want digits after '.'")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, syntaxErr(base+start, "bad number: want digits in the exponent")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// unescape decodes a quoted JSON string that holds escapes (the rare path).
func unescape(quoted []byte, off int) (string, *textpos.Reason) {
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return "", syntaxErr(off, "bad string: %v", err)
	}
	return s, nil
}

func quoteByte(c byte) string {
	if c < utf8.RuneSelf {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte %#02x", c)
}

// show abbreviates a raw value for an error message.
func show(raw []byte) string {
	const max = 40
	if len(raw) > max {
		return string(raw[:max]) + "..."
	}
	return string(raw)
}

// kindOf names the JSON type of a raw value for an error message.
func kindOf(raw []byte) string {
	switch raw[0] {
	case '"':
		return "a string " + show(raw)
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return string(raw)
	case 'n':
		return "null"
	}
	return show(raw)
}

func isNull(raw []byte) bool { return len(raw) == 4 && string(raw) == "null" }

// plainEnd returns the index of the first '"' in b at or after i, or -1
// if a backslash or a control character comes before it, or none does:
// the end of a string the fast path takes as it stands. It looks at eight
// bytes at a time, since keys and values are most of a line's bytes.
func plainEnd(b []byte, i int) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ ('"' * ones)  // zero where a byte is '"'
		s := x ^ ('\\' * ones) // zero where a byte is '\'
		// A byte's high bit is set where it is zero in q or s, or below
		// 0x20 in x; borrows can mark more bytes, but only above the first
		// one marked, which is a real one.
		m := ((q-ones)&^q | (s-ones)&^s | (x-0x20*ones)&^x) & highs
		if m != 0 {
			j := i + bits.TrailingZeros64(m)/8
			if b[j] == '"' {
				return j
			}
			return -1
		}
	}
	return plainEndBytes(b, i)
}

// plainEndBytes is plainEnd one byte at a time: its tail, and what the
// tests check its eight-byte steps against.
func plainEndBytes(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i
		case c == '\\' || c < 0x20:
			return -1
		}
	}
	return -1
}
