package compare

import (
	"encoding/json"
	"math"
	"strconv"
)

// Float is a float64 that marshals NaN and ±Inf as JSON null: a number
// that cannot be had (an interval from too few runs) is missing, never 0.
// Numbers are written to 12 significant digits, so that the last bits of
// a computation (which may differ between CPUs) do not reach the output.
type Float float64

// SignificantDigits is how many significant digits JSON and CSV keep.
const SignificantDigits = 12

// rounded returns v to SignificantDigits significant digits.
func rounded(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', SignificantDigits, 64), 64)
	return r
}

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(rounded(v))
}

// IsNaN reports whether f is missing.
func (f Float) IsNaN() bool { return math.IsNaN(float64(f)) }
