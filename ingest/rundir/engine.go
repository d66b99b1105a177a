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
	format         string   // the dialect, e.g. vllm-0.10
	wrappers       string   // the wrappers in front of most lines, e.g. docker-compose
	kvPoolTokens   int64    // 0 when the log does not say
	lines, samples int      // lines read, stats lines among them
	untimed        int      // stats lines without any time, not read
	notes          []string // the reader's remarks on the whole log, warned of
}

// summaryOf returns the part of a reader's Info that rundir uses.
func summaryOf(i enginelog.Info) logSummary {
	return logSummary{i.Format, i.Wrappers, i.KVPoolTokens, i.Lines, i.SampleLines, i.Untimed, i.Notes}
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
	sp, sum, sha, err := r.readLogFor(path, engine, "")
	if err != nil || sum.format == "" && sha == "" {
		return sp, err
	}
	d := r.res.Data
	d.Run.EngineLogFormat, d.Run.EngineLogSHA256 = sum.logFormat(), sha
	if pool := sum.kvPoolTokens; pool > 0 && d.Run.KVPoolTokens == nil {
		d.Run.KVPoolTokens, d.Run.KVPoolSource = &pool, "engine_log"
	} else if pool > 0 && *d.Run.KVPoolTokens != pool {
		r.warnf("%s: KV pool %d tokens in the log, %d in the manifest (the manifest wins)", filepath.Base(path), pool, *d.Run.KVPoolTokens)
	}
	return sp, nil
}

// readLogFor reads the engine log at path as readEngineLog does, for a
// role: "" (the run's one engine log, every sample kept), "prefill" or
// "decode" (a disaggregated deployment's logs: each sample keeps what its
// side decides, keepPrefill and keepDecode). It returns what the reader
// saw and the sha256 of the file as stored.
func (r *runReader) readLogFor(path, engine, role string) (span, logSummary, string, error) {
	sp := newSpan()
	format, ok := inputs.EngineNamed(engine)
	if !ok {
		var err error
		if format, err = inputs.SniffEngine(path); err != nil {
			return sp, logSummary{}, "", err
		}
		if format == nil {
			r.warnf("%s: engine %q and no vLLM or SGLang header recognised: engine log not read", filepath.Base(path), engine)
			return sp, logSummary{}, "", nil
		}
	}
	lr, err := open(path)
	if err != nil {
		return sp, logSummary{}, "", err
	}
	defer lr.Close()
	rd := format.Open(lr, enginelog.Options{T0: r.t0, Loc: r.loc})
	next := rd.Next
	if keep := roleKeeps[role]; keep != nil {
		next = func() (schema.EngineSample, error) {
			for {
				s, err := rd.Next()
				if err != nil || keep(&s) {
					return s, err
				}
			}
		}
	}
	if err := r.collectSamples(next, &sp); err != nil {
		return sp, logSummary{}, "", cutNote(err, lr)
	}
	if err := lr.Err(); err != nil {
		return sp, logSummary{}, "", err
	}
	sum := summaryOf(rd.Info())
	switch {
	case sum.samples == 0 && role == "prefill":
		r.warnf("%s: WARNING: the prefill log holds no %s batch line in %d lines: the engine table has no prefill side (no prefill batches, cached tokens or KV usage from the engine); the decode side's is read", filepath.Base(path), format.Name, sum.lines)
	case sum.samples == 0:
		r.warnf("%s: WARNING: no %s stats line recognised in %d lines: the log format may have drifted; the engine series is empty", filepath.Base(path), format.Name, sum.lines)
	case sum.untimed > 0:
		r.warnf("%s: WARNING: %d of %d %s stats lines carry no time (no header of the engine's, no wrapper stamp with a zone: an engine before headers, or lines pasted without theirs): they are not read", filepath.Base(path), sum.untimed, sum.samples, format.Name)
	}
	for _, n := range sum.notes {
		r.warnf("%s: %s", filepath.Base(path), n)
	}
	sha, err := lr.SHA256()
	if err != nil {
		return sp, sum, "", err
	}
	r.warnCut(lr)
	return sp, sum, sha, nil
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
