// Package ingest reads one run directory (run-format.md: run.yaml,
// gateway.jsonl, and optionally engine.log and metrics.prom, each possibly
// .gz or .zst) through the per-format readers and assembles the run's
// canonical tables. Strict by default: the first bad line is a positioned
// error. In lenient mode every rejected line is kept with its reason.
package ingest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/outlast-dev/outlast/textpos"

	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/ingest/gateway"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/manifest"
	"github.com/outlast-dev/outlast/ingest/promscrape"
	"github.com/outlast-dev/outlast/ingest/sglanglog"
	"github.com/outlast-dev/outlast/ingest/vllmlog"
	"github.com/outlast-dev/outlast/schema"
)

// ManifestName is the manifest's file name in a run directory.
const ManifestName = "run.yaml"

// SpanTolerance is how far (seconds) gateway activity may lie outside the
// engine's time span before ingest warns: a wrong log_tz or started_at shows
// up as an offset of hours.
const SpanTolerance = 60.0

// Options controls how a run directory is read.
type Options struct {
	Lenient bool   // keep going past bad lines, keeping them as rejects
	Version string // outlast version, recorded as provenance
}

// Result is one run read from its directory.
type Result struct {
	// Data is the run's tables; after StageRun its Turns and Sessions are
	// empty (they went to the stage) and Turns and Sessions count them.
	Data     *schema.RunData
	Turns    int64
	Sessions int64
	Rejects  []dataset.Reject
	Warnings []string // things a researcher must see: format drift, truncated lines, clock offsets
}

// IsRunDir reports whether dir holds a manifest.
func IsRunDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, ManifestName))
	return err == nil && st.Mode().IsRegular()
}

// ReadRunDir reads the run in dir into memory.
func ReadRunDir(dir string, opt Options) (*Result, error) {
	res, err := readRunDir(dir, opt, true, nil)
	if err != nil {
		return nil, err
	}
	res.Turns, res.Sessions = int64(len(res.Data.Turns)), int64(len(res.Data.Sessions))
	return res, nil
}

// StageRun reads the run in dir into stage. The turns and sessions tables,
// the ones that grow with the log, stream to their files as the gateway log
// is read, so memory grows with the sessions open at once, not with the
// log's size; the other tables are written at the end. The caller stages
// the rejects (Stage.WriteRejects) and commits or aborts the stage.
func StageRun(dir string, opt Options, stage *dataset.Stage) (*Result, error) {
	res, err := stageRun(dir, opt, stage, false)
	if errors.Is(err, gateway.ErrKeyCollision) {
		// Ended sessions are known by a 64-bit hash of their id; two ids
		// share one so rarely that reading the run again, keeping the ids,
		// costs less than keeping them always.
		res, err = stageRun(dir, opt, stage, true)
	}
	return res, err
}

func stageRun(dir string, opt Options, stage *dataset.Stage, exact bool) (*Result, error) {
	var rw *dataset.RunWriter
	res, err := readRunDir(dir, opt, exact, func(name string) (*dataset.RunWriter, error) {
		var err error
		rw, err = stage.BeginRun(name)
		return rw, err
	})
	if err != nil {
		if rw != nil {
			rw.Abort()
		}
		return nil, err
	}
	res.Turns, res.Sessions = rw.Turns(), rw.Sessions()+int64(len(res.Data.Sessions))
	if err := rw.Finish(res.Data); err != nil {
		return nil, err
	}
	return res, nil
}

// sessionKey, when set, replaces the hash of session ids in the streaming
// collector (tests force collisions with it).
var sessionKey func(string) uint64

// readRunDir reads the run in dir. With begin, the turns and sessions go to
// the RunWriter it returns for the run's name instead of into memory, with
// sessions known after their end by the hash of their id unless exact.
func readRunDir(dir string, opt Options, exact bool, begin func(run string) (*dataset.RunWriter, error)) (*Result, error) {
	mpath := filepath.Join(dir, ManifestName)
	mbytes, err := os.ReadFile(mpath)
	if err != nil {
		return nil, err
	}
	m, err := manifest.Parse(mbytes, ManifestName)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	res := &Result{Data: &schema.RunData{Run: m.Run()}}
	run := &res.Data.Run
	run.ManifestSHA256 = fmt.Sprintf("%x", sha256.Sum256(mbytes))
	run.OutlastVersion = opt.Version
	run.SchemaVersion = schema.Version
	if run.LogTZ == "" {
		run.LogTZ = "UTC"
	}
	if _, err := m.Location(); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	r := &runReader{dir: dir, opt: opt, res: res, exact: exact}
	if begin != nil {
		if r.rw, err = begin(run.Run); err != nil {
			return nil, err
		}
	}

	gw, err := findFile(dir, m.Files.Gateway, true)
	if err != nil {
		return nil, err
	}
	gwSpan, err := r.readGateway(gw, m)
	if err != nil {
		return nil, err
	}
	if p, err := findFile(dir, m.Files.EngineLog, false); err != nil {
		return nil, err
	} else if p != "" {
		span, err := r.readEngineLog(p, m)
		if err != nil {
			return nil, err
		}
		r.checkSpan("engine log samples", span, gwSpan)
	}
	if p, err := findFile(dir, m.Files.Metrics, false); err != nil {
		return nil, err
	} else if p != "" {
		span, err := r.readMetrics(p, m)
		if err != nil {
			return nil, err
		}
		r.checkSpan("metrics scrapes", span, gwSpan)
	}
	run.RejectedLines = int64(len(res.Rejects))
	res.Data.Sort()
	return res, nil
}

// findFile resolves a manifest file name, also trying .gz and .zst variants.
// It returns "" for a missing optional file.
func findFile(dir, name string, required bool) (string, error) {
	for _, n := range []string{name, name + ".gz", name + ".zst"} {
		p := filepath.Join(dir, n)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	if required {
		return "", fmt.Errorf("%s: missing %s (required by run-format.md)", dir, name)
	}
	return "", nil
}

// span is the run-time interval a source covers.
type span struct{ first, last float64 }

func newSpan() span { return span{math.Inf(1), math.Inf(-1)} }

func (s *span) add(t float64) {
	s.first = math.Min(s.first, t)
	s.last = math.Max(s.last, t)
}

func (s span) ok() bool { return s.first <= s.last }

type runReader struct {
	dir string
	opt Options
	res *Result
	rw  *dataset.RunWriter // nil: turns and sessions into memory
	// exact keeps the ids of ended sessions (after ErrKeyCollision).
	exact bool
	col   *gateway.Collector
	// repeated are lenient rejects of a repeated (session, turn) whose first
	// line is looked up after the pass (resolveRepeated).
	repeated []repeatedReject
	gwPath   string
	t0       time.Time
}

func (r *runReader) warnf(format string, args ...any) {
	r.res.Warnings = append(r.res.Warnings, fmt.Sprintf(format, args...))
}

// reject handles a bad line: an error in strict mode, a kept reject in
// lenient mode. Errors that are not about a line always stop.
func (r *runReader) reject(err error) error {
	var pe *textpos.ParseError
	if !errors.As(err, &pe) || !r.opt.Lenient {
		return fmt.Errorf("%s: %w", r.dir, err)
	}
	if rp, ok := unresolved(pe.Err, len(r.res.Rejects)); ok {
		r.repeated = append(r.repeated, rp)
	}
	r.res.Rejects = append(r.res.Rejects, dataset.Reject{Pos: pe.Pos, Reason: pe.Err.Error(), Line: pe.Raw})
	return nil
}

// rejectGateway is reject for gateway lines: in strict mode the first line
// of a repeated turn, session_start or session_end is looked up before the
// error is returned.
func (r *runReader) rejectGateway(err error) error {
	if !r.opt.Lenient {
		// The error may rest on a session matched by hash.
		if verr := r.verifyStarts(r.col.Unverified()); verr != nil {
			return verr
		}
	}
	if rp, ok := unresolved(err, -1); ok && !r.opt.Lenient {
		if lerr := r.resolveRepeated([]repeatedReject{rp}); lerr != nil {
			return lerr
		}
	}
	return r.reject(err)
}

func open(path string) (*lineio.Reader, error) {
	return lineio.Open(path, filepath.Base(path))
}

func (r *runReader) readGateway(path string, m *manifest.Manifest) (span, error) {
	sp := newSpan()
	lr, err := open(path)
	if err != nil {
		return sp, err
	}
	defer lr.Close()
	rd := gateway.NewReader(lr, m.StartedAt)
	defer rd.Close() // before lr.Close: the reader's goroutines use lr
	r.gwPath, r.t0 = path, m.StartedAt
	col := gateway.NewCollector()
	if r.rw != nil {
		col = gateway.NewStreamingCollector(gateway.StreamOptions{
			Turn: r.rw.AddTurn, Session: r.rw.AddSession, Exact: r.exact, Key: sessionKey,
		})
	}
	r.col = col
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if err := r.reject(err); err != nil {
				return sp, err
			}
			continue
		}
		if err := col.Add(rec); err != nil {
			var pe *textpos.ParseError
			if !errors.As(err, &pe) {
				return sp, err // a sink failed, or a hash collision: not a line's fault
			}
			if err := r.rejectGateway(err); err != nil {
				return sp, err
			}
			continue
		}
		sp.add(rec.T)
	}
	if err := col.Finish(); err != nil {
		return sp, err
	}
	if err := r.verifyStarts(col.Unverified()); err != nil {
		return sp, err
	}
	if r.rw != nil {
		r.rw.FixSessions(col.SessionFix())
	}
	if len(r.repeated) > 0 {
		if err := r.resolveRepeated(r.repeated); err != nil {
			return sp, err
		}
	}
	if err := lr.Err(); err != nil {
		return sp, err
	}
	for _, w := range rd.Warnings() {
		r.warnf("%s", w)
	}
	for _, u := range col.Unknown() {
		r.warnf("%s: unknown event kind %q (%d lines, ignored)", u.First, u.Ev, u.Count)
	}
	d := r.res.Data
	d.Sessions, d.Turns, d.Events = col.Tables(d.Run.DurationS)
	sum, err := lr.SHA256()
	if err != nil {
		return sp, err
	}
	d.Run.GatewaySHA256 = sum
	return sp, nil
}

// engineReader is what the vLLM and SGLang readers have in common.
type engineReader interface {
	Next() (schema.EngineSample, error)
}

func (r *runReader) readEngineLog(path string, m *manifest.Manifest) (span, error) {
	sp := newSpan()
	name := m.Engine.Name
	if name != "vllm" && name != "sglang" {
		sniffed, err := sniff(path)
		if err != nil {
			return sp, err
		}
		if sniffed == "" {
			r.warnf("%s: engine %q and no vLLM or SGLang header recognised: engine log not read", filepath.Base(path), name)
			return sp, nil
		}
		name = sniffed
	}
	lr, err := open(path)
	if err != nil {
		return sp, err
	}
	defer lr.Close()
	loc, err := m.Location()
	if err != nil {
		return sp, err
	}
	var rd engineReader
	var info func() (format string, pool int64, lines, samples int)
	switch name {
	case "vllm":
		v := vllmlog.NewReader(lr, vllmlog.Options{T0: m.StartedAt, Loc: loc})
		rd = v
		info = func() (string, int64, int, int) {
			i := v.Info()
			return i.Format, i.KVPoolTokens, i.Lines, i.SampleLines
		}
	default:
		s := sglanglog.NewReader(lr, sglanglog.Options{T0: m.StartedAt, Loc: loc})
		rd = s
		info = func() (string, int64, int, int) {
			i := s.Info()
			return i.Format, i.KVPoolTokens, i.Lines, i.SampleLines
		}
	}
	d := r.res.Data
	if err := r.collectSamples(rd.Next, &sp); err != nil {
		return sp, err
	}
	if err := lr.Err(); err != nil {
		return sp, err
	}
	format, pool, lines, samples := info()
	d.Run.EngineLogFormat = format
	if samples == 0 {
		r.warnf("%s: WARNING: no %s stats line recognised in %d lines: the log format may have drifted; the engine series is empty", filepath.Base(path), name, lines)
	}
	if pool > 0 && d.Run.KVPoolTokens == nil {
		d.Run.KVPoolTokens, d.Run.KVPoolSource = &pool, "engine_log"
	} else if pool > 0 && *d.Run.KVPoolTokens != pool {
		r.warnf("%s: KV pool %d tokens in the log, %d in the manifest (the manifest wins)", filepath.Base(path), pool, *d.Run.KVPoolTokens)
	}
	if d.Run.EngineLogSHA256, err = lr.SHA256(); err != nil {
		return sp, err
	}
	return sp, nil
}

// sniff names the engine whose header most of the first 500 lines of path
// match: an SGLang log can start with a few lines in vLLM's format.
func sniff(path string) (string, error) {
	lr, err := open(path)
	if err != nil {
		return "", err
	}
	defer lr.Close()
	var vllm, sglang int
	for i := 0; i < 500 && lr.Next(); i++ {
		switch {
		case vllmlog.Match(lr.Bytes()):
			vllm++
		case sglanglog.Match(lr.Bytes()):
			sglang++
		}
	}
	switch {
	case vllm == 0 && sglang == 0:
		return "", lr.Err()
	case sglang > vllm:
		return "sglang", lr.Err()
	}
	return "vllm", lr.Err()
}

// collectSamples appends the samples next yields to the run's engine
// table, extending sp, until io.EOF; bad lines go through reject.
func (r *runReader) collectSamples(next func() (schema.EngineSample, error), sp *span) error {
	d := r.res.Data
	for {
		s, err := next()
		if err == io.EOF {
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

func (r *runReader) readMetrics(path string, m *manifest.Manifest) (span, error) {
	sp := newSpan()
	lr, err := open(path)
	if err != nil {
		return sp, err
	}
	defer lr.Close()
	rd := promscrape.NewReader(lr, promscrape.Options{T0: m.StartedAt})
	defer rd.Close() // before lr.Close: the reader's goroutines use lr
	d := r.res.Data
	var samples span // the scrapes' span comes from Info below
	if err := r.collectSamples(rd.Next, &samples); err != nil {
		return sp, err
	}
	if err := lr.Err(); err != nil {
		return sp, err
	}
	info := rd.Info()
	base := filepath.Base(path)
	if info.Scrapes == 0 {
		r.warnf("%s: WARNING: no scrape recognised: the metrics series is empty", base)
	} else if info.Unrecognised > 0 {
		r.warnf("%s: %d of %d scrapes had none of the known vLLM/SGLang metrics", base, info.Unrecognised, info.Scrapes)
	}
	if info.CounterResets > 0 {
		r.warnf("%s: %d counter resets (engine restarts): deltas across them are left null", base, info.CounterResets)
	}
	if pool := info.KVPoolTokens; pool > 0 && d.Run.KVPoolTokens == nil {
		d.Run.KVPoolTokens, d.Run.KVPoolSource = &pool, "metrics"
	}
	if !math.IsNaN(info.FirstS) {
		sp = span{info.FirstS, info.LastS}
	}
	if d.Run.MetricsSHA256, err = lr.SHA256(); err != nil {
		return sp, err
	}
	return sp, nil
}

func (r *runReader) checkSpan(what string, s, gw span) {
	if !s.ok() || !gw.ok() {
		return
	}
	// An engine idles before the first and after the last turn, so its span
	// may be wider; gateway activity outside it means the clocks disagree.
	if gw.first < s.first-SpanTolerance || gw.last > s.last+SpanTolerance {
		r.warnf("%s span %.0f..%.0f s but the gateway %.0f..%.0f s (run time): check started_at and engine.log_tz",
			what, s.first, s.last, gw.first, gw.last)
	}
}
