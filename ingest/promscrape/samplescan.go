package promscrape

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/outlast-dev/outlast/ingest/internal/promseries"
	"github.com/outlast-dev/outlast/textpos"
)

// This file scans the sample lines of TimedReader and Sniff with columns:
// the name (bare, quoted inside the braces, or the __name__ label of
// promtool tsdb dump), the label set, the value, the timestamp and, in
// OpenMetrics, an exemplar.

// sample is the layout of a sample line: byte offsets into the line.
type sample struct {
	start      int    // the name, or the '{' of a quoted name
	name       []byte // the metric name (a quoted one with its escapes resolved)
	brace      int    // the label set's '{', -1 without one
	keyEnd     int    // just past the name and label set
	valS, valE int    // the value
	tsS, tsE   int    // the timestamp; tsS == tsE without one
	// dump: the name is the __name__ label of a label set that stands for
	// the series, as promtool tsdb dump writes it (nameLabel).
	dump bool
}

// errAt is an error at 0-based byte offset at of the line.
func errAt(at int, format string, args ...any) *textpos.Reason {
	return textpos.Reasonf(at, nil, format, args...)
}

// scanSample lays out the sample line b, whose first non-blank byte is at
// i. It resolves the name but not the labels (parseLabels does), so that
// lines of other metrics cost little. om allows an exemplar after the
// timestamp.
func scanSample(b []byte, i int, om bool) (sample, *textpos.Reason) {
	s := sample{start: i, brace: -1}
	switch j := skipBlank(b, i+1); {
	case b[i] == '{' && j < len(b) && b[j] == '"': // {"name", labels...}
		s.brace = i
		name, e, err := quoted(b, j)
		if err != nil {
			return s, err
		}
		s.name = name
		if k := skipBlank(b, e); k == len(b) || b[k] == '=' {
			return s, errAt(j, "invalid metric name: a quoted name must come first in the braces")
		}
	case b[i] == '{': // {__name__="name", labels...}
		s.brace = i
		name, ok, err := nameLabel(b, i)
		if err != nil {
			return s, err
		}
		if !ok {
			return s, errAt(i, `invalid metric name: want a name, {"quoted name", ...}, or {__name__="name", ...} as promtool tsdb dump writes`)
		}
		s.name, s.dump = name, true
	default:
		j := i
		for j < len(b) && isNameChar(b[j]) {
			j++
		}
		if j == i || b[i] >= '0' && b[i] <= '9' {
			return s, errAt(i, "invalid metric name: want a sample (name{labels} value timestamp) or a # comment")
		}
		s.name = b[i:j]
		s.keyEnd = j
		if j < len(b) && b[j] == '{' {
			s.brace = j
		}
	}
	if s.brace >= 0 {
		e, err := labelSetEnd(b, s.brace)
		if err != nil {
			return s, err
		}
		s.keyEnd = e
	}
	if s.keyEnd == len(b) || !isBlank(b[s.keyEnd]) {
		if s.keyEnd == len(b) {
			return s, errAt(s.keyEnd, "missing value after %s", what(s))
		}
		return s, errAt(s.keyEnd, "unexpected %q after %s", b[s.keyEnd], what(s))
	}
	s.valS = skipBlank(b, s.keyEnd)
	s.valE = skipToken(b, s.valS)
	if s.valS == s.valE {
		return s, errAt(s.valS, "missing value after %s", what(s))
	}
	s.tsS = skipBlank(b, s.valE)
	s.tsE = s.tsS
	if s.tsS < len(b) && !(om && b[s.tsS] == '#') {
		s.tsE = skipToken(b, s.tsS)
	}
	rest := skipBlank(b, s.tsE)
	if rest < len(b) && !(om && b[rest] == '#') {
		return s, errAt(rest, "unexpected text after the timestamp")
	}
	return s, nil
}

func what(s sample) string {
	if s.brace >= 0 {
		return "the label set"
	}
	return "the metric name"
}

// labelSetEnd returns the offset just past the '}' closing the label set
// that opens at b[open], skipping quoted strings.
func labelSetEnd(b []byte, open int) (int, *textpos.Reason) {
	for j := open + 1; j < len(b); j++ {
		switch b[j] {
		case '}':
			return j + 1, nil
		case '"':
			_, e, err := quoted(b, j)
			if err != nil {
				return 0, err
			}
			j = e - 1
		}
	}
	return 0, errAt(open, "unclosed label set: no '}'")
}

// nameLabel returns the value of the __name__ label of the label set that
// opens at b[open], and whether it has one: the form of promtool tsdb
// dump (prometheus/prometheus cmd/promtool/tsdb.go, formatSeriesSet:
// "%s %g %d" of the series' labels.Labels.String(), its value and its
// timestamp in milliseconds), where the name is a label like the others,
// in sorted order (model/labels: `{__name__="up", instance="…", job="…"}`,
// names quoted only when not legacy-valid, values strconv.Quote'd). The
// name comes first but for label names sorting before "__name__"
// (upper-case ones), so the scan mostly stops at the first label.
// parseLabels checks the label set; this reads it only as far as the name.
func nameLabel(b []byte, open int) ([]byte, bool, *textpos.Reason) {
	for j := skipBlank(b, open+1); j < len(b) && b[j] != '}'; {
		ns := j
		var name []byte
		if b[j] == '"' {
			n, e, err := quoted(b, j)
			if err != nil {
				return nil, false, err
			}
			name, j = n, e
		} else {
			for j < len(b) && isLabelChar(b[j]) {
				j++
			}
			name = b[ns:j]
		}
		j = skipBlank(b, j)
		if len(name) == 0 || j == len(b) || b[j] != '=' {
			return nil, false, nil // not a label set: the caller's error
		}
		j = skipBlank(b, j+1)
		if j == len(b) || b[j] != '"' {
			return nil, false, nil
		}
		v, e, err := quoted(b, j)
		if err != nil {
			return nil, false, err
		}
		if string(name) == "__name__" {
			return v, true, nil
		}
		j = skipBlank(b, e)
		if j < len(b) && b[j] == ',' {
			j = skipBlank(b, j+1)
		}
	}
	return nil, false, nil
}

// quoted reads the quoted string at b[q] and returns its content with the
// escapes \\, \" and \n resolved, and the offset past its closing quote.
// Other escapes are resolved as Go's (promtool quotes label values with
// strconv.Quote); a bad one is an error at its backslash.
func quoted(b []byte, q int) ([]byte, int, *textpos.Reason) {
	esc := false
	for j := q + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			esc = true
			j++
		case '"':
			if !esc {
				return b[q+1 : j], j + 1, nil
			}
			v, at, err := unescape(b[q : j+1])
			if err != nil {
				return nil, 0, errAt(q+at, "%v", err)
			}
			return v, j + 1, nil
		}
	}
	return nil, 0, errAt(q, "unterminated quoted string")
}

// unescape resolves the escapes of the quoted string q (with its quotes).
// A bad escape is an error at its offset in q. Bytes that are not escapes
// are kept as they are, so that invalid UTF-8 stays invalid for the
// caller to refuse.
func unescape(q []byte) ([]byte, int, error) {
	out := make([]byte, 0, len(q))
	body := q[:len(q)-1]
	for j := 1; j < len(body); {
		c := body[j]
		if c != '\\' {
			out = append(out, c)
			j++
			continue
		}
		switch body[j+1] {
		case '\\', '"':
			out = append(out, body[j+1])
			j += 2
			continue
		case 'n':
			out = append(out, '\n')
			j += 2
			continue
		}
		r, multi, tail, err := strconv.UnquoteChar(string(body[j:]), '"')
		if err != nil {
			end := min(j+2, len(body))
			return nil, j, fmt.Errorf("invalid escape sequence '%s'", body[j:end])
		}
		if multi {
			out = utf8.AppendRune(out, r)
		} else {
			out = append(out, byte(r))
		}
		j = len(body) - len(tail)
	}
	return out, 0, nil
}

// parseLabels reads the label set of line b laid out in s, appending its
// labels to ls: name="value" pairs separated by commas (one may end the
// set), blanks between tokens, quoted UTF-8 names, no name twice.
func parseLabels(b []byte, s sample, ls []promseries.Label) ([]promseries.Label, *textpos.Reason) {
	if s.brace < 0 {
		return ls, nil
	}
	j := skipBlank(b, s.brace+1)
	if b[j] == '"' { // the quoted metric name, already read
		_, e, _ := quoted(b, j)
		j = skipBlank(b, e)
		if b[j] == ',' {
			j = skipBlank(b, j+1)
		}
	}
	first := len(ls)
	named := false
	for b[j] != '}' {
		ns := j
		var name []byte
		if b[j] == '"' {
			n, e, err := quoted(b, j)
			if err != nil {
				return ls, err
			}
			name, j = n, e
		} else {
			for j < len(b) && isLabelChar(b[j]) {
				j++
			}
			if j == ns || b[ns] >= '0' && b[ns] <= '9' {
				return ls, errAt(ns, "invalid label name")
			}
			name = b[ns:j]
		}
		j = skipBlank(b, j)
		if b[j] != '=' {
			return ls, errAt(j, "expected '=' after label name %q", name)
		}
		j = skipBlank(b, j+1)
		if b[j] != '"' {
			return ls, errAt(j, "expected '\"' at the start of the value of label %q", name)
		}
		v, e, err := quoted(b, j)
		if err != nil {
			return ls, err
		}
		if !utf8.Valid(v) || !utf8.Valid(name) {
			return ls, errAt(j, "label %q: value is not valid UTF-8", name)
		}
		for _, l := range ls[first:] {
			if l.Name == string(name) {
				return ls, errAt(ns, "label %q given twice", name)
			}
		}
		if s.dump && string(name) == "__name__" {
			if named {
				return ls, errAt(ns, "label %q given twice", name)
			}
			named = true // the metric name (nameLabel), not a label of the series
		} else {
			ls = append(ls, promseries.Label{Name: string(name), Value: string(v)})
		}
		j = skipBlank(b, e)
		switch b[j] {
		case ',':
			j = skipBlank(b, j+1)
		case '}':
		default:
			return ls, errAt(j, "expected ',' or '}' after the value of label %q", name)
		}
	}
	return ls, nil
}

func isLabelChar(c byte) bool { return c != ':' && isNameChar(c) }
