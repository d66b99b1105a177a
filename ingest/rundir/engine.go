package rundir

import (
	"errors"
	"io"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/outlast-dev/outlast/ingest/inputs"
	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// logSummary is what an engine-log reader saw, once it is done.
type logSummary struct {
	format         string // the dialect, e.g. vllm-0.10
	wrappers       string // the wrappers in front of most lines, e.g. docker-compose
	kvPoolTokens   int64  // 0 when the log does not say
	lines, samples int    // lines read, stats lines among them
	untimed        int    // stats lines without any time, not read
}

// summaryOf returns the part of a reader's Info that rundir uses.
func summaryOf(i enginelog.Info) logSummary {
	return logSummary{i.Format, i.Wrappers, i.KVPoolTokens, i.Lines, i.SampleLines, i.Untimed}
}

// logFormat returns the runs table's engine_log_format: the dialect, and
// the wrappers in front of most of its lines after a "+" ("vllm-0.10",
// "vllm-0.10+docker-compose", "sglang-2026+cri+ray").
func (s logSummary) logFormat() string {
	if s.wrappers == "" || s.format == "" {
		return s.format
	}
	return s.format + "+" + s.wrappers
}

// readEngineLog reads the engine log at path, in the format of the engine
// named in run.yaml, or, for another name, the one its lines match.
func (r *runReader) readEngineLog(path, engine string) (span, error) {
	sp := newSpan()
	format, ok := inputs.EngineNamed(engine)
	if !ok {
		var err error
		if format, err = inputs.SniffEngine(path); err != nil {
			return sp, err
		}
		if format == nil {
			r.warnf("%s: engine %q and no vLLM or SGLang header recognised: engine log not read", filepath.Base(path), engine)
			return sp, nil
		}
	}
	lr, err := open(path)
	if err != nil {
		return sp, err
	}
	defer lr.Close()
	rd := format.Open(lr, enginelog.Options{T0: r.t0, Loc: r.loc})
	if err := r.collectSamples(rd.Next, &sp); err != nil {
		return sp, cutNote(err, lr)
	}
	if err := lr.Err(); err != nil {
		return sp, err
	}
	sum := summaryOf(rd.Info())
	d := r.res.Data
	d.Run.EngineLogFormat = sum.logFormat()
	switch {
	case sum.samples == 0:
		r.warnf("%s: WARNING: no %s stats line recognised in %d lines: the log format may have drifted; the engine series is empty", filepath.Base(path), format.Name, sum.lines)
	case sum.untimed > 0:
		r.warnf("%s: WARNING: %d of %d %s stats lines carry no time (no header of the engine's, no wrapper stamp with a zone: an engine before headers, or lines pasted without theirs): they are not read", filepath.Base(path), sum.untimed, sum.samples, format.Name)
	}
	if pool := sum.kvPoolTokens; pool > 0 && d.Run.KVPoolTokens == nil {
		d.Run.KVPoolTokens, d.Run.KVPoolSource = &pool, "engine_log"
	} else if pool > 0 && *d.Run.KVPoolTokens != pool {
		r.warnf("%s: KV pool %d tokens in the log, %d in the manifest (the manifest wins)", filepath.Base(path), pool, *d.Run.KVPoolTokens)
	}
	if d.Run.EngineLogSHA256, err = lr.SHA256(); err != nil {
		return sp, err
	}
	r.warnCut(lr)
	return sp, nil
}

// collectSamples appends the samples next yields to the run's engine
// table, extending sp, until io.EOF; bad lines go through reject.
func (r *runReader) collectSamples(next func() (schema.EngineSample, error), sp *span) error {
	d := r.res.Data
	if d.Engine == nil {
		h := engineRowsHint.Load()
		d.Engine = make([]schema.EngineSample, 0, min(h+h/8, maxEngineRowsHint))
	}
	for {
		s, err := next()
		if err == io.EOF {
			h := engineRowsHint.Load()
			engineRowsHint.Store(max(int64(len(d.Engine)), h-h/8))
			return nil
		}
		if err != nil {
			if err := r.reject(err); err != nil {
				return err
			}
			continue
		}
		d.Engine = append(d.Engine, s)
		sp.add(s.TS)
	}
}

// engineRowsHint is about the most engine samples the last runs read had
// (each run keeps the larger of its count and the hint less an eighth),
// the first guess at the next run's: a campaign's runs are alike, and
// growing each run's samples by doubling (some 200 bytes each) copied
// them about twice. The arms of a campaign differ (a burst run logs more
// batches), hence the largest of the last runs rather than the last, and
// an eighth more, since a few samples more would double the slice.
// maxEngineRowsHint bounds the guess at some 7 MB: SGLang, which logs
// every batch, gives an hour's run over 10,000 samples; vLLM, logging
// every ten seconds, a few hundred.
var engineRowsHint atomic.Int64

const maxEngineRowsHint = 1 << 15

// EngineLog is what an engine log says of the engine, for outlast init.
type EngineLog struct {
	Engine       string // vllm or sglang; "" when no header was recognised
	Format       string // the dialect, e.g. vllm-0.10
	KVPoolTokens int64  // 0 when the log does not say
}

// ReadEngineLog reads the engine log at path as ingest would, with the
// engine named by its lines.
func ReadEngineLog(path string) (EngineLog, error) {
	f, err := inputs.SniffEngine(path)
	if err != nil || f == nil {
		return EngineLog{}, err
	}
	lr, err := open(path)
	if err != nil {
		return EngineLog{}, err
	}
	defer lr.Close()
	rd := f.Open(lr, enginelog.Options{T0: time.Unix(0, 0).UTC(), Loc: time.UTC})
	for {
		_, err := rd.Next()
		if err == io.EOF {
			break
		}
		var pe *textpos.ParseError
		if err != nil && !errors.As(err, &pe) {
			return EngineLog{}, err
		}
	}
	sum := summaryOf(rd.Info())
	return EngineLog{Engine: f.Name, Format: sum.format, KVPoolTokens: sum.kvPoolTokens}, lr.Err()
}
