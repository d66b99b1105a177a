package promscrape

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/promseries"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// This file is TimedReader: exposition whose samples carry their own
// timestamps, read whole into a promseries.Timeline and replayed by time.

// TimedReader turns exposition text whose samples carry timestamps into
// engine samples, one per distinct time (promseries' Timelines). It reads
// the whole input on the first call to Next, holding the points of the
// known series only.
type TimedReader struct {
	lr     *lineio.Reader
	om     bool // OpenMetrics: timestamps in seconds, "# EOF" at the end
	b      *promseries.Builder
	replay *promseries.Replay

	tl   *promseries.Timeline
	file int
	ids  map[string]int // a series' name and label set as written -> its number, -1: not kept
	ls   []promseries.Label
	errs []error
}

// NewTimedReader returns a TimedReader of lr in the form Sniff found:
// schema.MetricsPrometheusText (timestamps in milliseconds) or
// schema.MetricsOpenMetrics (seconds).
func NewTimedReader(lr *lineio.Reader, form string, opt Options) *TimedReader {
	tl := promseries.NewTimeline()
	b := promseries.NewBuilder(opt.T0)
	b.SetInput(lr.Name())
	return &TimedReader{lr: lr, om: form == schema.MetricsOpenMetrics, b: b,
		tl: tl, file: tl.File(lr.Name()), ids: map[string]int{}}
}

// Info returns the summary of the samples read so far.
func (r *TimedReader) Info() Info { return r.b.Info() }

// Close releases nothing: the reader runs no goroutines. It is there for
// the interface the readers share.
func (r *TimedReader) Close() {}

// Next returns the errors of the input's bad lines, in input order, then
// one sample per distinct time, then io.EOF. A bad line leaves out the
// samples at its time, when it has one (Timeline.Poison).
func (r *TimedReader) Next() (schema.EngineSample, error) {
	if r.replay == nil {
		r.read()
		if err := r.lr.Err(); err != nil {
			r.errs = append(r.errs, err)
		}
		r.replay = r.tl.Replay(r.b, r.errs)
	}
	return r.replay.Next()
}

// read collects the points of the known series and the bad lines' errors.
func (r *TimedReader) read() {
	last, lastNo, eof, cut := []byte(nil), 0, false, false
	for r.lr.Next() {
		b, no := r.lr.Bytes(), r.lr.Pos().Line
		i := skipBlank(b, 0)
		if i == len(b) {
			continue
		}
		if lastNo = no; r.om {
			last = append(last[:0], b...) // for the error of a missing "# EOF"
		}
		cut = r.lr.Truncated()
		if b[i] != '#' {
			eof = false
			r.line(b, i, no)
			continue
		}
		eof = isEOF(b[i:])
		if cut && r.om && !eof {
			r.cut(b, i, no) // a comment cut short: the end is missing
		}
	}
	if r.om && lastNo > 0 && !eof && !cut {
		r.fail(lastNo, 0, last, errors.New(`the OpenMetrics input does not end with "# EOF": it is incomplete`), nil)
	}
}

// isEOF reports whether the comment c is OpenMetrics' "# EOF".
func isEOF(c []byte) bool {
	j := skipBlank(c, 1)
	return string(c[j:skipToken(c, j)]) == "EOF" && skipBlank(c, skipToken(c, j)) == len(c)
}

// line reads the sample line b (its first non-blank byte at i), line no.
func (r *TimedReader) line(b []byte, i, no int) {
	if r.lr.Truncated() {
		r.cut(b, i, no)
		return
	}
	s, cerr := scanSample(b, i, r.om)
	if cerr != nil {
		if s.name == nil || promseries.Known(s.name) {
			r.fail(no, cerr.Off+1, b, cerr, nil)
		}
		return
	}
	id, ok := r.ids[string(b[s.start:s.keyEnd])]
	if !ok {
		if id, ok = r.series(b, s, no); !ok {
			return
		}
	}
	if id < 0 {
		return
	}
	var t int64
	if s.tsS == s.tsE {
		r.fail(no, s.tsS+1, b, errors.New("sample has no timestamp"), nil)
		return
	}
	t, err := r.timestamp(b[s.tsS:s.tsE])
	if err != nil {
		r.fail(no, s.tsS+1, b, err, nil)
		return
	}
	v, perr := strconv.ParseFloat(string(b[s.valS:s.valE]), 64)
	if perr != nil {
		r.fail(no, s.valS+1, b, fmt.Errorf("expected a number as value, got %q", b[s.valS:s.valE]), &t)
		return
	}
	// Older promtool versions dump a series' staleness marker, a NaN, as
	// "NaN" (newer ones and the federation handler leave them out), and
	// promtool tsdb dump prints the raw samples, markers included, with
	// %g. Elsewhere (/federate) a NaN is a sample's value.
	stale := (r.om || s.dump) && math.IsNaN(v)
	if !stale {
		if err := r.tl.Check(id, v); err != nil {
			r.fail(no, s.valS+1, b, err, &t)
			return
		}
	}
	if err := r.tl.Add(id, t, v, stale, r.file, no, s.valS+1); err != nil {
		r.fail(no, s.valS+1, b, err, &t)
	}
}

// cut reports the input's last line, cut short (it has no newline), and
// leaves out the samples at its time when its timestamp is whole.
func (r *TimedReader) cut(b []byte, i, no int) {
	var t *int64
	if s, cerr := scanSample(b, i, r.om); cerr == nil && s.tsS < s.tsE {
		if ts, err := r.timestamp(b[s.tsS:s.tsE]); err == nil {
			t = &ts
		}
	}
	r.fail(no, 0, b, errors.New("last line has no newline: the input is incomplete"), t)
}

// series returns the number of the series laid out in s, parsing its
// labels, and remembers it; ok is false for a bad label set.
func (r *TimedReader) series(b []byte, s sample, no int) (id int, ok bool) {
	key := string(b[s.start:s.keyEnd])
	m := promseries.Lookup(s.name)
	if m < 0 {
		if len(r.ids) < 1<<16 { // bound memory on inputs with ever-new series
			r.ids[key] = -1
		}
		return -1, true
	}
	ls, cerr := parseLabels(b, s, r.ls[:0])
	r.ls = ls
	if cerr != nil {
		r.fail(no, cerr.Off+1, b, cerr, nil)
		return 0, false
	}
	id, keep, kvErr := r.tl.Series(m, ls)
	if kvErr != nil && !r.b.KVFound() {
		r.fail(no, s.start+1, b, kvErr, nil)
	}
	if !keep {
		id = -1
	}
	r.ids[key] = id
	return id, true
}

// timestamp parses a sample's timestamp to Unix nanoseconds: integer
// milliseconds in the Prometheus text format, seconds in OpenMetrics. A
// timestamp in the other unit is an error, told apart by its size: seconds
// of a date after 1973 exceed 1e11 only as milliseconds.
func (r *TimedReader) timestamp(tok []byte) (int64, error) {
	if r.om {
		sec, nsec, ok := promseries.ParseUnix(tok)
		if !ok && len(tok) > 12 && isDigits(tok) {
			ok, sec = true, 1e11 // milliseconds, refused below
		}
		if !ok {
			return 0, fmt.Errorf("expected Unix seconds as timestamp, got %q", tok)
		}
		if sec >= 1e11 {
			return 0, fmt.Errorf("timestamp %s is not in seconds (milliseconds?): OpenMetrics timestamps are seconds; set files.metrics_format: %s", tok, schema.MetricsPrometheusText)
		}
		return promseries.UnixNano(sec, nsec), nil
	}
	ms, err := strconv.ParseInt(string(tok), 10, 64)
	if err != nil || ms < 0 {
		return 0, fmt.Errorf("expected integer milliseconds as timestamp, got %q", tok)
	}
	if ms < 1e11 {
		return 0, fmt.Errorf("timestamp %s is not in milliseconds (seconds?): the Prometheus text format's timestamps are milliseconds; set files.metrics_format: %s", tok, schema.MetricsOpenMetrics)
	}
	if ms > math.MaxInt64/int64(1e6) {
		return 0, fmt.Errorf("timestamp %s ms is out of range", tok)
	}
	return ms * 1e6, nil
}

// fail records a bad line's error at col (1-based, 0 unknown) and, when its
// time t is known, leaves out the samples at that time.
func (r *TimedReader) fail(no, col int, b []byte, err error, t *int64) {
	r.errs = append(r.errs, textpos.At(textpos.Pos{File: r.lr.Name(), Line: no}, col, b, "%v", err))
	if t != nil {
		r.tl.Poison(*t)
	}
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
