package promjson

// This file reads a series' points: [time, "value"] pairs, by a fast
// path for the common shape and the general JSON reader otherwise, and
// the errors' descriptions and positions.

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/outlast-dev/outlast/ingest/internal/decimal"
	"github.com/outlast-dev/outlast/ingest/internal/promseries"
	"github.com/outlast-dev/outlast/textpos"
)

// values reads the points, [<unix seconds>, "<value>"] each.
func (p *parser) values() error {
	if p.cur >= 0 {
		// The series of one query mostly have as many points each.
		p.r.tl.Reserve(p.cur, p.lastN)
	}
	n := p.r.tl.Len(p.cur)
	err := p.s.array(p.point)
	if p.cur >= 0 {
		p.lastN = p.r.tl.Len(p.cur) - n
	}
	return err
}

// point reads one point. A value of the wrong type is the point's error
// (rawPoint.bad), read over; only broken syntax stops the document.
func (p *parser) point() error {
	s := &p.s
	s.ws()
	if fastPoints && p.fastPoint() {
		return nil
	}
	pt := rawPoint{at: int32(s.i)}
	start := s.i
	if s.kind() != "an array" {
		return s.unexpected(`a point [<unix seconds>, "<value>"]`)
	}
	s.i++
	s.ws()
	if k := s.kind(); k != "a number" || s.b[s.i] == '-' {
		p.fault(&pt, fmt.Errorf("time: want a number of Unix seconds, got %s", describe(s)), s.i)
		return p.skipPoint(start, pt)
	}
	tAt := s.i
	sec, nsec, n := promseries.UnixPrefix(s.b[s.i:]) // the usual form, in one pass
	if n > 1 && s.b[s.i] == '0' && s.b[s.i+1] != '.' {
		n = 0 // a leading zero, which JSON does not allow: number says so
	}
	if n > 0 {
		s.i += n
	} else {
		num, err := s.number()
		if err != nil {
			return err
		}
		var ok bool
		if sec, nsec, ok = promseries.ParseUnix(num); !ok {
			p.fault(&pt, fmt.Errorf("time %s: want Unix seconds", num), tAt)
			return p.skipPoint(start, pt)
		}
	}
	pt.t, pt.timeKnown = promseries.UnixNano(sec, nsec), true
	if err := s.expect(','); err != nil {
		return err
	}
	s.ws()
	pt.vAt = int32(s.i)
	if k := s.kind(); k != "a string" {
		p.fault(&pt, fmt.Errorf(`value: want a string such as "0.5", got %s`, describe(s)), s.i)
		return p.skipPoint(start, pt)
	}
	v, err := s.ascii()
	if err != nil {
		return err
	}
	if pt.v, err = parseValue(v); err != nil {
		p.fault(&pt, fmt.Errorf("value %q: want a number", v), int(pt.vAt))
	}
	if err := s.expect(']'); err != nil {
		if pt.bad == 0 && s.i < len(s.b) && s.b[s.i] == ',' {
			p.fault(&pt, errors.New("point has more than two members: want [<unix seconds>, \"<value>\"]"), s.i)
			return p.skipPoint(start, pt)
		}
		return err
	}
	pt.end = int32(s.i)
	p.keep(&pt)
	return nil
}

// fastPoints turns fastPoint on; tests turn it off to compare.
var fastPoints = true

// fastPoint reads a point of the form Prometheus writes, compact, with
// plain decimal seconds and a value of plain bytes that parseValue takes
// ([1790000005.125,"0.5"]), in one pass, and reports whether it did; any
// other point (spaces, another form of number, escapes, a bad value) is
// left to point, which reads it and says what is wrong. A point is a few
// dozen bytes, and the general way's calls for each of its parts were
// most of the time of a query_range answer.
func (p *parser) fastPoint() bool {
	s := &p.s
	b, i := s.b, s.i
	if i >= len(b) || b[i] != '[' {
		return false
	}
	sec, nsec, n := promseries.UnixPrefix(b[i+1:])
	if n == 0 || n > 1 && b[i+1] == '0' && b[i+2] != '.' {
		return false // not plain seconds, or a leading zero JSON refuses
	}
	j := i + 1 + n // the comma
	if j+1 >= len(b) || b[j] != ',' || b[j+1] != '"' {
		return false
	}
	k := j + 2 // the value's end quote
	for k < len(b) && b[k] != '"' {
		if b[k] == '\\' || b[k] < 0x20 {
			return false
		}
		k++
	}
	if k+1 >= len(b) || b[k+1] != ']' {
		return false
	}
	v, err := parseValue(b[j+2 : k])
	if err != nil {
		return false
	}
	s.i = k + 2
	pt := rawPoint{t: promseries.UnixNano(sec, nsec), v: v, at: int32(i), vAt: int32(j + 1), end: int32(s.i), timeKnown: true}
	p.keep(&pt)
	return true
}

// keep adds a point to its series, or holds it until the end of the
// series when its metric is not known yet; points of metrics outlast does
// not read are dropped.
func (p *parser) keep(pt *rawPoint) {
	switch {
	case p.cur >= 0:
		p.add(p.cur, pt)
	case p.cur == -2:
		p.pts = append(p.pts, *pt)
	}
}

// skipPoint reads over the rest of a bad point from its start and keeps
// its error.
func (p *parser) skipPoint(start int, pt rawPoint) error {
	p.s.i = start
	if err := p.s.skip(0); err != nil {
		return err
	}
	pt.end = int32(p.s.i)
	p.keep(&pt)
	return nil
}

// describe names the value at the scanner's offset, with its text.
func describe(s *scanner) string {
	k := s.kind()
	end := s.i
	for end < len(s.b) && end-s.i < 20 && s.b[end] != ',' && s.b[end] != ']' {
		end++
	}
	return fmt.Sprintf("%s (%s)", k, s.b[s.i:end])
}

// errOf returns err's positioned error, nil when it has none.
func errOf(err error) *textpos.ParseError {
	var pe *textpos.ParseError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// parseValue parses a value as strconv.ParseFloat does (NaN and ±Inf
// included), the plain decimals most values are without it
// (decimal.Simple).
func parseValue(b []byte) (float64, error) {
	if v, ok := decimal.Simple(b); ok {
		return v, nil
	}
	return strconv.ParseFloat(string(b), 64)
}
