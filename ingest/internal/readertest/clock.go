package readertest

import (
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin on machines without a zone database
)

// T0 is the t=0 that the readers' tests share: 2026-10-27T12:00:00Z, Unix
// 1793102400, the vllm-2026 fixture's started_at, from which the 2026
// fixtures and the tests' own records are timed.
var T0 = time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC)

// Berlin returns the Europe/Berlin zone, in which the engine-log readers'
// tests write wall-clock stamps an hour or two ahead of UTC.
func Berlin(t testing.TB) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// CheckBerlin reads a winter and a summer line stamped on Berlin's wall
// clock 5 s after their T0 (a UTC time): each 5 s after T0 in the Berlin
// zone, one hour (CET) or two (CEST) ahead of UTC, and the summer line
// 2 h 5 s after T0 when the log's zone is left at UTC.
func (e Engine) CheckBerlin(t *testing.T, winterT0, winter, summerT0, summer string) {
	berlin := Berlin(t)
	e.CheckZones(t, []ZoneCase{
		{T0: winterT0, Line: winter, Loc: berlin, Want: 5},
		{T0: summerT0, Line: summer, Loc: berlin, Want: 5},
		{T0: summerT0, Line: summer, Want: 7205},
	})
}
