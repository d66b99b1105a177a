package inputs

import (
	"io"
	"time"

	"github.com/outlast-dev/outlast/ingest/inferenceperf"
	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
	"github.com/outlast-dev/outlast/ingest/outlastlog"
)

// RecordReader reads outlast's own gateway log: its records (turns,
// session starts and ends, events) in file order, each with its position.
type RecordReader interface {
	Next() (outlastlog.Record, error)
	Warnings() []string // format drift and the like, after the last record
	Close()
}

// Options are what opening a load generator's export may need.
type Options struct {
	Path    string // the export's path: files beside it may anchor its clock
	Lenient bool   // read what a strict reading refuses as a whole (a sampled benchmark), with a warning
	// ClockOffsetS is files.clock_offset_s: Unix time minus the export's
	// monotonic clock; nil to find it from the files.
	ClockOffsetS *float64
}

// Export is a load generator's per-request export being read: its runs in
// order (the one run of most exports; each benchmark of a GuideLLM
// report), and the turns of each.
type Export interface {
	// NextRun moves to the next run and returns what the export says of
	// it; io.EOF after the last.
	NextRun() (Run, error)
	// Turns returns the current run's turns, their times in seconds from
	// t0. Bad records are *textpos.ParseError values; the reader goes on.
	Turns(t0 time.Time) loadgen.Source
	// Done returns what the reader saw of the current run, once Turns has
	// returned io.EOF.
	Done() Done
	// Close releases the reader; it is called before the input is closed.
	Close()
}

// Run is what an export says of one of its runs before its turns.
type Run struct {
	// Benchmark is the run's index among the export's benchmarks
	// (runs.benchmark); nil for an export of one run.
	Benchmark *int64
	// Start and End bound the run, Unix seconds, when the export gives
	// them apart from its requests; 0 when not.
	Start, End float64
	// Strategy, Rate (requests/s) and Concurrency are the load
	// generator's schedule (runs.load_strategy, load_rate,
	// load_concurrency); "" and nil when the export does not say.
	Strategy     string
	Rate         *float64
	Concurrency  *int64
	StrategyFrom string // where in the export the schedule stands, for outlast init's comments
}

// Done is what a reader saw of a run once its turns are read.
type Done struct {
	Warnings []string
	// Excluded counts the records read that are not the run's (AIPerf's
	// warm-up, requests outside a GuideLLM benchmark's window):
	// runs.excluded_records.
	Excluded int64
	// Clock is how the export's monotonic clock was put on the wall
	// clock; nil when its times are the wall clock's.
	Clock *Clock
	// Unplaced counts the records that read but gave no turn, because
	// nothing places their times on the wall clock (ErrNoClock).
	Unplaced int
	Model    string // the model the export names, "" when none
}

// Clock is how an export's monotonic clock was put on the wall clock.
type Clock struct {
	Method       string   // runs.clock_anchor: what gave the offset
	OffsetS      float64  // Unix time minus the export's clock, seconds
	UncertaintyS *float64 // half-width of the interval it came from; nil when given exactly (the manifest)
}

// ErrNoClock is the error (errors.Is) of an export whose times are on a
// monotonic clock that nothing anchors to Unix time: its records read, but
// their times cannot be placed; files.clock_offset_s must give the offset.
var ErrNoClock = inferenceperf.ErrNoAnchor

// oneRun is an export of one run, whose reader is made when its turns
// are asked for (it needs t0).
type oneRun struct {
	read  bool
	turns func(t0 time.Time) loadgen.Source
	done  func() Done
	close func()
}

func (o *oneRun) NextRun() (Run, error) {
	if o.read {
		return Run{}, io.EOF
	}
	o.read = true
	return Run{}, nil
}

func (o *oneRun) Turns(t0 time.Time) loadgen.Source { return o.turns(t0) }
func (o *oneRun) Done() Done                        { return o.done() }
func (o *oneRun) Close()                            { o.close() }
