// Package rfc3339 parses the RFC 3339 times of outlast's inputs: Go's
// layout, and the forms RFC 3339 admits beside it (section 5.6) that the
// layout refuses: a lowercase "t" and "z", and a space between the date and
// the time, which the RFC allows "for the sake of readability" and which
// Python's str(datetime) writes ("2026-10-27 12:00:10.5+00:00"). The zone
// is required in every form.
package rfc3339

import "time"

// Parse parses s as an RFC 3339 time with its zone.
func Parse(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err == nil || len(s) < 20 {
		return t, err
	}
	b := []byte(s)
	if c := b[10]; c == 't' || c == ' ' {
		b[10] = 'T'
	}
	if n := len(b) - 1; b[n] == 'z' {
		b[n] = 'Z'
	}
	if string(b) == s {
		return t, err
	}
	if t2, err2 := time.Parse(time.RFC3339Nano, string(b)); err2 == nil {
		return t2, nil
	}
	return t, err
}
