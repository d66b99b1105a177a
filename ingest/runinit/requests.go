package runinit

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/ingest/aiperf"
	"github.com/outlast-dev/outlast/ingest/guidellm"
	"github.com/outlast-dev/outlast/ingest/inferenceperf"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
	"github.com/outlast-dev/outlast/ingest/outlastlog"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// epoch is t=0 for the readers here: their run seconds are Unix seconds.
var epoch = time.Unix(0, 0).UTC()

// requests reads the gateway log at path for the span of its requests:
// from the first one's ready (else sent) time to the last one's end. Bad
// records are skipped: ingest reports them.
func (f *Facts) requests(path string) error {
	lr, err := lineio.Open(path, filepath.Base(path))
	if err != nil {
		return err
	}
	defer lr.Close()
	switch f.GatewayFormat {
	case schema.GatewayAIPerf:
		rd := aiperf.NewReader(lr, epoch)
		defer rd.Close() // before lr.Close: the reader's goroutines use lr
		err = f.turns(rd)
	case schema.GatewayGuideLLM:
		err = f.guidellm(lr)
	case schema.GatewayInferencePerf:
		rd := inferenceperf.NewReader(lr, lr.Name(), inferenceperf.Options{T0: epoch, PerSession: filepath.Join(filepath.Dir(path), inferenceperf.PerSessionFile)})
		err = f.turns(rd)
		if errors.Is(err, inferenceperf.ErrNoAnchor) {
			// The requests read, but their times cannot be placed: the
			// manifest must give the offset. The reader returned no turn,
			// so it counts them.
			f.ClockUnknown = true
			f.Start, f.End = math.NaN(), math.NaN()
			f.Requests = rd.Records()
			f.Notes = append(f.Notes, err.Error())
			return lr.Err()
		}
	default:
		err = f.outlast(lr)
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

// guidellm reads every benchmark of a GuideLLM report, and the first
// benchmark's load.
func (f *Facts) guidellm(r io.Reader) error {
	rd, err := guidellm.NewReader(r, f.Gateway, guidellm.Options{Lenient: true})
	if err != nil {
		return err
	}
	rd.SetT0(epoch)
	for {
		b, err := rd.NextBenchmark()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		f.Benchmarks++
		if f.Benchmarks == 1 && b.Strategy != "" {
			f.LoadStrategy, f.RequestRate, f.Concurrency = b.Strategy, b.Rate, b.Concurrency
			f.LoadFrom = f.Gateway + " (benchmarks[0].config.strategy)"
		}
		if err := f.turns(rd); err != nil {
			return err
		}
	}
	for _, w := range rd.Warnings() {
		// Read with Lenient to find the span all the same; ingest refuses
		// a sampled benchmark unless told otherwise, so say so now.
		if strings.Contains(w, "were sampled") {
			w = strings.Replace(strings.TrimSuffix(w, " (read anyway: --lenient; kept as a reject of the run)"), "WARNING: ", "", 1)
			f.Notes = append(f.Notes, w+". outlast ingest refuses such a benchmark; with --lenient it reads the sample and keeps this as the run's reject.")
		}
	}
	if rep := rd.Report(); rep.Model != "" {
		f.Model, f.ModelFrom = rep.Model, f.Gateway
	}
	if f.Benchmarks > 1 {
		f.LoadNote = "the first benchmark's; each run of the sweep gets its own benchmark's in the runs table"
	}
	return nil
}

// outlast reads outlast's own gateway log for the span of its records.
func (f *Facts) outlast(lr *lineio.Reader) error {
	rd := outlastlog.NewReader(lr, epoch)
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
