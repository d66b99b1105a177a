// Package outlastlog reads outlast's own gateway log format (gateway_format:
// outlast, docs/run-format.md): one JSON object per line, each a
// session_start, turn, park, resume, session_end, control, trigger or rate
// record. Reader turns lines into typed records with times in run seconds;
// Collector applies the rules that span lines and builds the sessions,
// turns and events tables. The load generators' exports have packages of
// their own (aiperf, guidellm, inferenceperf).
package outlastlog

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/pipeline"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// Reader reads gateway records from a line reader. It splits the input
// into chunks of whole lines and parses them on GOMAXPROCS goroutines
// (parallel.go); Next hands the records out in input order, with exact
// positions, as a sequential reader would.
type Reader struct {
	t0     time.Time
	t0Sec  int64   // t=0 as Unix seconds ...
	t0Frac float64 // ... plus a fraction of a second

	// The parser state of one goroutine: scratch member tables, interned
	// strings, and a slab of turn boxes.
	members []member
	usage   []member
	details []member
	// strs interns session ids and origins: a session's id recurs on
	// every one of its lines, and sharing the string saves an allocation
	// each. It is a direct-mapped cache, not a map: a lookup is one hash and
	// one comparison, memory is fixed, and a collision only costs an
	// allocation.
	strs *[internSlots]string
	// boxes is where turns are built: the current batch's slab while
	// parsing a chunk (parallel.go).
	boxes []turnBox
	// minutes saves parsing the date and hour of RFC 3339 times again.
	minutes minuteCache

	lines *pipeline.Reader[item, []turnBox]
	// oddTriggers counts, by kind, the trigger records of kinds run.yaml
	// does not know (Record.OddTrigger), in input order.
	oddTriggers map[string]*UnknownKind
}

// NewReader reads records from lr. t0 is the run's t=0 (the manifest's
// started_at); record times become seconds since t0. Call Close when done
// unless Next has returned io.EOF.
func NewReader(lr *lineio.Reader, t0 time.Time) *Reader {
	r := newParser(t0)
	r.lines = pipeline.NewReader(lr, chunkSize, batches, newWorker(t0))
	return r
}

// batches are the parsed chunks of every gateway log, reused from one run
// to the next.
var batches = pipeline.NewFree[item, []turnBox]()

// newParser returns a Reader used only to parse lines, one per goroutine.
func newParser(t0 time.Time) *Reader {
	return &Reader{
		t0:     t0,
		t0Sec:  t0.Unix(),
		t0Frac: float64(t0.Nanosecond()) / 1e9,
		strs:   new([internSlots]string),
	}
}

// Next returns the next record, or io.EOF after the last. A bad line gives
// a *textpos.ParseError, and the reader goes on with the next line. Other
// errors are read errors of the input. A bad last line without a newline
// (the run was killed mid-write) is a warning, not an error.
func (r *Reader) Next() (Record, error) {
	for {
		it, cutShort, err := r.lines.Next()
		if err != nil {
			return Record{}, err
		}
		if it.err == nil {
			if it.rec.OddTrigger > 0 {
				r.oddTrigger(it.rec)
			}
			return it.rec, nil
		}
		if cutShort && it.err.Kind == textpos.ErrSyntax {
			r.lines.CutShort(it.rec.Pos, it.err.Msg)
			continue
		}
		return Record{}, it.err.At(it.rec.Pos, it.rec.Raw)
	}
}

// Close stops the parsing goroutines and waits for them; the line reader
// may then be closed.
func (r *Reader) Close() {
	r.lines.Close()
}

// oddTrigger counts the trigger record rec, whose kind run.yaml does not
// know.
func (r *Reader) oddTrigger(rec Record) {
	kind := *rec.Event.TriggerKind
	if u, ok := r.oddTriggers[kind]; ok {
		u.Count++
		return
	}
	if r.oddTriggers == nil {
		r.oddTriggers = map[string]*UnknownKind{}
	}
	r.oddTriggers[kind] = &UnknownKind{Ev: kind, Count: 1, First: rec.Pos, Column: rec.OddTrigger}
}

// Warnings returns the problems that did not stop reading: a cut-short last
// line, blank lines, trigger records of a kind run.yaml does not know (kept
// as written: the gateway logged what it did, and no statistic reads the
// kind; one warning per kind, at its first record's kind, sorted by kind).
// It is complete once Next has returned io.EOF.
func (r *Reader) Warnings() []string {
	w := slices.Clone(r.lines.Warnings())
	kinds := slices.Sorted(maps.Keys(r.oddTriggers))
	for _, k := range kinds {
		u := r.oddTriggers[k]
		what := fmt.Sprintf("trigger kind %q is not one of run.yaml's (%s)", k, orList(schema.TriggerKinds))
		w = append(w, tallyWarning(u.First, u.Column, what, u.Count, "kept as written"))
	}
	return w
}
