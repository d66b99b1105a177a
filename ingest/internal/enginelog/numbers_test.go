package enginelog

import (
	"math"
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
