// Package promscrape reads Prometheus exposition text of a vLLM or SGLang
// /metrics endpoint in its two timed forms and turns each scrape into one
// schema.EngineSample: the load gauges as scraped and the cumulative
// counters as deltas since the previous scrape (ingest/internal/promseries
// says which series, and how several engines, ranks and counters combine).
//
//   - Reader reads scrapes marked with "# scrape <unix seconds>" lines (a
//     shell loop that prints the line and appends a curl of /metrics).
//   - TimedReader reads exposition whose samples carry their own
//     timestamps: the Prometheus text format with integer milliseconds (a
//     Prometheus server's /federate, or promtool tsdb dump's lines, which
//     name the metric in the label set), or OpenMetrics with seconds
//     (promtool tsdb dump-openmetrics), series by series or scrape by
//     scrape.
//
// Sniff tells the forms apart and refuses a single dump with neither, whose
// samples have no time. The formats: the Prometheus exposition formats
// (prometheus/docs content/docs/instrumenting/exposition_formats.md),
// OpenMetrics 1.0 (prometheus/OpenMetrics specification/OpenMetrics.md),
// the federation handler (prometheus/prometheus web/federate.go: untyped
// families without HELP, each sample with its scrape time in ms) and
// promtool's dumps (prometheus/prometheus cmd/promtool/tsdb.go:
// formatSeriesSetOpenMetrics, "name{labels} value seconds.mmm" series by
// series, no HELP or TYPE, a final "# EOF"; and formatSeriesSet, the older
// "promtool tsdb dump", `{__name__="name", label="value"} value ms` with
// the labels as labels.Labels.String writes them, read as the text format
// with milliseconds, its NaNs staleness markers as in OpenMetrics).
//
// Values. A NaN gauge is an unknown figure (promseries: its field is
// null), a NaN counter an error, except where NaN is a staleness marker.
//
// Splitting (Reader). A scrape starts at a "# scrape <unix seconds>"
// comment, which gives its time. As a fallback, a HELP or TYPE line for a
// name already seen in the current scrape starts a new one; such a scrape,
// like lines before the first "# scrape" line, has no time and is an error.
//
// Parsing (Reader). The lines of one scrape go to expfmt's text parser in
// one call: splitting first is what lets it parse concatenated scrapes,
// since it rejects a second HELP or TYPE for a name and would merge the
// histograms of different scrapes. Its errors, numbered from the scrape's
// first line, are moved to the file's line, and given the column of the
// fault, the one TimedReader's scanner gives (expfmtcol.go). Metric names
// may be UTF-8.
// A scrape with a header whose kept lines all have the plain shapes that
// engines write is read instead by a scanner of this package (fast.go),
// which takes only what expfmt takes, with the same result; anything else
// in it sends the whole scrape to expfmt, which alone decides errors.
//
// Filtering. expfmt allocates for every line it parses, and most of a
// scrape is families outlast does not read (Python, process and HTTP
// metrics, histograms). Only the HELP, TYPE and sample lines of the known
// metrics go to expfmt (of the counters' _created series, the samples
// alone), so everything stored is still parsed by expfmt, but
// lines of other families are not syntax-checked: a malformed line there is
// not an error. The splitter still sees every line, so scrapes split as
// before, and errors keep their file lines. TimedReader likewise reads only
// the sample lines of the known metrics, with a scanner of its own that
// gives the column of an error.
package promscrape

import (
	"io"
	"runtime"

	"errors"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/ordered"
	"github.com/outlast-dev/outlast/ingest/internal/promseries"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// Options configures a Reader or TimedReader.
type Options = promseries.Options

// Info summarises what a reader has read so far.
type Info = promseries.Info

// Reader turns a metrics.prom of "# scrape"-marked scrapes into engine
// samples, one scrape at a time.
type Reader struct {
	lr        *lineio.Reader
	carry     *rawLine // a line that begins the next chunk
	carried   rawLine  // carry's storage
	ended     bool     // lr is exhausted
	done      bool
	truncLine int // the last line had no newline: its scrape is incomplete

	c      chunk
	gen    uint64 // the current chunk's generation
	names  map[string]*nameState
	order  nameOrder
	cm     comment
	header bool       // cm, a HELP or TYPE line, is kept (nameState.header)
	last   *nameState // of the last HELP or TYPE line
	pipe   *ordered.Pipeline[*scrape]
	free   chan *scrape // scrapes done with, for their buffers
	b      *promseries.Builder
}

// NewReader returns a Reader of the scrapes in lr.
func NewReader(lr *lineio.Reader, opt Options) *Reader {
	b := promseries.NewBuilder(opt.T0)
	b.SetInput(lr.Name())
	return &Reader{lr: lr, names: map[string]*nameState{}, b: b,
		free: make(chan *scrape, 4*runtime.GOMAXPROCS(0))}
}

// Info returns the summary of the scrapes read so far.
func (r *Reader) Info() Info { return r.b.Info() }

// Next returns one sample per scrape, io.EOF at the end, or a
// *textpos.ParseError for a scrape that does not parse; the reader then goes
// on with the next scrape.
func (r *Reader) Next() (schema.EngineSample, error) {
	if r.pipe == nil {
		r.pipe = r.start()
	}
	if j, ok := r.pipe.Next(); ok {
		s, err := r.finish(j)
		r.recycle(j) // the sample and the error keep nothing of it
		return s, err
	}
	if err := r.lr.Err(); err != nil {
		return schema.EngineSample{}, err
	}
	return schema.EngineSample{}, io.EOF
}

// A parsed scrape becomes its sample through the Builder, which keeps
// what depends on earlier scrapes.

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
