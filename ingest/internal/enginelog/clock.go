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
	minuteKey  [5]int
	minuteBase time.Time

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
	if key := [5]int{st.Year, st.Mon, st.Day, st.Hour, st.Min}; key != c.minuteKey || c.minuteBase.IsZero() {
		c.minuteKey = key
		c.minuteBase = time.Date(st.Year, time.Month(st.Mon), st.Day, st.Hour, st.Min, 0, 0, c.loc)
	}
	return c.minuteBase.Add(time.Duration(st.Sec)*time.Second + time.Duration(st.Nsec))
}

// Yearless returns the time of a stamp without a year (vLLM's): the first
// stamp takes the year that puts it nearest T0, later ones keep the year
// unless the clock went back by more than half a year, which is a Dec->Jan
// rollover.
func (c *Clock) Yearless(st Stamp) time.Time {
	if !c.haveYear {
		y0 := c.t0.In(c.loc).Year()
		st.Year = y0
		best := c.Date(st)
		for _, y := range []int{y0 - 1, y0 + 1} {
			st.Year = y
			if t := c.Date(st); absDur(t.Sub(c.t0)) < absDur(best.Sub(c.t0)) {
				best = t
			}
		}
		c.year, c.haveYear, c.prev = best.Year(), true, best
		return best
	}
	st.Year = c.year
	t := c.Date(st)
	if t.Before(c.prev.Add(-maxDaysBack * 24 * time.Hour)) {
		c.year++
		st.Year = c.year
		t = c.Date(st)
	}
	c.prev = t
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
		c.haveDay, c.prevDay = true, best
		return best
	}
	t := c.onDay(st)
	if t.Before(c.prevDay.Add(-maxBack)) {
		c.setDay(c.day.Year, time.Month(c.day.Mon), c.day.Day+1)
		t = c.onDay(st)
	}
	c.prevDay = t
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
	return c.Date(st)
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
