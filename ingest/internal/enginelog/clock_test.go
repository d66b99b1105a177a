package enginelog

import (
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin on machines without a zone database
)

// TestYearless places yearless stamps: the first takes the year nearest
// T0, later ones roll over Dec->Jan, and stamps slightly out of order stay
// in their year.
func TestYearless(t *testing.T) {
	c := NewClock(Options{T0: time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)})
	for _, tc := range []struct {
		mon, day, hour, min, sec int
		want                     string
	}{
		{12, 31, 23, 59, 50, "2025-12-31T23:59:50Z"}, // nearer T0 than 2026-12-31
		{12, 31, 23, 59, 40, "2025-12-31T23:59:40Z"}, // a little back: same year
		{1, 1, 0, 0, 20, "2026-01-01T00:00:20Z"},     // rolled over
		{7, 15, 12, 0, 0, "2026-07-15T12:00:00Z"},
		{1, 2, 0, 0, 0, "2027-01-02T00:00:00Z"}, // more than half a year back: the next year
	} {
		if got := c.Yearless(Stamp{Mon: tc.mon, Day: tc.day, Hour: tc.hour, Min: tc.min, Sec: tc.sec}).Format(time.RFC3339); got != tc.want {
			t.Errorf("%02d-%02d %02d:%02d:%02d = %s, want %s", tc.mon, tc.day, tc.hour, tc.min, tc.sec, got, tc.want)
		}
	}
}

// TestTimeOnly places time-only stamps: the first on the day around T0
// that puts it nearest T0, later ones on that day until midnight passes.
func TestTimeOnly(t *testing.T) {
	for _, tc := range []struct {
		t0    string
		times [][3]int
		want  []string
	}{
		{"2024-08-31T04:40:00Z", [][3]int{{4, 40, 55}, {4, 40, 56}, {4, 40, 50}, {23, 59, 59}, {0, 0, 3}, {0, 0, 1}},
			[]string{"2024-08-31T04:40:55Z", "2024-08-31T04:40:56Z", "2024-08-31T04:40:50Z", "2024-08-31T23:59:59Z", "2024-09-01T00:00:03Z", "2024-09-01T00:00:01Z"}},
		// Started just before midnight: the first line, after midnight, is on the next day.
		{"2024-12-31T23:59:50Z", [][3]int{{0, 0, 5}, {0, 1, 0}}, []string{"2025-01-01T00:00:05Z", "2025-01-01T00:01:00Z"}},
		// Started just after midnight, the log a little before.
		{"2024-03-01T00:00:10Z", [][3]int{{23, 59, 58}, {0, 0, 20}}, []string{"2024-02-29T23:59:58Z", "2024-03-01T00:00:20Z"}},
	} {
		c := NewClock(Options{T0: mustUTC(tc.t0)})
		for i, hms := range tc.times {
			if got := c.TimeOnly(Stamp{Hour: hms[0], Min: hms[1], Sec: hms[2]}).Format(time.RFC3339); got != tc.want[i] {
				t.Errorf("T0 %s, stamp %d %v: %s, want %s", tc.t0, i, hms, got, tc.want[i])
			}
		}
	}
}

func mustUTC(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestDate checks full stamps in a zone, across the minutes the clock
// caches, and the seconds since T0.
func TestDate(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 7, 20, 8, 15, 0, 0, time.UTC)
	c := NewClock(Options{T0: t0, Loc: berlin})
	for _, tc := range []struct {
		sec, nsec int
		min       int
		want      float64
	}{{5, 0, 15, 5}, {5, 250e6, 15, 5.25}, {0, 0, 16, 60}, {59, 0, 15, 59}} {
		if got := c.Since(c.Date(Stamp{2025, 7, 20, 10, tc.min, tc.sec, tc.nsec})); got != tc.want {
			t.Errorf("10:%02d:%02d.%09d CEST = %v s after T0, want %v", tc.min, tc.sec, tc.nsec, got, tc.want)
		}
	}
}

func TestDialectAndSlab(t *testing.T) {
	d := NewDialect("", "old", "new")
	if d.Name() != "" {
		t.Errorf("nothing seen: %q", d.Name())
	}
	d.Saw(2)
	d.Saw(1)
	if d.Rank() != 2 || d.Name() != "new" {
		t.Errorf("rank %d %q, want the newest seen", d.Rank(), d.Name())
	}
	s := NewSlab[[2]int](2)
	a, b, c := s.New(), s.New(), s.New()
	a[0], b[0], c[0] = 1, 2, 3
	if a == b || b == c || *a != [2]int{1, 0} || *c != [2]int{3, 0} {
		t.Errorf("slab values share memory or are not zeroed: %v %v %v", *a, *b, *c)
	}
}

// TestFallBack places the stamps of a log written in Europe/Berlin through
// the night summer time ended (2026-10-25: 03:00 CEST became 02:00 CET, so
// 02:00-02:59 came twice): each pass of the repeated hour on its own
// instant, in order, for every kind of stamp, and a log that begins inside
// the repeated hour placed by T0.
func TestFallBack(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	walls := [][3]int{{1, 59, 50}, {2, 0, 0}, {2, 30, 0}, {2, 59, 59}, {2, 0, 1}, {2, 30, 0}, {3, 0, 0}}
	want := []string{ // UTC: CEST is +2, CET +1
		"2026-10-24T23:59:50Z", "2026-10-25T00:00:00Z", "2026-10-25T00:30:00Z", "2026-10-25T00:59:59Z",
		"2026-10-25T01:00:01Z", "2026-10-25T01:30:00Z", "2026-10-25T02:00:00Z",
	}
	t0 := mustUTC("2026-10-24T23:00:00Z")
	for _, kind := range []string{"full", "yearless", "time only"} {
		c := NewClock(Options{T0: t0, Loc: berlin})
		for i, w := range walls {
			st := Stamp{Year: 2026, Mon: 10, Day: 25, Hour: w[0], Min: w[1], Sec: w[2]}
			var got time.Time
			switch kind {
			case "full":
				got = c.Date(st)
			case "yearless":
				st.Year = 0
				got = c.Yearless(st)
			case "time only":
				st.Year, st.Mon, st.Day = 0, 0, 0
				got = c.TimeOnly(st)
			}
			if s := got.UTC().Format(time.RFC3339); s != want[i] {
				t.Errorf("%s: stamp %d %02d:%02d:%02d = %s, want %s", kind, i, w[0], w[1], w[2], s, want[i])
			}
		}
	}
	// A quiet spell in the second pass: 02:50 and 02:59:59 CEST, then,
	// 40 minutes later, 02:40 CET, which is nearer the first pass's 02:40
	// but would go back in time there.
	c := NewClock(Options{T0: t0, Loc: berlin})
	placeDay(t, "quiet spell", &c, Stamp{Year: 2026, Mon: 10, Day: 25}, []wallWant{
		{2, 50, 0, "2026-10-25T00:50:00Z"}, {2, 59, 59, "2026-10-25T00:59:59Z"}, {2, 40, 0, "2026-10-25T01:40:00Z"}})
	// Lord Howe falls back by 30 minutes (02:00 +11 to 01:30 +10:30).
	lh, err := time.LoadLocation("Australia/Lord_Howe")
	if err != nil {
		t.Fatal(err)
	}
	c = NewClock(Options{T0: mustUTC("2026-04-04T14:00:00Z"), Loc: lh})
	placeDay(t, "Lord Howe", &c, Stamp{Year: 2026, Mon: 4, Day: 5}, []wallWant{
		{1, 40, 0, "2026-04-04T14:40:00Z"}, {1, 55, 0, "2026-04-04T14:55:00Z"}, {1, 35, 0, "2026-04-04T15:05:00Z"}})
	// A log that begins in the second pass, its run started in it too.
	c = NewClock(Options{T0: mustUTC("2026-10-25T01:10:00Z"), Loc: berlin})
	if got := c.Date(Stamp{Year: 2026, Mon: 10, Day: 25, Hour: 2, Min: 15}).UTC().Format(time.RFC3339); got != "2026-10-25T01:15:00Z" {
		t.Errorf("first stamp in the second pass: %s, want 2026-10-25T01:15:00Z", got)
	}
	c = NewClock(Options{T0: mustUTC("2026-10-25T00:10:00Z"), Loc: berlin})
	if got := c.Date(Stamp{Year: 2026, Mon: 10, Day: 25, Hour: 2, Min: 15}).UTC().Format(time.RFC3339); got != "2026-10-25T00:15:00Z" {
		t.Errorf("first stamp in the first pass: %s, want 2026-10-25T00:15:00Z", got)
	}
}

// wallWant is a wall-clock time of day and the instant wanted for it.
type wallWant struct {
	h, m, s int
	want    string // RFC 3339, UTC
}

// placeDay places the stamps ws on day, one after another, on c.
func placeDay(t *testing.T, name string, c *Clock, day Stamp, ws []wallWant) {
	t.Helper()
	for i, w := range ws {
		st := day
		st.Hour, st.Min, st.Sec = w.h, w.m, w.s
		if got := c.Date(st).UTC().Format(time.RFC3339); got != w.want {
			t.Errorf("%s, stamp %d: %s, want %s", name, i, got, w.want)
		}
	}
}
