package rundir

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/outlast-dev/outlast/ingest/inputs"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// The load generators' exports (AIPerf, GuideLLM, inference-perf) are read
// through their rows of ingest/inputs into turns, whose sessions
// loadgen.Collector derives.

// collectTurns reads src's turns into the run: into the Sink or memory,
// with their derived sessions, rejecting bad records as bad lines are.
func (r *runReader) collectTurns(src loadgen.Source, file string) (span, error) {
	sp := newSpan()
	var sink func(schema.Turn) error
	if r.sink != nil {
		sink = r.sink.AddTurn
	}
	col := loadgen.New(sink)
	var ready int64
	err := col.Read(src, func(t *loadgen.Turn) {
		if t.Row.CachedTokens > 0 {
			r.cachedTurns++
		}
		if t.Row.ReadyS != nil {
			ready++
		}
		sp.add(t.Row.DoneS)
		if t.Row.SentS != nil {
			sp.add(*t.Row.SentS)
		}
	}, r.reject)
	if err != nil {
		return sp, err
	}
	d := r.res.Data
	session := func(s schema.Session) error { d.Sessions = append(d.Sessions, s); return nil }
	if r.sink != nil {
		session = r.sink.AddSession
	}
	if err := col.Finish(session); err != nil {
		return sp, err
	}
	if r.sink == nil {
		d.Turns = col.Turns()
	}
	r.cacheReported(file, col.N, col.Cached)
	if col.N > 0 && ready == 0 {
		r.warnf("%s: no request says when it was ready to be sent (the export does not write it: docs/run-format.md, \"Which field gives ready\"): "+
			"the wait in the client before sending is unknown, response times count from the sending, and sessions arrive at their first request's sent time", file)
	}
	return sp, nil
}

// cacheReported records whether any of the n turns carried a cached-token
// figure (cached of them did), and warns loudly when none did. Without a
// turn there is nothing to tell from: runs.cache_reported stays null.
func (r *runReader) cacheReported(file string, n, cached int64) {
	if n == 0 {
		r.res.Data.Run.CacheReported = nil
		r.warnf("WARNING: %s: no turn in it, completed or failed: the run gives no measure", file)
		return
	}
	rep := cached > 0
	r.res.Data.Run.CacheReported = &rep
	if !rep {
		r.warnf("WARNING: %s: no turn carries a cached-token count, so the engine did not report them "+
			"(start vLLM with --enable-prompt-tokens-details, SGLang with --enable-cache-report): "+
			"cached_tokens are unknown, not 0, and the run gets no hit-ratio verdict (runs.cache_reported = false)", file)
	}
}

// warnAll passes a reader's warnings on.
func (r *runReader) warnAll(ws []string) {
	for _, w := range ws {
		r.warnf("%s", w)
	}
}

// readExport reads a load generator's export in format f: its one run, or
// one run per benchmark of a report of several (a GuideLLM sweep: RUN-b0,
// RUN-b1, ...), or the one benchmark files.benchmark picks, as the
// manifest's run.
func (d *dirReader) readExport(f *inputs.Request) ([]*Result, error) {
	n, sum := 1, ""
	if f.Count != nil {
		var err error
		if n, sum, err = countRuns(d.gwPath, f.Count); err != nil {
			return nil, err
		}
	}
	lr, err := open(d.gwPath)
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	ex, err := f.Open(lr, inputs.Options{Path: d.gwPath, Lenient: d.opt.Lenient, ClockOffsetS: d.m.Files.ClockOffsetS})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.dir, err)
	}
	defer ex.Close() // before lr.Close: the reader's goroutines use lr
	var pick *int64
	if f.Count != nil {
		pick = d.m.Files.Benchmark
	}
	sweep := pick == nil && n > 1
	var out []*Result
	for {
		b, err := ex.NextRun()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.dir, err)
		}
		if pick != nil && *b.Benchmark != *pick {
			if err := skipTurns(ex.Turns(d.m.StartedAt)); err != nil {
				return nil, fmt.Errorf("%s: %w", d.dir, err)
			}
			continue
		}
		run, t0, clip := d.runOf(f, b, n, sweep)
		r, err := d.newRun(run, t0)
		if err != nil {
			return nil, err
		}
		sp, err := r.readRun(f, ex, lr, t0, sum)
		if err != nil {
			return nil, err
		}
		if err := r.finishRun(sp, clip); err != nil {
			return nil, err
		}
		out = append(out, r.res)
	}
	if err := lr.Err(); err != nil {
		return nil, err
	}
	if pick != nil && len(out) == 0 {
		return nil, fmt.Errorf("%s: files.benchmark: %d, but %s holds %d benchmark(s), numbered from 0", d.dir, *pick, lr.Name(), n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %s holds no benchmark", d.dir, lr.Name())
	}
	return out, nil
}

// runOf returns the runs table's row of run b of an export in format f
// that holds n runs (a sweep: each is a run of its own), its t=0, and the
// span its engine samples are cut to (nil: all of them).
func (d *dirReader) runOf(f *inputs.Request, b inputs.Run, n int, sweep bool) (schema.Run, time.Time, *span) {
	run, t0 := d.base, d.m.StartedAt
	var clip *span
	// A benchmark of several, whether each is a run (a sweep) or
	// files.benchmark picks one, starts at its own start and is cut to its
	// span: the manifest's started_at is the file's first benchmark's, and
	// the engine's samples of the others' are not this one's.
	if n > 1 {
		if sweep {
			run.Run = fmt.Sprintf("%s-b%d", d.base.Run, *b.Benchmark)
		}
		if b.Start > 0 {
			// Each benchmark's run starts at its own start, to the
			// second; the engine's samples are cut to its span.
			t0 = time.Unix(int64(b.Start), 0).UTC()
			run.StartedAt = t0
			if b.End > b.Start {
				run.DurationS = b.End - float64(t0.Unix())
			}
		}
		clip = &span{0, run.DurationS}
	}
	run.Benchmark = b.Benchmark
	run.GatewayFormat = f.Name
	if b.Strategy != "" {
		run.LoadStrategy, run.LoadRate, run.LoadConcurrency = b.Strategy, b.Rate, b.Concurrency
	}
	return run, t0, clip
}

// readRun reads the current run of ex, an export in format f read from lr,
// with times from t0, and records what its reader saw. sum is the
// export's hash when it holds several runs (counted before), "" when its
// one run reads it to its end.
func (r *runReader) readRun(f *inputs.Request, ex inputs.Export, lr *lineio.Reader, t0 time.Time, sum string) (span, error) {
	r.warnKeys(f)
	sp, err := r.collectTurns(ex.Turns(t0), lr.Name())
	if err != nil {
		return sp, err
	}
	if sum == "" {
		if err := lr.Err(); err != nil {
			return sp, err
		}
	}
	done := ex.Done()
	r.warnAll(done.Warnings)
	run := &r.res.Data.Run
	excluded := done.Excluded
	run.ExcludedRecords = &excluded
	if c := done.Clock; c != nil {
		run.ClockAnchor, run.ClockUncertaintyS = c.Method, c.UncertaintyS
	}
	run.GatewaySHA256 = sum
	if sum == "" {
		if run.GatewaySHA256, err = lr.SHA256(); err != nil {
			return sp, err
		}
		r.warnCut(lr)
	}
	return sp, nil
}

// warnKeys warns of run.yaml's keys that apply to other formats than f:
// they do nothing here, and a typo must not pass silently.
func (r *runReader) warnKeys(f *inputs.Request) {
	if r.m.Files.Benchmark != nil && f.Count == nil {
		r.warnf("WARNING: run.yaml's files.benchmark applies to GuideLLM reports only; the gateway log is %s: ignored", f.Name)
	}
	if r.m.Files.ClockOffsetS != nil && !f.ClockOffset {
		r.warnf("WARNING: run.yaml's files.clock_offset_s applies to inference-perf files only; the gateway log is %s: ignored", f.Name)
	}
}

// skipTurns reads past a run's turns.
func skipTurns(src loadgen.Source) error {
	for {
		_, err := src.Next()
		if err == io.EOF {
			return nil
		}
		var pe *textpos.ParseError
		if err != nil && !errors.As(err, &pe) {
			return err
		}
	}
}

// countRuns counts the runs of the export at path, hashing its bytes as
// stored on the way: each run of several is finished before the file has
// been read to its end.
func countRuns(path string, count func(io.Reader) (int, error)) (int, string, error) {
	lr, err := open(path)
	if err != nil {
		return 0, "", err
	}
	defer lr.Close()
	n, err := count(lr)
	if err != nil {
		return 0, "", fmt.Errorf("%s: %w", lr.Name(), err)
	}
	sum, err := lr.SHA256()
	return n, sum, err
}

// clipEngine keeps only the engine samples within sp.
func (r *runReader) clipEngine(sp span) {
	d := r.res.Data
	kept := d.Engine[:0]
	for _, s := range d.Engine {
		if s.TS >= sp.first && s.TS <= sp.last {
			kept = append(kept, s)
		}
	}
	d.Engine = kept
}
