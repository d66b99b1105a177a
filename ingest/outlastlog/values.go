package outlastlog

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/outlast-dev/outlast/ingest/internal/decimal"
	"github.com/outlast-dev/outlast/internal/rfc3339"
	"github.com/outlast-dev/outlast/textpos"
)

// This file converts member values (strings, enums, counts, numbers and
// times) and words the errors that name their key.

// requiredString returns the string value of key k. With intern, equal
// values share one string.
func (r *Reader) requiredString(l *object, k int, intern bool) (string, *textpos.Reason) {
	m, ok := l.get(k)
	if !ok {
		return "", fieldErr(-1, "missing required field %s", keyNames[k])
	}
	if m.val[0] != '"' {
		return "", fieldErr(m.off, "%s: want a string, got %s", keyNames[k], kindOf(m.val))
	}
	s, err := r.stringValue(m, intern)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", fieldErr(m.off, "%s: want a non-empty string", keyNames[k])
	}
	return s, nil
}

func (r *Reader) stringValue(m member, intern bool) (string, *textpos.Reason) {
	body := m.val[1 : len(m.val)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		s, err := unescape(m.val, m.off)
		if err != nil {
			return "", err
		}
		body = []byte(s)
	}
	if !intern {
		if s, ok := constant(body); ok {
			return s, nil
		}
	} else if s := r.strs[quickHash(body)%internSlots]; s == string(body) && s != "" {
		return s, nil
	}
	if !utf8.Valid(body) {
		return "", fieldErr(m.off, "string is not valid UTF-8")
	}
	s := string(body)
	if intern {
		r.strs[quickHash(body)%internSlots] = s
	}
	return s, nil
}

// internSlots is the size of a parser's string cache: more than the
// sessions in flight at once in a large run.
const internSlots = 1 << 13

// quickHash hashes a short string for the intern cache from its length and
// its first and last eight bytes, which tell session ids apart; strings
// that differ only in between merely collide (one more allocation).
func quickHash(b []byte) uint64 {
	h := uint64(len(b)) * 0x9e3779b97f4a7c15
	if len(b) >= 8 {
		h ^= binary.LittleEndian.Uint64(b) * 0xc2b2ae3d27d4eb4f
		h ^= binary.LittleEndian.Uint64(b[len(b)-8:]) * 0x165667b19e3779f9
	} else {
		for _, c := range b {
			h = (h ^ uint64(c)) * 0x100000001b3
		}
	}
	h ^= h >> 31
	h *= 0x94d049bb133111eb
	return h ^ h>>29
}

// constant returns the static string for the fixed vocabulary (ev kinds,
// statuses, phases), which then costs no allocation.
func constant(b []byte) (string, bool) {
	switch string(b) {
	case EvSessionStart:
		return EvSessionStart, true
	case EvTurn:
		return EvTurn, true
	case EvPark:
		return EvPark, true
	case EvResume:
		return EvResume, true
	case EvSessionEnd:
		return EvSessionEnd, true
	case EvControl:
		return EvControl, true
	case EvTrigger:
		return EvTrigger, true
	case EvRate:
		return EvRate, true
	case "ok":
		return "ok", true
	case "error":
		return "error", true
	case "aborted":
		return "aborted", true
	case "done":
		return "done", true
	case "start":
		return "start", true
	case "end":
		return "end", true
	}
	return "", false
}

// enum returns key k's value, which must be one of allowed; def when
// absent or null (an empty def makes the key required).
func (r *Reader) enum(l *object, k int, def string, allowed ...string) (string, *textpos.Reason) {
	if !l.present(k) {
		if def == "" {
			return "", fieldErr(-1, "missing required field %s", keyNames[k])
		}
		return def, nil
	}
	s, err := r.requiredString(l, k, false)
	if err != nil {
		return "", err
	}
	if !slices.Contains(allowed, s) {
		m, _ := l.get(k)
		return "", fieldErr(m.off, "%s: want %s, got %q", keyNames[k], orList(allowed), s)
	}
	return s, nil
}

func orList(words []string) string {
	switch len(words) {
	case 1:
		return words[0]
	case 2:
		return words[0] + " or " + words[1]
	}
	out := ""
	for i, w := range words[:len(words)-1] {
		if i > 0 {
			out += ", "
		}
		out += w
	}
	return out + " or " + words[len(words)-1]
}

func turnNumber(l *object) (int32, *textpos.Reason) {
	n, err := requiredCount(l, kTurn, "turn")
	if err != nil {
		return 0, err
	}
	if n > math.MaxInt32 {
		m, _ := l.get(kTurn)
		return 0, fieldErr(m.off, "turn: %d is too large", n)
	}
	return int32(n), nil
}

func requiredCount(l *object, k int, what string) (int64, *textpos.Reason) {
	m, ok := l.get(k)
	if !ok {
		return 0, fieldErr(-1, "missing required field %s", what)
	}
	return count(m.val, m.off, keyNames[k])
}

// optCount returns the count under key k, nil when absent or null.
func optCount(l *object, k int) (*int64, *textpos.Reason) {
	m, ok := l.get(k)
	if !ok || isNull(m.val) {
		return nil, nil
	}
	v, err := count(m.val, m.off, keyNames[k])
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// count parses a non-negative integer value. A whole number in another
// form (1000.0, 1e3, -0.0) is that integer, as JSON Schema's "integer"
// takes it: Python's json writes a count held as a float so.
func count(raw []byte, off int, name string) (int64, *textpos.Reason) {
	v, ok := decimal.Int(raw)
	if !ok {
		if raw[0] == '-' || isDigit(raw[0]) {
			f, fok := decimal.Parse(raw)
			if fok && f == math.Trunc(f) && f > -1 && f < 1<<53 {
				return int64(f), nil
			}
			if fok && f < 0 {
				return 0, fieldErr(off, "%s: want a non-negative integer, got %s", name, show(raw))
			}
			return 0, fieldErr(off, "%s: want an integer, got %s", name, show(raw))
		}
		return 0, fieldErr(off, "%s: want an integer, got %s", name, kindOf(raw))
	}
	if v < 0 {
		return 0, fieldErr(off, "%s: want a non-negative integer, got %d", name, v)
	}
	return v, nil
}

// number parses a non-negative number value.
func number(raw []byte, off int, name string) (float64, *textpos.Reason) {
	if raw[0] != '-' && !isDigit(raw[0]) {
		return 0, fieldErr(off, "%s: want a number, got %s", name, kindOf(raw))
	}
	v, ok := decimal.Parse(raw)
	if !ok {
		return 0, fieldErr(off, "%s: number %s is out of range", name, show(raw))
	}
	if v < 0 {
		return 0, fieldErr(off, "%s: want a non-negative number, got %s", name, show(raw))
	}
	return v, nil
}

// requiredTime returns key k's time in run seconds: the value is Unix
// seconds as a number or an RFC 3339 string.
func (r *Reader) requiredTime(l *object, k int) (float64, *textpos.Reason) {
	m, ok := l.get(k)
	if !ok {
		return 0, fieldErr(-1, "missing required field %s", keyNames[k])
	}
	raw := m.val
	switch {
	case raw[0] == '"':
		if sec, nsec, ok := parseRFC3339(raw[1 : len(raw)-1]); ok {
			return float64(sec-r.t0Sec) + (float64(nsec)/1e9 - r.t0Frac), nil
		}
		s, err := r.stringValue(m, false)
		if err != nil {
			return 0, err
		}
		t, perr := rfc3339.Parse(s)
		if perr != nil {
			return 0, fieldErr(m.off, "%s: want Unix seconds or an RFC 3339 time, got %q", keyNames[k], s)
		}
		sec := t.Unix() - r.t0Sec
		return float64(sec) + (float64(t.Nanosecond())/1e9 - r.t0Frac), nil
	case raw[0] == '-' || isDigit(raw[0]):
		if sec, frac, ok := decimal.Split(raw); ok {
			// Subtract the large parts exactly, then the small ones.
			return float64(sec-r.t0Sec) + (frac - r.t0Frac), nil
		}
		v, ok := decimal.Parse(raw)
		if !ok {
			return 0, fieldErr(m.off, "%s: number %s is out of range", keyNames[k], show(raw))
		}
		return v - (float64(r.t0Sec) + r.t0Frac), nil
	}
	return 0, fieldErr(m.off, "%s: want Unix seconds or an RFC 3339 time, got %s", keyNames[k], kindOf(raw))
}
