// Package enginelog is what the engine-log readers (vllmlog, sglanglog)
// share: their options and summary, the loop that reads a log line by
// line, the preamble in front of an engine's own line (preamble.go: colour
// codes, also with their ESC byte lost, in colour.go; the wrappers that
// log collectors, launchers and Ray put there, in wrappers.go; process
// prefixes), the parts of a stamp and the clock that places it on the
// run's time line, the walk over a stats line's "key: value" fields, the
// dialect a log shows, and allocation-free number parsing. Everything
// works on []byte, so that the readers' hot paths allocate nothing.
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
	// Wrappers names the wrappers in front of most of the lines that carry
	// a time (WrapperSet.String, such as "docker-compose"); "" for none. A
	// collector wraps every line it collects; a few wrapped lines are
	// pieces pasted into the log.
	Wrappers string
	// Glued counts the lines on which the engine's own line began after
	// other text: a progress bar or streamed output written without a
	// newline. They are read.
	Glued int
	// Untimed counts the stats or batch lines that carry no time at all
	// (no stamp of the engine's, no wrapper stamp with its zone): they
	// give no sample.
	Untimed int
	// Repeats counts the batch lines left out as another rank's copy of a
	// batch (each reader says which ranks it keeps).
	Repeats int
	// Notes are what the reader has to say about the log as a whole, to
	// be warned of (such as a rank whose lines the log lacks).
	Notes []string
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
	// timed counts the lines with a time (Stamp), wrapped those among
	// them in front of which each wrapper stands.
	timed   int
	wrapped [numWrappers]int
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

// Uncolour strips the colour codes whose ESC byte was lost from all of
// line and takes it apart again (Preamble.Read), reporting whether it had
// any: for a line whose header a reader cannot find.
func (l *Lines) Uncolour(line *Line) bool { return l.pre.Uncolour(line) }

// Summary returns Info with the wrappers of most timed lines named
// (Info.Wrappers).
func (l *Lines) Summary() Info {
	in := l.Info
	var s WrapperSet
	for w := range numWrappers {
		if 2*l.wrapped[w] > l.timed {
			s.add(w)
		}
	}
	in.Wrappers = s.String()
	return in
}

// Err returns the first read error of the log.
func (l *Lines) Err() error { return l.lr.Err() }

// Stamp returns t in seconds since T0, taking t as the time of line (a
// line with a header of the engine, or a stats line timed by its wrapper):
// Info.FirstS, Info.LastS and the wrappers of lines with a time.
func (l *Lines) Stamp(line *Line, t time.Time) float64 {
	l.timed++
	if ws := line.wrappers; ws != 0 {
		for w := range numWrappers {
			if ws.Has(w) {
				l.wrapped[w]++
			}
		}
	}
	ts := l.Clock.Since(t)
	if math.IsNaN(l.Info.FirstS) || ts < l.Info.FirstS {
		l.Info.FirstS = ts
	}
	if math.IsNaN(l.Info.LastS) || ts > l.Info.LastS {
		l.Info.LastS = ts
	}
	return ts
}

// Dialect is the dialect a log shows, decided by the newest marker seen
// anywhere in it: each marker has a rank, oldest first, and the highest
// rank seen names the dialect.
type Dialect struct {
	names []string
	rank  int
}

// NewDialect returns a dialect in which rank r is named names[r]; rank 0,
// nothing seen, is named names[0] (usually "").
func NewDialect(names ...string) Dialect { return Dialect{names: names} }

// Saw records a marker of rank r.
func (d *Dialect) Saw(r int) { d.rank = max(d.rank, r) }

// Rank returns the highest rank seen.
func (d *Dialect) Rank() int { return d.rank }

// Name returns the name of the highest rank seen.
func (d *Dialect) Name() string { return d.names[d.rank] }

// Slab hands out zeroed values carved from larger allocations, so that
// the values a reader hands on (the fields of a sample) cost no allocation
// of their own.
type Slab[T any] struct {
	free []T
	size int
}

// NewSlab returns a slab that allocates size values at a time.
func NewSlab[T any](size int) Slab[T] { return Slab[T]{size: size} }

// New returns a fresh zero value.
func (s *Slab[T]) New() *T {
	if len(s.free) == 0 {
		s.free = make([]T, s.size)
	}
	v := &s.free[0]
	s.free = s.free[1:]
	return v
}
