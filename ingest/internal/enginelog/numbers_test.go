package enginelog

import (
	"math"
	"strconv"
	"testing"
)

func TestParseNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0", 0, true}, {"1843.2", 1843.2, true}, {"-0.5", -0.5, true}, {"97.20", 97.2, true},
		{"", 0, false}, {".", 0, false}, {"1.2.3", 0, false}, {"nan", 0, false}, {"inf", 0, false},
		{"1e5", 0, false}, {"12a", 0, false}, {"--1", 0, false}, {"1-", 0, false},
		{"+1", 0, false}, {"-", 0, false}, {"1.", 1, true}, {".5", 0.5, true}, {"12345678901234567", 12345678901234567, true},
	} {
		got, err := ParseNumber([]byte(tc.in))
		if (err == nil) != tc.ok || (tc.ok && math.Abs(got-tc.want) > 1e-12) {
			t.Errorf("ParseNumber(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseUint(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{{"0", 0, true}, {"400000", 400000, true}, {"", 0, false}, {"12 ", 0, false}, {"1234567890123456789", 0, false}} {
		got, ok := ParseUint([]byte(tc.in))
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseUint(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// parseNumberByStrconv is ParseNumber without its fast paths: the shape
// checked, then strconv.ParseFloat.
func parseNumberByStrconv(b []byte) (float64, bool) {
	if !plainNumber(b) {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(b), 64)
	return x, err == nil
}

// FuzzParseNumber checks ParseNumber against parseNumberByStrconv: the
// same numbers taken, bit for bit, and the same refused.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"0", "-0.0", "1843.2", "97.20", "+1", "1.", ".5", "-.5", "123456789012345",
		"1234567890123456", "12345678901234567890", "932.42524485156473", "1e5", "nan", "", "-", "1.2.3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseNumber([]byte(s))
		want, ok := parseNumberByStrconv([]byte(s))
		if (err == nil) != ok {
			t.Fatalf("%q: ParseNumber error %v, strconv's way ok=%v", s, err, ok)
		}
		if ok && math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: ParseNumber %v (%#x), strconv's way %v (%#x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	})
}
