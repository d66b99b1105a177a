package promscrape

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// This file is a validating parser for single lines of the Prometheus text
// exposition format (0.0.4). It works line by line so errors carry the
// file's own line and column, and it allocates nothing per line.

// label is one name="value" pair; both slices point into the line.
type label struct {
	name, value []byte
	escaped     bool // value holds backslash escapes
}

// sample is one parsed sample line; slices point into the line.
type sample struct {
	name   []byte
	labels []label
	value  float64
	ts     int64 // milliseconds, valid if hasTS
	hasTS  bool
}

// Comment kinds returned by parseComment.
const (
	commentPlain = iota
	commentHelp
	commentType
	commentScrape
)

// Metric types of a TYPE line.
const (
	typeUntyped = iota
	typeCounter
	typeGauge
	typeHistogram
	typeSummary
)

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func skipBlank(b []byte, i int) int {
	for i < len(b) && isBlank(b[i]) {
		i++
	}
	return i
}

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':'
}

func isNameChar(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }

func isLabelStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }

func isLabelChar(c byte) bool { return isLabelStart(c) || c >= '0' && c <= '9' }

// scanName returns the end of the metric name starting at i, or i if there
// is none.
func scanName(b []byte, i int) int {
	if i >= len(b) || !isNameStart(b[i]) {
		return i
	}
	i++
	for i < len(b) && isNameChar(b[i]) {
		i++
	}
	return i
}

// str views b as a string without copying; the result must not outlive b.
func str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// parseSample parses a sample line into s. On error it returns the 1-based
// column of the problem.
func parseSample(b []byte, s *sample) (int, error) {
	i := skipBlank(b, 0)
	end := scanName(b, i)
	if end == i {
		return i + 1, errors.New("invalid metric name")
	}
	s.name = b[i:end]
	s.labels = s.labels[:0]
	s.hasTS = false
	i = skipBlank(b, end)
	if i < len(b) && b[i] == '{' {
		var col int
		var err error
		if i, col, err = parseLabels(b, i+1, s); err != nil {
			return col, err
		}
		i = skipBlank(b, i)
	}
	if i >= len(b) {
		return i + 1, fmt.Errorf("missing value for %s", s.name)
	}
	vs := i
	for i < len(b) && !isBlank(b[i]) {
		i++
	}
	v, err := strconv.ParseFloat(str(b[vs:i]), 64)
	if err != nil || bytes.IndexByte(b[vs:i], '_') >= 0 { // Go-only digit separators
		return vs + 1, fmt.Errorf("invalid value %q", string(b[vs:i]))
	}
	s.value = v
	i = skipBlank(b, i)
	if i == len(b) {
		return 0, nil
	}
	ts := i
	for i < len(b) && !isBlank(b[i]) {
		i++
	}
	t, err := strconv.ParseInt(str(b[ts:i]), 10, 64)
	if err != nil {
		return ts + 1, fmt.Errorf("invalid timestamp %q: want integer milliseconds", string(b[ts:i]))
	}
	if i = skipBlank(b, i); i != len(b) {
		return i + 1, errors.New("unexpected text after timestamp")
	}
	s.ts, s.hasTS = t, true
	return 0, nil
}

// parseLabels parses a label set after its '{' at i, returning the index
// after the closing '}'.
func parseLabels(b []byte, i int, s *sample) (int, int, error) {
	for {
		i = skipBlank(b, i)
		if i >= len(b) {
			return 0, i + 1, errors.New("unterminated label set")
		}
		if b[i] == '}' {
			return i + 1, 0, nil
		}
		ns := i
		if !isLabelStart(b[i]) {
			return 0, i + 1, errors.New("invalid label name")
		}
		for i++; i < len(b) && isLabelChar(b[i]); i++ {
		}
		name := b[ns:i]
		if i = skipBlank(b, i); i >= len(b) || b[i] != '=' {
			return 0, i + 1, fmt.Errorf("expected '=' after label name %q", name)
		}
		if i = skipBlank(b, i+1); i >= len(b) || b[i] != '"' {
			return 0, i + 1, fmt.Errorf("expected '\"' to start the value of label %q", name)
		}
		i++
		vs, esc := i, false
		for {
			if i >= len(b) {
				return 0, vs + 1, fmt.Errorf("unterminated value of label %q", name)
			}
			c := b[i]
			if c == '"' {
				break
			}
			if c == '\\' {
				if i+1 >= len(b) || (b[i+1] != '\\' && b[i+1] != '"' && b[i+1] != 'n') {
					return 0, i + 1, fmt.Errorf("invalid escape in value of label %q", name)
				}
				esc = true
				i += 2
				continue
			}
			i++
		}
		val := b[vs:i]
		if !utf8.Valid(val) {
			return 0, vs + 1, fmt.Errorf("value of label %q is not valid UTF-8", name)
		}
		for _, l := range s.labels {
			if bytes.Equal(l.name, name) {
				return 0, ns + 1, fmt.Errorf("duplicate label %q", name)
			}
		}
		s.labels = append(s.labels, label{name: name, value: val, escaped: esc})
		i = skipBlank(b, i+1)
		if i < len(b) && b[i] == ',' {
			i++
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i + 1, 0, nil
		}
		return 0, i + 1, errors.New("expected ',' or '}' after label value")
	}
}

// String returns the label value, resolving escapes.
func (l label) String() string {
	if !l.escaped {
		return string(l.value)
	}
	out := make([]byte, 0, len(l.value))
	for i := 0; i < len(l.value); i++ {
		c := l.value[i]
		if c == '\\' && i+1 < len(l.value) {
			i++
			c = l.value[i]
			if c == 'n' {
				c = '\n'
			}
		}
		out = append(out, c)
	}
	return string(out)
}

// comment is a parsed comment line; slices point into the line.
type comment struct {
	kind int
	name []byte // HELP/TYPE: the metric name
	typ  int    // TYPE: the metric type
	sec  int64  // scrape: Unix time
	nsec int64
}

// parseComment parses a line whose first non-blank byte, at i, is '#'.
func parseComment(b []byte, i int, c *comment) (int, error) {
	i = skipBlank(b, i+1)
	ks := i
	for i < len(b) && !isBlank(b[i]) {
		i++
	}
	c.kind = commentPlain
	switch kw := str(b[ks:i]); kw {
	case "HELP", "TYPE":
		ns := skipBlank(b, i)
		ne := scanName(b, ns)
		if ne == ns {
			return ns + 1, fmt.Errorf("invalid metric name in %s line", kw)
		}
		c.name = b[ns:ne]
		if ne < len(b) && !isBlank(b[ne]) {
			return ne + 1, fmt.Errorf("invalid metric name in %s line", kw)
		}
		if kw == "HELP" {
			c.kind = commentHelp
			for j := ne; j < len(b); j++ {
				if b[j] == '\\' {
					if j+1 >= len(b) || (b[j+1] != '\\' && b[j+1] != 'n') {
						return j + 1, errors.New("invalid escape in HELP text")
					}
					j++
				}
			}
			if !utf8.Valid(b[ne:]) {
				return ne + 1, errors.New("HELP text is not valid UTF-8")
			}
			return 0, nil
		}
		c.kind = commentType
		ts := skipBlank(b, ne)
		te := ts
		for te < len(b) && !isBlank(b[te]) {
			te++
		}
		switch t := b[ts:te]; {
		case bytes.EqualFold(t, []byte("counter")):
			c.typ = typeCounter
		case bytes.EqualFold(t, []byte("gauge")):
			c.typ = typeGauge
		case bytes.EqualFold(t, []byte("histogram")):
			c.typ = typeHistogram
		case bytes.EqualFold(t, []byte("summary")):
			c.typ = typeSummary
		case bytes.EqualFold(t, []byte("untyped")):
			c.typ = typeUntyped
		default:
			return ts + 1, fmt.Errorf("unknown metric type %q", t)
		}
		if te = skipBlank(b, te); te != len(b) {
			return te + 1, errors.New("unexpected text after metric type")
		}
		return 0, nil
	case "scrape":
		c.kind = commentScrape
		vs := skipBlank(b, i)
		ve := vs
		for ve < len(b) && !isBlank(b[ve]) {
			ve++
		}
		v := bytes.TrimPrefix(b[vs:ve], []byte("ts="))
		sec, nsec, ok := parseUnix(v)
		if !ok {
			return vs + 1, fmt.Errorf("invalid scrape time %q: want Unix seconds", b[vs:ve])
		}
		if e := skipBlank(b, ve); e != len(b) {
			return e + 1, errors.New("unexpected text after scrape time")
		}
		c.sec, c.nsec = sec, nsec
		return 0, nil
	}
	return 0, nil
}

// parseUnix parses non-negative Unix seconds such as "1761566412.250"
// exactly to nanoseconds, falling back to a float for exponent forms.
func parseUnix(b []byte) (sec, nsec int64, ok bool) {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i > 0 && i <= 12 {
		sec, _ = strconv.ParseInt(str(b[:i]), 10, 64)
		if i == len(b) {
			return sec, 0, true
		}
		if b[i] == '.' {
			scale := int64(1e8)
			j := i + 1
			for ; j < len(b) && b[j] >= '0' && b[j] <= '9'; j++ {
				nsec += int64(b[j]-'0') * scale
				scale /= 10 // digits past nanoseconds add 0
			}
			if j == len(b) {
				return sec, nsec, true
			}
		}
	}
	f, err := strconv.ParseFloat(str(b), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f > 1e12 {
		return 0, 0, false
	}
	s := math.Floor(f)
	sec, nsec = int64(s), int64(math.Round((f-s)*1e9))
	if nsec >= 1e9 {
		sec, nsec = sec+1, nsec-1e9
	}
	return sec, nsec, true
}
