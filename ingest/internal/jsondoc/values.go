package jsondoc

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/outlast-dev/outlast/ingest/internal/decimal"
	"github.com/outlast-dev/outlast/textpos"
)

// Err is a bad value: what is wrong with it, and its offset in the record
// (-1 when the fault is an absent member, which has no place). It is
// textpos.Reason, the reason of every reader's errors.
type Err = textpos.Reason

// Errf returns an Err at offset off.
func Errf(off int, format string, args ...any) *Err {
	return textpos.Reasonf(off, nil, format, args...)
}

// IsNull reports whether the value v is null.
func IsNull(v []byte) bool { return string(v) == "null" }

// Describe names the kind of the value v for messages: "a string",
// "an object", "null", ...
func Describe(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return string(v)
	case 'n':
		return "null"
	}
	return "the number " + string(v)
}

func isNumber(v []byte) bool { return len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) }

// Object parses the member's value as an object into dst; name is the
// member's dotted path for the error.
func (m Member) Object(name string, dst Object) (Object, *Err) {
	if len(m.Val) == 0 || m.Val[0] != '{' {
		return nil, Errf(m.Off, "%s: want an object, got %s", name, Describe(m.Val))
	}
	return Members(m.Val, m.Off, dst[:0]), nil
}

// String returns the member's string value.
func (m Member) String(name string) (string, *Err) {
	if len(m.Val) == 0 || m.Val[0] != '"' {
		return "", Errf(m.Off, "%s: want a string, got %s", name, Describe(m.Val))
	}
	body := m.Val[1 : len(m.Val)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body), nil
	}
	var s string
	if err := json.Unmarshal(m.Val, &s); err != nil {
		return "", Errf(m.Off, "%s: %v", name, err)
	}
	return s, nil
}

// Number returns the member's value as a finite number.
func (m Member) Number(name string) (float64, *Err) {
	if !isNumber(m.Val) {
		return 0, Errf(m.Off, "%s: want a number, got %s", name, Describe(m.Val))
	}
	v, ok := decimal.Parse(m.Val)
	if !ok {
		return 0, Errf(m.Off, "%s: number %s is out of range", name, m.Val)
	}
	return v, nil
}

// Count returns the member's value as a non-negative whole number. A
// float with no fraction (12.0, as Python may write a count) is one.
func (m Member) Count(name string) (int64, *Err) {
	v, err := m.Int(name)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, Errf(m.Off, "%s: want a non-negative integer, got %s", name, m.Val)
	}
	return v, nil
}

// Int returns the member's value as a whole number.
func (m Member) Int(name string) (int64, *Err) {
	if !isNumber(m.Val) {
		return 0, Errf(m.Off, "%s: want an integer, got %s", name, Describe(m.Val))
	}
	if v, ok := decimal.Int(m.Val); ok {
		return v, nil
	}
	f, ok := decimal.Parse(m.Val)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, Errf(m.Off, "%s: want an integer, got %s", name, m.Val)
	}
	return int64(f), nil
}

// Bool returns the member's value as true or false.
func (m Member) Bool(name string) (bool, *Err) {
	switch string(m.Val) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, Errf(m.Off, "%s: want true or false, got %s", name, Describe(m.Val))
}

// Seconds returns the member's value, a time in seconds, split into its
// whole seconds and its fraction, so that a Unix time (1.79e9) loses no
// digit of its fraction before the run's t=0 is taken away.
func (m Member) Seconds(name string) (Time, *Err) {
	if !isNumber(m.Val) {
		return Time{}, Errf(m.Off, "%s: want a time in seconds, got %s", name, Describe(m.Val))
	}
	if sec, frac, ok := decimal.Split(m.Val); ok {
		return Time{sec, frac}, nil
	}
	v, ok := decimal.Parse(m.Val)
	if !ok {
		return Time{}, Errf(m.Off, "%s: number %s is out of range", name, m.Val)
	}
	s := math.Floor(v)
	return Time{int64(s), v - s}, nil
}

// Time is a time in seconds held as whole seconds plus a fraction in
// [0, 1).
type Time struct {
	Sec  int64
	Frac float64
}

// Since returns t − t0 in seconds, the large parts subtracted exactly.
func (t Time) Since(t0 Time) float64 { return float64(t.Sec-t0.Sec) + (t.Frac - t0.Frac) }

// Float returns t as one number.
func (t Time) Float() float64 { return float64(t.Sec) + t.Frac }
