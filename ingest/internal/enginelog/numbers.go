package enginelog

import (
	"fmt"

	"github.com/outlast-dev/outlast/ingest/internal/decimal"
)

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

// ParseNumber parses a finite decimal number such as "1843.2" or "0"
// (decimal.Parse). Python's "nan"/"inf", exponents, a '+' and anything
// else are errors.
func ParseNumber(b []byte) (float64, error) {
	// Most values are short decimals, read exactly without strconv
	// (decimal.Simple takes a '+', which this refuses).
	if len(b) > 0 && b[0] != '+' {
		if x, ok := decimal.Simple(b); ok {
			return x, nil
		}
	}
	if plainNumber(b) {
		if x, ok := decimal.Parse(b); ok {
			return x, nil
		}
	}
	return 0, fmt.Errorf("malformed number %q", b)
}

// ParsePercent parses a number as ParseNumber does and returns it divided
// by 100: "91.6" (of "91.6%") gives 0.916, the fraction a reader reads off
// the line, where dividing ParseNumber's value gives 0.9159999999999999.
func ParsePercent(b []byte) (float64, error) {
	if len(b) > 0 && b[0] != '+' {
		if x, ok := decimal.Percent(b); ok {
			return x, nil
		}
	}
	x, err := ParseNumber(b)
	return x / 100, err
}

// plainNumber reports whether b is digits with at most one point and an
// optional leading '-': the numbers ParseNumber takes.
func plainNumber(b []byte) bool {
	digits, dots := 0, 0
	for k, c := range b {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		case c == '-' && k == 0:
		default:
			return false
		}
	}
	return digits > 0 && dots <= 1
}
