package promscrape

import (
	"errors"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// This file turns a parsed scrape into its sample, through the Builder
// that keeps what depends on earlier scrapes.

// finish turns the complete chunk into a sample or an error.
func (r *Reader) finish(j *scrape) (schema.EngineSample, error) {
	c := &j.c
	if c.err == nil {
		c.err = j.firstErr(r.b.KVFound())
	}
	// An error on the cut line itself is a symptom of the cut.
	if j.truncLine != 0 && j.truncLine >= c.first && (c.err == nil || c.err.Pos.Line == j.truncLine) {
		c.err = &textpos.ParseError{Pos: textpos.Pos{File: j.name, Line: j.truncLine}, Raw: c.rawLine(j.truncLine),
			Err: errors.New("last line has no newline: the scrape is incomplete")}
	}
	if c.err != nil {
		return schema.EngineSample{}, c.err
	}
	pos := textpos.Pos{File: r.lr.Name(), Line: c.first}
	if !c.header {
		return schema.EngineSample{}, &textpos.ParseError{Pos: pos, Err: errNoTime}
	}
	for m, ok := range c.declared {
		if ok {
			r.b.Declare(m)
		}
	}
	s, err := r.b.Build(c.sec, c.nsec, c.first, j.obs)
	if err != nil { // a time not after the one before: at the time
		return s, &textpos.ParseError{Pos: pos, Column: c.timeCol, Raw: c.rawLine(c.first), Err: err}
	}
	return s, nil
}

// errNoTime is the error of lines that no "# scrape" line precedes.
var errNoTime = errors.New(`scrape has no time: no "# scrape <unix seconds>" line starts it` +
	` (a /metrics dump needs one before each scrape; samples with their own timestamps are read as metrics_format prometheus-text or openmetrics)`)
