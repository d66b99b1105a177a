package runinit

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/ingest/inputs"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
	"github.com/outlast-dev/outlast/ingest/outlastlog"
	"github.com/outlast-dev/outlast/textpos"
)

// epoch is t=0 for the readers here: their run seconds are Unix seconds.
var epoch = time.Unix(0, 0).UTC()

// requests reads the gateway log at path, in format, for the span of its
// requests: from the first one's ready (else sent) time to the last one's
// end. Bad records are skipped: ingest reports them.
func (f *Facts) requests(path string, format *inputs.Request) error {
	lr, err := lineio.Open(path, filepath.Base(path))
	if err != nil {
		return err
	}
	defer lr.Close()
	if format.Records != nil {
		err = f.records(format.Records(lr, epoch))
	} else {
		err = f.export(format, lr, path)
	}
	if errors.Is(err, inputs.ErrNoClock) {
		return lr.Err()
	}
	if err != nil {
		return err
	}
	if f.Requests == 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%s holds no request that reads without error: run outlast ingest to see why", f.Gateway))
	}
	return lr.Err()
}

// each calls fn with every value next reads until io.EOF, skipping bad
// records (ingest reports them).
func each[T any](next func() (T, error), fn func(T)) error {
	for {
		v, err := next()
		if err == io.EOF {
			return nil
		}
		var pe *textpos.ParseError
		if errors.As(err, &pe) {
			continue
		}
		if err != nil {
			return err
		}
		fn(v)
	}
}

// export reads a load generator's export: every run's turns, the first
// run's load, the model it names. An export whose clock nothing anchors
// (inputs.ErrNoClock) gives no span: the manifest must give the offset.
func (f *Facts) export(format *inputs.Request, lr *lineio.Reader, path string) error {
	// Lenient: a sampled benchmark's span is read all the same, and noted.
	ex, err := format.Open(lr, inputs.Options{Path: path, Lenient: true})
	if err != nil {
		return err
	}
	defer ex.Close() // before lr.Close: the reader's goroutines use lr
	var warnings []string
	for {
		run, err := ex.NextRun()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if run.Benchmark != nil {
			f.Benchmarks++
		}
		if f.Benchmarks <= 1 && run.Strategy != "" {
			f.LoadStrategy, f.RequestRate, f.Concurrency = run.Strategy, run.Rate, run.Concurrency
			f.LoadFrom = f.Gateway + " (" + run.StrategyFrom + ")"
		}
		err = f.turns(ex.Turns(epoch))
		done := ex.Done()
		if errors.Is(err, inputs.ErrNoClock) {
			// The requests read, but their times cannot be placed: the
			// manifest must give the offset. The reader returned no turn,
			// so it counts them.
			f.ClockUnknown = true
			f.Start, f.End = math.NaN(), math.NaN()
			f.Requests = done.Unplaced
			f.Notes = append(f.Notes, err.Error())
			return err
		}
		if err != nil {
			return err
		}
		if run.Start > 0 && run.End > run.Start {
			// The benchmark's own run (GuideLLM's scheduler_metrics
			// start_time and end_time), which a sampled report's requests
			// do not span: its duration, not its sample's.
			f.widen(run.Start, run.End)
			f.SpanBenchmark = true
		}
		warnings = append(warnings, done.Warnings...)
		if done.Model != "" {
			f.Model, f.ModelFrom = done.Model, f.Gateway
		}
	}
	for _, w := range warnings {
		// Read with Lenient to find the span all the same; ingest refuses
		// a sampled benchmark unless told otherwise, so say so now.
		if strings.Contains(w, "were sampled") {
			w = strings.Replace(strings.TrimSuffix(w, " (read anyway: --lenient; kept as a reject of the run)"), "WARNING: ", "", 1)
			f.Notes = append(f.Notes, w+". outlast ingest refuses such a benchmark; with --lenient it reads the sample and keeps this as the run's reject.")
		}
	}
	if f.Benchmarks > 1 {
		f.LoadNote = "the first benchmark's; each run of the sweep gets its own benchmark's in the runs table"
	}
	return nil
}

// config takes what the load generator's own configuration or summary
// file says of the model and the load, where it says something.
func (f *Facts) config(c inputs.Config) {
	if c.Model != "" {
		f.Model, f.ModelFrom = c.Model, c.ModelFrom
	}
	if c.LoadFrom != "" {
		f.LoadFrom = c.LoadFrom
	}
	if c.LoadStrategy != "" {
		f.LoadStrategy = c.LoadStrategy
	}
	if c.RequestRate != nil {
		f.RequestRate = c.RequestRate
	}
	if c.Concurrency != nil {
		f.Concurrency = c.Concurrency
	}
	if c.LoadNote != "" {
		f.LoadNote = c.LoadNote
	}
	f.Notes = append(f.Notes, c.Notes...)
}

// turns widens the span by every turn src reads.
func (f *Facts) turns(src loadgen.Source) error {
	return each(src.Next, func(t *loadgen.Turn) {
		f.Requests++
		start := t.Row.DoneS
		if t.Row.SentS != nil {
			start = *t.Row.SentS
		}
		if t.Row.ReadyS != nil {
			start = math.Min(start, *t.Row.ReadyS)
		}
		f.widen(start, t.Row.DoneS)
	})
}

func (f *Facts) widen(start, end float64) {
	if math.IsNaN(f.Start) || start < f.Start {
		f.Start = start
	}
	if math.IsNaN(f.End) || end > f.End {
		f.End = end
	}
}

// records reads outlast's own gateway log for the span of its records.
func (f *Facts) records(rd inputs.RecordReader) error {
	defer rd.Close()
	return each(rd.Next, func(rec outlastlog.Record) {
		start := rec.T
		if rec.Turn != nil {
			f.Requests++
			if rec.Turn.ReadyS != nil {
				start = math.Min(start, *rec.Turn.ReadyS)
			}
		}
		f.widen(start, rec.T)
	})
}
