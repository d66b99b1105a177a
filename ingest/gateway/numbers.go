package gateway

import (
	"math"
	"strconv"
)

// This file converts raw JSON numbers, with fast paths that do not
// allocate for the forms gateways write.

// pow10 holds the exactly representable powers of ten.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// parseInt parses a raw JSON integer (no fraction or exponent). ok is false
// when raw is not such an integer or does not fit in an int64.
func parseInt(raw []byte) (v int64, ok bool) {
	i, neg := 0, false
	if len(raw) > 0 && raw[0] == '-' {
		neg, i = true, 1
	}
	if i >= len(raw) || len(raw)-i > 18 { // 18 digits always fit in an int64
		return 0, false
	}
	for ; i < len(raw); i++ {
		c := raw[i]
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseFloat parses a raw JSON number, with a no-allocation fast path for
// plain decimals of at most 15 significant digits, which float64 holds
// exactly (so m / 10^k rounds correctly).
func parseFloat(raw []byte) (float64, bool) {
	if sec, frac, ok := splitDecimal(raw); ok {
		return float64(sec) + frac, true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// splitDecimal splits a plain non-negative decimal "123.456" into its integer
// part and its fraction, each exact to float64 rounding. Keeping the integer
// part apart lets Unix timestamps become run seconds without losing the
// fraction's digits to the 1.7e9 magnitude. ok is false for other forms
// (sign, exponent, more than 18 integer or 15 fraction digits).
func splitDecimal(raw []byte) (sec int64, frac float64, ok bool) {
	i := 0
	for i < len(raw) && isDigit(raw[i]) {
		sec = sec*10 + int64(raw[i]-'0')
		i++
	}
	if i == 0 || i > 18 {
		return 0, 0, false
	}
	if i == len(raw) {
		return sec, 0, true
	}
	if raw[i] != '.' {
		return 0, 0, false
	}
	i++
	digits := len(raw) - i
	if digits < 1 || digits >= len(pow10) {
		return 0, 0, false
	}
	var m int64
	for ; i < len(raw); i++ {
		if !isDigit(raw[i]) {
			return 0, 0, false
		}
		m = m*10 + int64(raw[i]-'0')
	}
	return sec, float64(m) / pow10[digits], true
}
