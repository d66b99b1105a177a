// Package jsonnum is outlast's one JSON number for computed values: Float
// marshals NaN and ±Inf as null (a number that cannot be had is missing,
// never 0) and rounds to SignificantDigits, so that the last bits of a
// computation, which may differ between CPUs (arm64 fuses multiply-add),
// do not reach summary.json, comparisons or goldens.
package jsonnum

import (
	"encoding/json"
	"math"
	"strconv"
)

// SignificantDigits is how many significant digits JSON and CSV outputs keep.
const SignificantDigits = 12

// Float is a float64 that marshals as a rounded JSON number, or null when
// it is NaN or infinite.
type Float float64

// Round returns v to SignificantDigits significant digits.
func Round(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
		return v
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', SignificantDigits, 64), 64)
	return r
}

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(Round(v))
}

// IsNaN reports whether f is missing.
func (f Float) IsNaN() bool { return math.IsNaN(float64(f)) }
