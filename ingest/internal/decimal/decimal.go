// Package decimal is ingest's one parser of decimal numbers: the values of
// JSON records, metrics text and engine logs ("0.15", "414.42", "-3",
// "1793102448.291", "2.5e-3") to the float64 strconv.ParseFloat gives,
// bit for bit. Most values are plain decimals with a mantissa below 2^53,
// which it reads without strconv's general machinery (a quarter of a
// Prometheus scrape's parse); the rest go to strconv.ParseFloat.
//
// Split and Int read what is not a float: a time in seconds split into its
// whole seconds and fraction, a JSON integer.
package decimal

import (
	"math"
	"strconv"
)

// Parse parses b, a finite decimal number [+-]digits[.digits][(e|E)[+-]digits]
// (either part of the digits may be empty, not both), as
// strconv.ParseFloat(string(b), 64) does, bit for bit. ok is false for
// anything else: hexadecimal, underscores, "inf", "nan", white space, and
// a number beyond float64's range.
func Parse(b []byte) (float64, bool) {
	if v, ok := scaled(b, 0); ok {
		return v, true
	}
	if !isDecimal(b) {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// Simple parses b of the shape [+-]digits[.digits] (either part of the
// digits may be empty, not both) whose digits make an integer below 2^53
// with at most 22 of them after the point, as strconv.ParseFloat would;
// ok is false for any other b, which the caller then gives to ParseFloat
// (or Parse). The integer and the power of ten are both exact in a
// float64, so their quotient is the correctly rounded value:
// strconv's own exact path.
func Simple(b []byte) (v float64, ok bool) { return scaled(b, 0) }

// Percent parses b as Simple does and returns it divided by 100, correctly
// rounded: "91.6" gives 0.916, where Simple's 91.6 divided by 100 gives
// 0.9159999999999999 (two roundings). ok is false where Simple's is, and
// for more than 20 digits after the point.
func Percent(b []byte) (v float64, ok bool) { return scaled(b, 2) }

// scaled parses b as Simple does and divides it by 10^shift, one exact
// division of an integer below 2^53 by a power of ten up to 1e22, both
// exact in a float64.
func scaled(b []byte, shift int) (v float64, ok bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	var mant uint64
	digits, frac, dot := 0, 0, false
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			if mant >= 1<<53 {
				return 0, false
			}
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || frac+shift >= len(exactPow10) {
		return 0, false
	}
	v = float64(mant) / exactPow10[frac+shift]
	if neg {
		v = -v
	}
	return v, true
}

// exactPow10 holds the powers of ten exact in a float64 (5^22 < 2^53).
var exactPow10 = [23]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// isDecimal reports whether b is [+-]digits[.digits][(e|E)[+-]digits],
// with at least one digit before the exponent and one in it.
func isDecimal(b []byte) bool {
	i := 0
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		i++
	}
	digits := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		digits++
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			i++
		}
		exp := i
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
		if i == exp {
			return false
		}
	}
	return i == len(b)
}

// Split splits a plain non-negative decimal "1793102448.291" into its
// whole part and its fraction, the fraction correctly rounded, so that a
// Unix time loses no digit of its fraction to its magnitude before a run's
// t=0 is taken away; ok is false for other forms (a sign, an exponent,
// more than 18 digits before the point or 15 after it).
func Split(b []byte) (whole int64, frac float64, ok bool) {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		whole = whole*10 + int64(b[i]-'0')
		i++
	}
	if i == 0 || i > 18 {
		return 0, 0, false
	}
	if i == len(b) {
		return whole, 0, true
	}
	if b[i] != '.' {
		return 0, 0, false
	}
	i++
	digits := len(b) - i
	if digits < 1 || digits > 15 {
		return 0, 0, false
	}
	var m int64
	for ; i < len(b); i++ {
		if b[i] < '0' || b[i] > '9' {
			return 0, 0, false
		}
		m = m*10 + int64(b[i]-'0')
	}
	return whole, float64(m) / exactPow10[digits], true
}

// Int parses a plain integer [-]digits (no fraction or exponent); ok is
// false for another form or one that does not fit in an int64.
func Int(b []byte) (int64, bool) {
	i, neg := 0, false
	if len(b) > 0 && b[0] == '-' {
		neg, i = true, 1
	}
	if i >= len(b) || len(b)-i > 19 {
		return 0, false
	}
	var v uint64
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0') // 19 digits cannot overflow a uint64
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}
