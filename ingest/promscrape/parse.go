package promscrape

import (
	"bytes"
	"errors"

	"github.com/prometheus/common/expfmt"

	"github.com/outlast-dev/outlast/ingest/internal/promseries"
	"github.com/outlast-dev/outlast/textpos"
)

// This file parses one scrape with expfmt and turns the series of the known
// metrics into observations (Parsing in the package doc), and locates the
// errors by input line.

// errCacheConfig is the kind of an error about a bad cache_config_info
// (promseries.Describe), which counts only while the KV pool is unknown.
var errCacheConfig = errors.New("bad cache_config_info")

// parse collects the series of the known metrics of the scrape, and the
// errors: through the fast path when the scrape has its plain shapes, else
// through expfmt. Only scrapes with a header try the fast path: the others
// are errors, and expfmt's error comes first.
func (ps *parser) parse(j *scrape) {
	if j.c.header && ps.fast(j) {
		return
	}
	ps.expfmt(j)
}

// expfmt runs expfmt over the scrape and collects the series of the known
// metrics, and the errors: expfmt's, or this package's located by line.
func (ps *parser) expfmt(j *scrape) {
	c := &j.c
	ps.rd.Reset(c.text)
	fams, err := ps.p.TextToMetricFamilies(&ps.rd)
	if err != nil {
		var pe expfmt.ParseError
		if !errors.As(err, &pe) {
			j.synErr = &textpos.ParseError{Pos: textpos.Pos{File: j.name, Line: c.first}, Err: err}
			return
		}
		// expfmt counts lines from the start of the text it is given.
		no := c.lineNo(pe.Line - 1)
		j.synErr = &textpos.ParseError{Pos: textpos.Pos{File: j.name, Line: no}, Raw: c.rawLine(no), Err: errors.New(pe.Msg)}
		if start, ok := lineStart(c.text, pe.Line-1); ok {
			j.synErr.Column = expfmtColumn(j.synErr.Raw, expfmtStop(c.text)-start, pe.Msg)
		}
		return
	}
	// The known metrics in table order, not map order, for determinism;
	// within a family expfmt keeps the input order.
	for m := range promseries.NumMetrics {
		name := promseries.Name(m)
		fam := fams[name]
		if fam == nil {
			continue
		}
		for k, met := range fam.GetMetric() {
			var v float64
			switch {
			case met.Counter != nil:
				v = met.Counter.GetValue()
			case met.Gauge != nil:
				v = met.Gauge.GetValue()
			case met.Untyped != nil:
				v = met.Untyped.GetValue()
			default:
				continue // TYPE summary or histogram: no single value to use
			}
			ps.ls = ps.ls[:0]
			for _, lp := range met.GetLabel() {
				ps.ls = append(ps.ls, promseries.Label{Name: lp.GetName(), Value: lp.GetValue()})
			}
			s, keep, kvErr := promseries.Describe(m, ps.ls)
			if !keep {
				continue
			}
			o, err := s.At(v)
			if err != nil {
				j.sem = append(j.sem, ps.semErr(j, name, k, err, false))
				continue
			}
			if kvErr != nil {
				// An error only while the pool is unknown, which the
				// consumer knows (finish).
				j.sem = append(j.sem, ps.semErr(j, name, k, kvErr, true))
			}
			j.obs = append(j.obs, o)
		}
	}
}

// semErr locates an error of the index-th series of family name: at the
// line's start for a bad cache_config_info (kv), else at its value, as
// TimedReader does.
func (ps *parser) semErr(j *scrape, name string, index int, err error, kv bool) *textpos.ParseError {
	no := ps.locate(&j.c, name, index)
	raw := j.c.rawLine(no)
	if kv {
		err = &textpos.Reason{Off: -1, Kind: errCacheConfig, Msg: err.Error()}
	}
	e := &textpos.ParseError{Pos: textpos.Pos{File: j.name, Line: no}, Raw: raw, Err: err}
	if i := skipBlank(raw, 0); i < len(raw) {
		if kv {
			e.Column = i + 1
		} else if at := valueAt(raw, i); at >= 0 {
			e.Column = at + 1
		}
	}
	return e
}

// valueAt returns the offset of the value of sample line b, which expfmt
// took and whose first non-blank byte is at i, or -1. expfmt takes blanks
// between the name and the label set, which scanSample does not.
func valueAt(b []byte, i int) int {
	k := i
	for k < len(b) && isNameChar(b[k]) {
		k++
	}
	k = skipBlank(b, k)
	if k < len(b) && b[k] == '{' {
		e, err := labelSetEnd(b, k)
		if err != nil {
			return -1
		}
		k = skipBlank(b, e)
	}
	if k == len(b) {
		return -1
	}
	return k
}

// lineStart returns the offset in text of its k-th (0-based) line.
func lineStart(text []byte, k int) (int, bool) {
	at := 0
	for ; k > 0; k-- {
		i := bytes.IndexByte(text[at:], '\n')
		if i < 0 {
			return 0, false
		}
		at += i + 1
	}
	return at, at <= len(text)
}

// firstErr returns the scrape's first error by line: expfmt's, else the
// first of this package's, counting cache_config_info errors only while
// the KV pool is not known (kvFound).
func (j *scrape) firstErr(kvFound bool) *textpos.ParseError {
	if j.synErr != nil {
		return j.synErr
	}
	var first *textpos.ParseError
	for _, e := range j.sem {
		if kvFound && errors.Is(e, errCacheConfig) {
			continue
		}
		if first == nil || e.Pos.Line < first.Pos.Line {
			first = e
		}
	}
	return first
}

// locate returns the line of the index-th series of family name in the
// chunk, or the chunk's first line. It parses candidate lines one at a time
// with expfmt, so a line counts exactly when expfmt put it in that family;
// it runs only for errors, so its cost does not matter.
func (ps *parser) locate(c *chunk, name string, index int) int {
	rest := c.text
	for k := 0; len(rest) > 0; k++ {
		no := c.lineNo(k)
		i := bytes.IndexByte(rest, '\n')
		b := rest[:i+1]
		rest = rest[i+1:]
		if j := skipBlank(b, 0); b[j] == '#' || !bytes.Contains(b, []byte(name)) {
			continue
		}
		ps.rd.Reset(b)
		if fams, err := ps.p.TextToMetricFamilies(&ps.rd); err == nil && fams[name] != nil {
			if index == 0 {
				return no
			}
			index--
		}
	}
	return c.first
}
