// Package enginelog is what the engine-log readers (vllmlog, sglanglog)
// share: their options and summary, the loop that reads a log line by
// line, the preamble that log collectors and launchers put in front of an
// engine's own line (preamble.go), the parts of a stamp and the clock that
// places it on the run's time line, the walk over a stats line's "key:
// value" fields, the dialect a log shows, and allocation-free number
// parsing. Everything works on []byte, so that the readers' hot paths
// allocate nothing.
package enginelog

import (
	"math"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
)

// Options says how to place a log's timestamps on the run's clock.
type Options struct {
	// T0 is the run's t=0 (the manifest's started_at); sample times are
	// seconds since T0.
	T0 time.Time
	// Loc is the zone of the log's timestamps (manifest engine.log_tz);
	// nil means UTC.
	Loc *time.Location
}

// Info is what a reader learned besides the samples.
type Info struct {
	// Format is the dialect recognised, named by the newest marker seen
	// anywhere in the log; "" if no header of the engine was seen at all.
	Format string
	// KVPoolTokens is the KV pool size the log's startup lines give (each
	// reader says which); 0 if none did.
	KVPoolTokens int64
	Lines        int // lines read
	// SampleLines counts the stats or batch lines recognised, including
	// those that gave a parse error.
	SampleLines int
	// FirstS and LastS are the earliest and latest time, in seconds since
	// T0, of any line with a header of the engine; NaN if there was none.
	FirstS, LastS float64
}

// Lines reads a log for a reader: one line at a time, its preamble taken
// apart, counted in Info.
type Lines struct {
	// Info holds Lines, FirstS and LastS, kept up to date; the reader
	// fills in the rest.
	Info  Info
	Clock Clock
	lr    *lineio.Reader
	pre   Preamble
}

// NewLines returns the lines of the log in lr.
func NewLines(lr *lineio.Reader, opt Options) Lines {
	return Lines{
		Info:  Info{FirstS: math.NaN(), LastS: math.NaN()},
		Clock: NewClock(opt),
		lr:    lr,
	}
}

// Next returns the next line, taken apart, and false after the last. The
// line is valid until the next call.
func (l *Lines) Next() (Line, bool) {
	if !l.lr.Next() {
		return Line{}, false
	}
	l.Info.Lines++
	line := l.pre.Read(l.lr.Bytes())
	line.Pos = l.lr.Pos()
	return line, true
}

// Err returns the first read error of the log.
func (l *Lines) Err() error { return l.lr.Err() }

// Stamp returns t in seconds since T0, taking t as the time of a line with
// a header of the engine (Info.FirstS, Info.LastS).
func (l *Lines) Stamp(t time.Time) float64 {
	ts := l.Clock.Since(t)
	if math.IsNaN(l.Info.FirstS) || ts < l.Info.FirstS {
		l.Info.FirstS = ts
	}
	if math.IsNaN(l.Info.LastS) || ts > l.Info.LastS {
		l.Info.LastS = ts
	}
	return ts
}
