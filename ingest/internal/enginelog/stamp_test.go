package enginelog

import (
	"fmt"
	"testing"
)

// TestStamp parses the parts of stamps the engines print, and refuses
// what is not one.
func TestStamp(t *testing.T) {
	for _, tc := range []struct {
		part, in string
		want     string // the stamp, or "no"
	}{
		{"date", "2025-03-20 rest", "{2025 3 20 0 0 0 0}"},
		{"date", "2025-13-20", "no"},
		{"date", "2025-03-00", "no"},
		{"date", "2025/03/20", "no"},
		{"date", "25-03-20", "no"},
		{"monthday", "12-31", "{0 12 31 0 0 0 0}"},
		{"monthday", "12-32", "no"},
		{"monthday", "1-31", "no"},
		{"time", "23:59:60", "{0 0 0 23 59 60 0}"},
		{"time", "24:00:00", "no"},
		{"time", "12:60:00", "no"},
		{"time", "12:00", "no"},
		{"time", "1a:00:00", "no"},
		{"fraction", "250 TP0", "{0 0 0 0 0 0 250000000}"},
		{"fraction", "1234567891", "{0 0 0 0 0 0 123456789}"},
		{"fraction", "x", "no"},
	} {
		var st Stamp
		var ok bool
		switch tc.part {
		case "date":
			ok = st.Date([]byte(tc.in))
		case "monthday":
			ok = st.MonthDay([]byte(tc.in))
		case "time":
			ok = st.TimeOfDay([]byte(tc.in))
		case "fraction":
			ok = st.Fraction([]byte(tc.in)) > 0
		}
		got := "no"
		if ok {
			got = fmt.Sprint(st)
		}
		if got != tc.want {
			t.Errorf("%s %q: %s, want %s", tc.part, tc.in, got, tc.want)
		}
	}
}
