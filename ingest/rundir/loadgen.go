package rundir

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/outlast-dev/outlast/ingest/aiperf"
	"github.com/outlast-dev/outlast/ingest/guidellm"
	"github.com/outlast-dev/outlast/ingest/inferenceperf"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// The load generators' exports (AIPerf, GuideLLM, inference-perf) are read
// by their packages into turns, whose sessions loadgen.Collector derives.

// collectTurns reads src's turns into the run: into the Sink or memory,
// with their derived sessions, rejecting bad records as bad lines are.
func (r *runReader) collectTurns(src loadgen.Source, file string) (span, error) {
	sp := newSpan()
	var sink func(schema.Turn) error
	if r.sink != nil {
		sink = r.sink.AddTurn
	}
	col := loadgen.New(sink)
	err := col.Read(src, func(t *loadgen.Turn) {
		if t.Row.CachedTokens > 0 {
			r.cachedTurns++
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

// readAIPerf reads AIPerf's profile_export.jsonl at path.
func (r *runReader) readAIPerf(path string) (span, error) {
	var rd *aiperf.Reader
	return r.readExport(path, func(lr *lineio.Reader) (loadgen.Source, func()) {
		rd = aiperf.NewReader(lr, r.t0)
		return rd, func() {
			r.warnAll(rd.Warnings())
			warm := int64(rd.Info().Warmup)
			r.res.Data.Run.ExcludedRecords = &warm
		}
	})
}

// readInferencePerf reads inference-perf's per_request_lifecycle_metrics.json
// at path, its clock anchored by the manifest or the directory's files.
func (r *runReader) readInferencePerf(path string) (span, error) {
	return r.readExport(path, func(lr *lineio.Reader) (loadgen.Source, func()) {
		rd := inferenceperf.NewReader(lr, lr.Name(), inferenceperf.Options{
			T0:           r.t0,
			ClockOffsetS: r.m.Files.ClockOffsetS,
			PerSession:   filepath.Join(filepath.Dir(path), inferenceperf.PerSessionFile),
		})
		return rd, func() {
			r.warnAll(rd.Warnings())
			run := &r.res.Data.Run
			a := rd.Anchor()
			run.ClockAnchor, run.ClockUncertaintyS = a.Method, a.UncertaintyS
			if a.UncertaintyS != nil {
				r.warnf("%s: request times are inference-perf's perf_counter, put on the wall clock from %s: offset %.3f s ± %.3f s",
					lr.Name(), a.Method, a.OffsetS, *a.UncertaintyS)
			}
			zero := int64(0)
			run.ExcludedRecords = &zero
		}
	})
}

// readExport reads the one-run export at path through the reader that
// newReader makes of it, then lets the reader's done record what it saw.
func (r *runReader) readExport(path string, newReader func(*lineio.Reader) (loadgen.Source, func())) (span, error) {
	lr, err := open(path)
	if err != nil {
		return newSpan(), err
	}
	defer lr.Close()
	src, done := newReader(lr)
	if c, ok := src.(interface{ Close() }); ok {
		defer c.Close() // before lr.Close: the reader's goroutines use lr
	}
	sp, err := r.collectTurns(src, lr.Name())
	if err != nil {
		return sp, err
	}
	if err := lr.Err(); err != nil {
		return sp, err
	}
	done()
	r.res.Data.Run.GatewaySHA256, err = lr.SHA256()
	r.warnCut(lr)
	return sp, err
}

// readGuideLLM reads a GuideLLM report: one run per benchmark of a sweep
// (RUN-b0, RUN-b1, ...), else the one benchmark, or the one files.benchmark
// picks, as the manifest's run.
func (d *dirReader) readGuideLLM() ([]*Result, error) {
	n, sum, err := countReport(d.gwPath)
	if err != nil {
		return nil, err
	}
	lr, err := open(d.gwPath)
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	rd, err := guidellm.NewReader(lr, lr.Name(), guidellm.Options{Lenient: d.opt.Lenient})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.dir, err)
	}
	pick := d.m.Files.Benchmark
	sweep := pick == nil && n > 1
	var out []*Result
	for {
		b, err := rd.NextBenchmark()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.dir, err)
		}
		if pick != nil && int64(b.Index) != *pick {
			if err := skipTurns(rd); err != nil {
				return nil, fmt.Errorf("%s: %w", d.dir, err)
			}
			continue
		}
		run, t0 := d.base, d.m.StartedAt
		var clip *span
		// A benchmark of several, whether each is a run (a sweep) or
		// files.benchmark picks one, starts at its own start and is cut
		// to its span: the manifest's started_at is the file's first
		// benchmark's, and the engine's samples of the others' are not
		// this one's.
		if sweep || pick != nil && n > 1 {
			if sweep {
				run.Run = fmt.Sprintf("%s-b%d", d.base.Run, b.Index)
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
		idx := int64(b.Index)
		run.Benchmark = &idx
		run.GatewayFormat = schema.GatewayGuideLLM
		if b.Strategy != "" {
			run.LoadStrategy, run.LoadRate, run.LoadConcurrency = b.Strategy, b.Rate, b.Concurrency
		}
		r, err := d.newRun(run, t0)
		if err != nil {
			return nil, err
		}
		rd.SetT0(t0)
		sp, err := r.collectTurns(rd, lr.Name())
		if err != nil {
			return nil, err
		}
		r.warnAll(rd.TakeWarnings())
		excluded := b.Excluded
		data := r.res.Data
		data.Run.ExcludedRecords = &excluded
		data.Run.GatewaySHA256 = sum
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

// skipTurns reads past the current benchmark's requests.
func skipTurns(rd *guidellm.Reader) error {
	for {
		_, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		var pe *textpos.ParseError
		if err != nil && !errors.As(err, &pe) {
			return err
		}
	}
}

// countReport counts the benchmarks of the report at path, hashing its
// bytes as stored on the way: each run of a sweep is finished before the
// file has been read to its end.
func countReport(path string) (int, string, error) {
	lr, err := open(path)
	if err != nil {
		return 0, "", err
	}
	defer lr.Close()
	n, err := guidellm.Count(lr)
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
