package outlastlog

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestParseRFC3339 checks the allocation-free parser against time.Parse:
// whatever it accepts, time.Parse accepts as the same instant, and it
// accepts the forms gateways write.
func TestParseRFC3339(t *testing.T) {
	inputs := []string{
		"2026-10-27T12:00:00Z", "2026-10-27T12:00:00.5Z", "2026-10-27T12:00:00.123456789Z",
		"2026-10-27T14:00:00+02:00", "2026-10-27T06:30:00-05:30", "2024-02-29T00:00:00Z", "1969-12-31T23:59:59.999Z",
		"2025-02-29T00:00:00Z", "2026-10-27T24:00:00Z", "2026-10-27T12:60:00Z", "2026-10-27T12:00:60Z",
		"2026-13-01T00:00:00Z", "2026-04-31T00:00:00Z", "2026-10-27T12:00:00", "2026-10-27 12:00:00Z",
		"2026-10-27T12:00:00.Z", "2026-10-27T12:00:00.1234567891Z", "2026-10-27T12:00:00+2:00", "2026-10-27T12:00:00+02:60",
		"2026-10-27t12:00:00z", "26-10-27T12:00:00Z", "2026-10-27T12:00:00ZZ",
	}
	fixed := len(inputs)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		ts := time.Unix(rng.Int64N(4e9)-1e9, rng.Int64N(1e9)).In(time.FixedZone("", (rng.IntN(49)-24)*1800))
		inputs = append(inputs, ts.Format(time.RFC3339Nano), ts.Format("2006-01-02T15:04:05.000Z07:00"))
	}
	for i, in := range inputs {
		sec, nsec, ok := parseRFC3339([]byte(in))
		want, err := time.Parse(time.RFC3339Nano, in)
		switch {
		case ok && err != nil:
			t.Errorf("%s: accepted, but time.Parse says %v", in, err)
		case ok && (sec != want.Unix() || nsec != want.Nanosecond()):
			t.Errorf("%s: %d.%09d, want %d.%09d", in, sec, nsec, want.Unix(), want.Nanosecond())
		case !ok && i >= fixed:
			// The common forms must take the fast path; odd ones may fall back.
			t.Errorf("%s: not parsed", in)
		}
	}
}

// TestDaysFromCivil checks the date arithmetic against the time package on
// every day of years 0000 to 9999 near leap rules, and a sweep.
func TestDaysFromCivil(t *testing.T) {
	for _, y := range []int{0, 1, 4, 99, 100, 400, 1582, 1899, 1900, 1969, 1970, 1999, 2000, 2024, 2026, 2100, 2400, 9999} {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= daysIn(m, y); d++ {
				want := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
				if got := daysFromCivil(y, m, d); got != want {
					t.Fatalf("%04d-%02d-%02d: got %d, want %d", y, m, d, got, want)
				}
			}
		}
	}
}

// TestMinuteCache checks the cached parser against parseRFC3339 on a
// sequence of times that mostly share their minute with the time before,
// as a log's do, with bad seconds, fractions and zones after a good minute,
// and bad minutes after a good one.
func TestMinuteCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	tails := []string{":00Z", ":59.999Z", ":07.5+02:00", ":07-05:30", ":60Z", ":5Z", ":07.Z", ":07", ":07ZZ", ":07+02:60", "x07Z", ":0aZ"}
	minutes := []string{"2026-10-27T12:00", "2026-10-27T12:01", "2024-02-29T23:59", "2025-02-29T00:00", "2026-10-27T24:00", "2026-10-27t12:00"}
	var c minuteCache
	for range 20000 {
		in := minutes[rng.IntN(len(minutes))] + tails[rng.IntN(len(tails))]
		if rng.IntN(8) == 0 {
			in = in[:rng.IntN(len(in)+1)] // cut short
		}
		gs, gn, gok := c.parse([]byte(in))
		ws, wn, wok := parseRFC3339([]byte(in))
		if gs != ws || gn != wn || gok != wok {
			t.Fatalf("%q: cached %d.%09d %v, want %d.%09d %v", in, gs, gn, gok, ws, wn, wok)
		}
	}
}
