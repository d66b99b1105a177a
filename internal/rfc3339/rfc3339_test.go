package rfc3339

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	want := time.Date(2026, 10, 27, 12, 0, 10, 500_000_000, time.UTC)
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"2026-10-27T12:00:10.5Z", true},
		{"2026-10-27t12:00:10.5z", true},
		{"2026-10-27 12:00:10.5+00:00", true},
		{"2026-10-27T14:00:10.5+02:00", true},
		{"2026-10-27 12:00:10.5", false}, // no zone
		{"2026-10-27_12:00:10.5Z", false},
		{"2026-10-27T12:00:10.5 Z", false},
		{"27/10/2026 12:00:10Z", false},
		{"", false},
	} {
		got, err := Parse(tc.in)
		if ok := err == nil; ok != tc.ok || ok && !got.Equal(want) {
			t.Errorf("Parse(%q) = %v, %v; want ok %v", tc.in, got, err, tc.ok)
		}
	}
}

// FuzzParse checks that Parse takes whatever Go's layout takes, as it
// takes it, and that every time it takes has a zone and the same instant
// written in Go's layout.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"2026-10-27T12:00:10.5Z", "2026-10-27t12:00:10z", "2026-10-27 12:00:10-07:00", "2026-10-27 12:00:10", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Parse(s)
		if want, werr := time.Parse(time.RFC3339Nano, s); werr == nil {
			if err != nil || !got.Equal(want) {
				t.Fatalf("%q: Parse %v, %v; Go's layout %v", s, got, err, want)
			}
			return
		}
		if err != nil {
			return
		}
		if again, err := time.Parse(time.RFC3339Nano, got.Format(time.RFC3339Nano)); err != nil || !again.Equal(got) {
			t.Fatalf("%q: took %v, which does not round-trip: %v", s, got, err)
		}
	})
}
