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

func TestStripANSIAndContainerStamp(t *testing.T) {
	in := "\x1b[32mINFO\x1b[0m \x1b[90m05-19 14:03:12\x1b[0m msg\x1b(B"
	if got := string(StripANSI(nil, []byte(in))); got != "INFO 05-19 14:03:12 msg" {
		t.Errorf("StripANSI = %q", got)
	}
	line := []byte("2026-10-27T12:00:05.123456789Z   (APIServer pid=1) INFO")
	if i := SkipContainerStamp(line); string(line[i:]) != "(APIServer pid=1) INFO" {
		t.Errorf("SkipContainerStamp left %q", line[i:])
	}
	for _, s := range []string{"INFO 05-19 14:03:12 [x.py:1] m", "[2026-07-20 10:15:03] Prefill batch", "short"} {
		if i := SkipContainerStamp([]byte(s)); i != 0 {
			t.Errorf("SkipContainerStamp(%q) = %d, want 0", s, i)
		}
	}
}
