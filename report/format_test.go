package report

import (
	"math"
	"testing"

	"github.com/outlast-dev/outlast/stats"
)

func TestRecoveryLabel(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		r    stats.Recovery
		want string
	}{
		{stats.Recovery{Status: stats.Recovered, Minutes: 0}, "<5"},
		{stats.Recovery{Status: stats.Recovered, Minutes: 4}, "<5"}, // §6: times below 5 minutes print as "<5"
		{stats.Recovery{Status: stats.Recovered, Minutes: 5}, "5"},
		{stats.Recovery{Status: stats.Recovered, Minutes: 7}, "7"},
		{stats.Recovery{Status: stats.Recovered, Minutes: 30}, "30"},
		{stats.Recovery{Status: stats.NotRecovered, Minutes: nan}, "not recovered"},
		{stats.Recovery{Status: stats.InsufficientFollowUp, Minutes: nan}, "insufficient follow-up"},
	} {
		if got := recoveryLabel(tc.r); got != tc.want {
			t.Errorf("recoveryLabel(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}

// TestRecoverRangeLabel: the forms of Table 3's "time to recover" column.
func TestRecoverRangeLabel(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{nan, nan, "–"}, // none recovered
		{0, 0, "<5"},    // all within the first window
		{0, 6, "≤6"},
		{1, 1, "<5"}, // §6: times below 5 minutes print as "<5"
		{1, 4, "<5"},
		{3, 6, "≤6"},
		{21, 23, "21–23"},
		{14, 14, "14"},
	} {
		if got := recoverRangeLabel(tc.lo, tc.hi); got != tc.want {
			t.Errorf("recoverRangeLabel(%v, %v) = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestPCell(t *testing.T) {
	for _, tc := range []struct {
		p          float64
		cell, text string
	}{
		{0.00390625, "0.00391", "p = 0.00391"},
		{0.03125, "0.0312", "p = 0.0312"},
		{1, "1", "p = 1"},
		{0.00001, "<0.0001", "p < 0.0001"},
		{math.NaN(), "", "not defined"},
	} {
		if got := pCell(tc.p).String(); got != tc.cell {
			t.Errorf("pCell(%v) = %q, want %q", tc.p, got, tc.cell)
		}
		if got := pText(tc.p); got != tc.text {
			t.Errorf("pText(%v) = %q, want %q", tc.p, got, tc.text)
		}
	}
}

func TestSourceDate(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1764374400")
	if d, ok := SourceDate(); !ok || d != "2025-11-29" {
		t.Errorf("SourceDate() = %q, %v", d, ok)
	}
	for _, bad := range []string{"soon", "-1", ""} {
		t.Setenv("SOURCE_DATE_EPOCH", bad)
		if d, ok := SourceDate(); ok {
			t.Errorf("SOURCE_DATE_EPOCH=%q gave %q", bad, d)
		}
	}
}
