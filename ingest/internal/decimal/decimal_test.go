package decimal

import (
	"math"
	"strconv"
	"testing"
)

// TestSimple checks the shapes Simple takes and those it leaves to
// strconv.ParseFloat.
func TestSimple(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0", 0, true},
		{"414.42", 414.42, true},
		{"-3", -3, true},
		{"+1", 1, true},
		{"1.", 1, true},
		{".5", 0.5, true},
		{"0.15", 0.15, true},
		{"123456789012345", 123456789012345, true},
		{"1234567890123456", 0, false}, // 16 digits
		{"1e5", 0, false},
		{"1.2.3", 0, false},
		{".", 0, false},
		{"-", 0, false},
		{"", 0, false},
		{"NaN", 0, false},
		{" 1", 0, false},
	} {
		got, ok := Simple([]byte(tc.in))
		if ok != tc.ok || got != tc.want {
			t.Errorf("Simple(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if v, _ := Simple([]byte("-0.0")); !math.Signbit(v) {
		t.Errorf("Simple(\"-0.0\") = %v, want -0", v)
	}
}

// FuzzSimple checks Simple against strconv.ParseFloat, bit for bit: where
// it takes a value, ParseFloat takes it too and agrees.
func FuzzSimple(f *testing.F) {
	for _, s := range []string{"0", "0.0", "-0.0", "+1", "1.", ".5", "123456789012345", "1234567890123456",
		"0.000000000000001", "3.14159", "9007199254740993", "99999999.9999999",
		// 16 or more digits, where the quotient would round twice:
		"932.42524485156473", "12739961713409.785", "120825375.5369505197", "1e5", "0x1p3", "1_0", ".", "-", "", "NaN", "+Inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := Simple([]byte(s))
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%q: Simple took %v, ParseFloat refused: %v", s, got, err)
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: Simple %v (%#x), ParseFloat %v (%#x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	})
}

// FuzzPercent checks Percent against strconv.ParseFloat of the same digits
// with the exponent "e-2", bit for bit: the fraction correctly rounded, not
// the percentage divided by 100.
func FuzzPercent(f *testing.F) {
	for _, s := range []string{"91.6", "1.4", "16.7", "2.2", "5.8", "78.1", "0", "-0.0", "100", "100.0", "0.01",
		"999999999999.999", "123456789012345", "1234567890123456", "1e5", ".", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := Percent([]byte(s))
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s+"e-2", 64)
		if err != nil {
			t.Fatalf("%q: Percent took %v, ParseFloat refused: %v", s, got, err)
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: Percent %v (%#x), ParseFloat %v (%#x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	})
}
