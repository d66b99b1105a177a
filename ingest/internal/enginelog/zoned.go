package enginelog

import "time"

// This file reads the RFC 3339 stamps that wrappers carry, with their
// zone.

// rfc3339 returns the length of an RFC 3339 date-time at the start of b,
// "2006-01-02T15:04:05" with an optional fraction of any length and an
// optional zone ("Z", "+02:00", "+0200"), and whether it has a zone; 0
// when b does not begin with one.
func rfc3339(b []byte) (int, bool) {
	var st Stamp
	if len(b) < 19 || !st.Date(b) || b[10] != 'T' || !st.TimeOfDay(b[11:]) {
		return 0, false
	}
	n := 19
	if n < len(b) && b[n] == '.' {
		d := digits(b[n+1:])
		if d == 0 {
			return 0, false
		}
		n += 1 + d
	}
	switch {
	case n < len(b) && b[n] == 'Z':
		return n + 1, true
	case n+5 < len(b) && (b[n] == '+' || b[n] == '-') && digits(b[n+1:n+3]) == 2 && b[n+3] == ':' && digits(b[n+4:n+6]) == 2:
		return n + 6, true
	case n+4 < len(b) && (b[n] == '+' || b[n] == '-') && digits(b[n+1:n+5]) == 4:
		return n + 5, true
	}
	return n, false
}

// digits returns the number of ASCII digits at the start of b.
func digits(b []byte) int {
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	return n
}

// parseZoned parses a wrapper's stamp that carries its zone: an RFC 3339
// stamp as rfc3339 accepts it, and journalctl's short-unix seconds since
// the epoch ("1787051702.123456") and short-full stamp in UTC ("Tue
// 2026-08-18 14:15:04 UTC", matchJournald).
func parseZoned(s string) (time.Time, bool) {
	if n := journalUnix([]byte(s)); n == len(s) {
		sec, _ := ParseUint([]byte(s[:n-7]))
		usec, _ := ParseUint([]byte(s[n-6:]))
		return time.Unix(sec, usec*1000).UTC(), true
	}
	for _, layout := range [...]string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999-0700", "Mon 2006-01-02 15:04:05.999999 UTC"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
