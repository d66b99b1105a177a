package enginelog

import "time"

// maxDaysBack is how far a yearless stamp may fall before the previous one
// without being taken as the next year: lines of different processes are
// slightly out of order, a Dec->Jan rollover goes back by about a year.
const maxDaysBack = 183

// Clock places a log's stamps, wall-clock times in the log's zone, on the
// calendar. Stamps that lack part of the date are completed here, from T0
// and the stamps before them.
type Clock struct {
	t0  time.Time
	loc *time.Location

	// minuteKey and minuteBase cache the start of the latest stamp's
	// minute, because time.Date is a large share of the per-line cost.
	// minuteAlt is the minute's other instant when its wall-clock time
	// comes twice (the hour a fall-back repeats), zero otherwise.
	minuteKey  [5]int
	minuteBase time.Time
	minuteAlt  time.Time
	// last is the time of the latest stamp placed, which decides between
	// the two instants of a repeated wall-clock time.
	last time.Time

	// Yearless stamps: the year of the latest, once the first fixed it.
	year     int
	haveYear bool
	prev     time.Time

	// Time-only stamps: the day of the latest (its year, month and day in
	// a Stamp), once the first fixed it, and the latest's time.
	day     Stamp
	haveDay bool
	prevDay time.Time
}

// NewClock returns the clock of a log read with opt.
func NewClock(opt Options) Clock {
	loc := opt.Loc
	if loc == nil {
		loc = time.UTC
	}
	return Clock{t0: opt.T0, loc: loc}
}

// Since returns t in seconds since T0.
func (c *Clock) Since(t time.Time) float64 { return t.Sub(c.t0).Seconds() }

// Date returns the time of a full stamp.
func (c *Clock) Date(st Stamp) time.Time {
	t := c.date(st)
	c.last = t
	return t
}

// date returns the time of a full stamp without making it the latest. A
// wall-clock time that comes twice, in the hour a fall-back to standard
// time repeats, is the earlier of its two instants that is not more than
// 5 minutes (lines of processes slightly out of order) before the latest
// stamp's, else the one nearer it; for the log's first stamp, the one
// nearer T0. A log runs forward, so the repeated hour's first pass follows
// the summer time before it and its second pass follows the first, even
// after a quiet spell (time.Date would give one of the two for both, an
// hour off for half of them).
func (c *Clock) date(st Stamp) time.Time {
	if key := [5]int{st.Year, st.Mon, st.Day, st.Hour, st.Min}; key != c.minuteKey || c.minuteBase.IsZero() {
		c.minuteKey = key
		c.minuteBase = time.Date(st.Year, time.Month(st.Mon), st.Day, st.Hour, st.Min, 0, 0, c.loc)
		c.minuteAlt = otherInstant(c.minuteBase, c.loc)
	}
	in := time.Duration(st.Sec)*time.Second + time.Duration(st.Nsec)
	t := c.minuteBase.Add(in)
	if !c.minuteAlt.IsZero() {
		alt := c.minuteAlt.Add(in)
		if c.last.IsZero() {
			if absDur(alt.Sub(c.t0)) < absDur(t.Sub(c.t0)) {
				return alt
			}
			return t
		}
		const slack = 5 * time.Minute
		floor := c.last.Add(-slack)
		early, late := t, alt
		if alt.Before(t) {
			early, late = alt, t
		}
		switch {
		case !early.Before(floor):
			return early
		case !late.Before(floor):
			return late
		case absDur(alt.Sub(c.last)) < absDur(t.Sub(c.last)):
			return alt
		}
	}
	return t
}

// otherInstant returns the other instant whose wall-clock time in loc is
// t's, when a change of offset makes that time come twice; zero otherwise.
// Offsets change by at most a few hours, and never twice within three.
func otherInstant(t time.Time, loc *time.Location) time.Time {
	if loc == time.UTC {
		return time.Time{}
	}
	_, off := t.Zone()
	wall := t.In(loc)
	for _, d := range []time.Duration{-3 * time.Hour, 3 * time.Hour} {
		_, o := t.Add(d).Zone()
		if o == off {
			continue
		}
		u := t.Add(time.Duration(off-o) * time.Second)
		if sameWall(u.In(loc), wall) {
			return u
		}
	}
	return time.Time{}
}

// sameWall reports whether a and b show the same date and time of day.
func sameWall(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd && a.Hour() == b.Hour() && a.Minute() == b.Minute() && a.Second() == b.Second()
}

// Yearless returns the time of a stamp without a year (vLLM's): the first
// stamp takes the year that puts it nearest T0, later ones keep the year
// unless the clock went back by more than half a year, which is a Dec->Jan
// rollover.
func (c *Clock) Yearless(st Stamp) time.Time {
	if !c.haveYear {
		y0 := c.t0.In(c.loc).Year()
		st.Year = y0
		best := c.date(st)
		for _, y := range []int{y0 - 1, y0 + 1} {
			st.Year = y
			if t := c.date(st); absDur(t.Sub(c.t0)) < absDur(best.Sub(c.t0)) {
				best = t
			}
		}
		c.year, c.haveYear, c.prev, c.last = best.Year(), true, best, best
		return best
	}
	st.Year = c.year
	t := c.date(st)
	if t.Before(c.prev.Add(-maxDaysBack * 24 * time.Hour)) {
		c.year++
		st.Year = c.year
		t = c.date(st)
	}
	c.prev, c.last = t, t
	return t
}

// maxBack is how far a time-only stamp may fall before the previous one
// and still be on its day: lines of different processes are slightly out
// of order, while midnight passing takes the clock back by about a day.
const maxBack = 12 * time.Hour

// TimeOnly returns the time of a stamp with only a time of day (SGLang's
// "[HH:MM:SS TP0]" before late 2024): the first stamp takes the day, of
// those around T0's, that puts it nearest T0; later ones keep the day
// unless the clock went back by more than 12 hours, which is midnight
// passing.
func (c *Clock) TimeOnly(st Stamp) time.Time {
	if !c.haveDay {
		d0 := c.t0.In(c.loc)
		var best time.Time
		for k := -1; k <= 1; k++ {
			c.setDay(d0.Year(), d0.Month(), d0.Day()+k)
			if t := c.onDay(st); k == -1 || absDur(t.Sub(c.t0)) < absDur(best.Sub(c.t0)) {
				best = t
			}
		}
		c.setDay(best.Year(), best.Month(), best.Day())
		c.haveDay, c.prevDay, c.last = true, best, best
		return best
	}
	t := c.onDay(st)
	if t.Before(c.prevDay.Add(-maxBack)) {
		c.setDay(c.day.Year, time.Month(c.day.Mon), c.day.Day+1)
		t = c.onDay(st)
	}
	c.prevDay, c.last = t, t
	return t
}

// setDay makes y-m-d (normalised, so that day 0 and day 32 roll over)
// the day of time-only stamps.
func (c *Clock) setDay(y int, m time.Month, d int) {
	t := time.Date(y, m, d, 12, 0, 0, 0, time.UTC)
	c.day = Stamp{Year: t.Year(), Mon: int(t.Month()), Day: t.Day()}
}

// onDay returns the time of st on the day of time-only stamps.
func (c *Clock) onDay(st Stamp) time.Time {
	st.Year, st.Mon, st.Day = c.day.Year, c.day.Mon, c.day.Day
	return c.date(st)
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
