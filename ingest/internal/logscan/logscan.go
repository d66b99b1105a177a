// Package logscan holds the byte-level helpers the engine-log readers
// share: ANSI stripping, container timestamps, and allocation-free number
// parsing. They work on []byte so the readers' hot paths allocate nothing.
package logscan

import (
	"bytes"
	"fmt"
	"strconv"
)

// StripANSI appends b without its ANSI escape sequences to dst.
func StripANSI(dst, b []byte) []byte {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != 0x1b {
			dst = append(dst, c)
			continue
		}
		if i+1 < len(b) && b[i+1] == '[' {
			// CSI: parameters and intermediates, then one final byte 0x40-0x7e.
			j := i + 2
			for j < len(b) && b[j] >= 0x20 && b[j] <= 0x3f {
				j++
			}
			i = j // the final byte (or the end)
			continue
		}
		// Other escapes: intermediates 0x20-0x2f, then one final byte
		// (ESC 7, ESC ( B, ...).
		j := i + 1
		for j < len(b) && b[j] >= 0x20 && b[j] <= 0x2f {
			j++
		}
		i = j
	}
	return dst
}

// SkipContainerStamp returns the offset after a leading Docker/Kubernetes
// RFC 3339 stamp ("2026-10-27T12:00:05.123456789Z "), or 0 if there is none.
func SkipContainerStamp(b []byte) int {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0
	}
	if _, ok := Two(b[0:2]); !ok {
		return 0
	}
	if _, ok := Two(b[2:4]); !ok {
		return 0
	}
	sp := bytes.IndexByte(b, ' ')
	if sp < 0 {
		return 0
	}
	return SkipSpaces(b, sp)
}

// SkipSpaces returns the index of the first non-space byte of b at or after i.
func SkipSpaces(b []byte, i int) int {
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return i
}

// Two parses exactly two ASCII digits.
func Two(b []byte) (int, bool) {
	if b[0] < '0' || b[0] > '9' || b[1] < '0' || b[1] > '9' {
		return 0, false
	}
	return int(b[0]-'0')*10 + int(b[1]-'0'), true
}

// ParseUint parses a run of ASCII digits that fits an int64.
func ParseUint(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// ParseNumber parses a finite decimal number such as "1843.2" or "0".
// Python's "nan"/"inf", exponents and anything else are errors.
func ParseNumber(b []byte) (float64, error) {
	if i, ok := ParseUint(b); ok {
		return float64(i), nil
	}
	digits, dots := 0, 0
	for k, c := range b {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		case c == '-' && k == 0:
		default:
			return 0, fmt.Errorf("malformed number %q", b)
		}
	}
	if digits == 0 || dots > 1 {
		return 0, fmt.Errorf("malformed number %q", b)
	}
	x, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, fmt.Errorf("malformed number %q", b)
	}
	return x, nil
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
