package promscrape

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/outlast-dev/outlast/ingest/internal/decimal"
	"github.com/outlast-dev/outlast/ingest/internal/promseries"
)

// This file scans the lines of the fast path (fast.go): the plain shapes
// that vLLM and SGLang write, each of which expfmt accepts with the same
// meaning. A line of any other shape, even one expfmt accepts, is refused,
// and the scrape goes to expfmt.

// fastLabelStart reports whether c may begin a label name: expfmt's rule
// without the quoted UTF-8 names, which are refused.
func fastLabelStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// fastName returns the end of the bare metric name that starts b, 0 if b
// does not start with one that expfmt reads as it stands.
func fastName(b []byte) int {
	if len(b) == 0 || !(fastLabelStart(b[0]) || b[0] == ':') {
		return 0
	}
	i := 1
	for i < len(b) && isNameChar(b[i]) {
		i++
	}
	return i
}

// fastSample scans sample line b (without its newline) of the shape
// name{k="v",...} value [timestamp], single spaces, no escapes. It
// returns the end of the name and of the labels in b (b[:end] names the
// series), the labels' spans (appended to spans) and the value; ok is
// false for any other shape, or anything expfmt would reject. Whether
// outlast knows the name is for the caller to ask (describedCache.get):
// it asks once per series, not once per line.
func fastSample(b []byte, spans []labelSpan) (nameEnd, end int, _ []labelSpan, v float64, ok bool) {
	i := fastName(b)
	if i == 0 {
		return 0, 0, spans, 0, false
	}
	nameEnd = i
	if i < len(b) && b[i] == '{' {
		first := len(spans)
		for i++; ; {
			ns := i
			if i == len(b) || !fastLabelStart(b[i]) {
				return 0, 0, spans, 0, false // also "{}" and a trailing comma
			}
			for i < len(b) && isLabelChar(b[i]) {
				i++
			}
			if i+1 >= len(b) || b[i] != '=' || b[i+1] != '"' {
				return 0, 0, spans, 0, false
			}
			name := b[ns:i]
			if string(name) == "__name__" { // reserved: expfmt's error
				return 0, 0, spans, 0, false
			}
			ne := i
			i += 2
			vs := i
			ascii := true
			for i < len(b) && b[i] != '"' {
				switch {
				case b[i] == '\\':
					return 0, 0, spans, 0, false // an escape: expfmt resolves it or fails
				case b[i] >= utf8.RuneSelf:
					ascii = false
				}
				i++
			}
			if i == len(b) || !ascii && !utf8.Valid(b[vs:i]) {
				return 0, 0, spans, 0, false
			}
			for _, l := range spans[first:] {
				if string(b[l.ns:l.ne]) == string(name) { // expfmt's duplicate label error
					return 0, 0, spans, 0, false
				}
			}
			spans = append(spans, labelSpan{ns, ne, vs, i})
			i++
			if i < len(b) && b[i] == ',' {
				i++
				continue
			}
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			return 0, 0, spans, 0, false
		}
	}
	end = i
	if v, ok = fastValue(b, end); !ok {
		return 0, 0, spans, 0, false
	}
	return nameEnd, end, spans, v, true
}

// fastValue scans the rest of sample line b from the end of its series:
// " value" or " value timestamp", as fastSample takes them.
func fastValue(b []byte, i int) (v float64, ok bool) {
	if i == len(b) || b[i] != ' ' {
		return 0, false
	}
	i++
	vs := i
	for i < len(b) && !isBlank(b[i]) {
		i++
	}
	v, ok = fastFloat(b[vs:i])
	if !ok {
		return 0, false
	}
	if i < len(b) {
		if b[i] != ' ' {
			return 0, false
		}
		// The timestamp, which outlast does not use, must still be one
		// expfmt accepts: the whole rest of the line, a decimal int64.
		ts := b[i+1:]
		if bytes.IndexByte(ts, ' ') >= 0 || bytes.IndexByte(ts, '\t') >= 0 {
			return 0, false
		}
		if _, err := strconv.ParseInt(string(ts), 10, 64); err != nil {
			return 0, false
		}
	}
	return v, true
}

// labelSpan is where one label's name (b[ns:ne]) and value (b[vs:ve])
// are in a sample line.
type labelSpan struct{ ns, ne, vs, ve int }

// fastFloat parses a sample value exactly as expfmt does (its parseFloat):
// strconv.ParseFloat, but nothing with 'p', 'P' or '_'. So NaN, ±Inf,
// exponents and all that Go accepts are read as expfmt reads them.
func fastFloat(b []byte) (float64, bool) {
	if v, ok := decimal.Simple(b); ok {
		return v, true
	}
	if len(b) == 0 || bytes.ContainsAny(b, "pP_") {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(b), 64)
	return v, err == nil
}

// Kinds of comment line returned by fastComment.
const (
	fastHelp = iota + 1
	fastType
)

// fastComment scans HELP or TYPE line b (without its newline) of the shape
// "# HELP name text" or "# TYPE name counter|gauge|untyped", single
// spaces, text without backslashes. It returns the line's kind and its
// metric's number, kind 0 for any other line. A TYPE of summary or
// histogram is refused, since expfmt then files samples apart.
func fastComment(b []byte) (kind, m int) {
	if len(b) < 7 || b[0] != '#' || b[1] != ' ' || b[6] != ' ' {
		return 0, 0
	}
	switch string(b[2:6]) {
	case "HELP":
		kind = fastHelp
	case "TYPE":
		kind = fastType
	default:
		return 0, 0
	}
	b = b[7:]
	i := fastName(b)
	if i == 0 || i+1 >= len(b) || b[i] != ' ' || isBlank(b[i+1]) {
		return 0, 0
	}
	if m = promseries.Lookup(b[:i]); m < 0 {
		return 0, 0
	}
	text := b[i+1:]
	if kind == fastHelp {
		if bytes.IndexByte(text, '\\') >= 0 { // escapes: expfmt resolves or rejects them
			return 0, 0
		}
		return kind, m
	}
	switch string(text) {
	case "counter", "gauge", "untyped":
		return kind, m
	}
	return 0, 0
}

// describedCache holds the series of the sample lines seen so far, by
// the lines' name and labels: they repeat from scrape to scrape, and
// taking their labels apart, sorting them and building their keys cost
// more than the rest of a scrape.
type describedCache struct {
	m map[string]*described
	// seq is the series of the scrapes' sample lines in the order they
	// came, pos the place of the current scrape's next line: an exporter
	// writes its series in the same order in every scrape, so a line most
	// often begins with the series at its place the scrape before, which
	// a comparison finds without scanning the line's labels.
	seq []seqSeries
	pos int
}

// seqSeries is one entry of describedCache.seq.
type seqSeries struct {
	key string // the series' name and labels as a line writes them
	d   *described
}

// maxSeq bounds describedCache.seq: past it, series are scanned.
const maxSeq = 4096

// next returns the series at the current place if sample line b begins
// with it, and the end of the series in b. Parsing is deterministic, so a
// line that begins with a series fastSample took, then a space, has that
// series: the rest is only its value.
func (c *describedCache) next(b []byte) (*described, int) {
	if c.pos < len(c.seq) {
		e := &c.seq[c.pos]
		if n := len(e.key); len(b) > n && b[n] == ' ' && string(b[:n]) == e.key {
			c.pos++
			return e.d, n
		}
	}
	return nil, 0
}

// place records d, the series key, at the current place, after next did
// not find it there.
func (c *describedCache) place(key []byte, d *described) {
	if c.pos > len(c.seq) {
		return // past maxSeq
	}
	c.seq = c.seq[:c.pos] // the order changed: learn it again from here
	if len(c.seq) < maxSeq {
		c.seq = append(c.seq, seqSeries{string(key), d})
	}
	c.pos++
}

// described is what promseries.Describe says of one series of metric m
// (-1: a metric outlast does not read).
type described struct {
	m     int
	s     promseries.Series
	keep  bool
	kvErr error
}

// get returns the series named by key, the name and labels of line b
// whose name ends at nameEnd and whose labels are at spans; its m is -1
// when outlast does not read the metric.
func (c *describedCache) get(key, b []byte, nameEnd int, spans []labelSpan) *described {
	if d, ok := c.m[string(key)]; ok {
		return d
	}
	if c.m == nil || len(c.m) >= 1<<12 { // bound memory on ever-new series
		c.m = make(map[string]*described)
	}
	d := &described{m: promseries.Lookup(b[:nameEnd])}
	if d.m >= 0 {
		ls := make([]promseries.Label, len(spans))
		for i, sp := range spans {
			ls[i] = promseries.Label{Name: string(b[sp.ns:sp.ne]), Value: string(b[sp.vs:sp.ve])}
		}
		d.s, d.keep, d.kvErr = promseries.Describe(d.m, ls)
	}
	c.m[string(key)] = d
	return d
}
