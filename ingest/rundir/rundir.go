// Package rundir reads one run directory (docs/run-format.md: run.yaml,
// the gateway log, and optionally the engine log and the metrics scrapes,
// each possibly .gz or .zst) through the per-format readers of ingest/ and
// assembles the run's canonical tables. Strict by default: the first bad
// line is a positioned error. In lenient mode every rejected line is kept
// with its reason.
//
// Read keeps the tables in memory. Stream sends the turns and sessions,
// the tables that grow with the gateway log, to a Sink as they are read, so
// that memory does not grow with the log; cmd/outlast gives it the
// dataset's run writer, which this package does not know.
//
// The gateway log is outlast's own gateway.jsonl or a load generator's
// per-request export (AIPerf, GuideLLM, inference-perf), chosen by
// files.gateway_format, else by its first bytes, else by its name
// (inputs.Detect). An export of several benchmarks (a GuideLLM sweep) is
// one run per benchmark: ReadAll and StreamAll return them all; Read and
// Stream refuse such a directory.
//
// The files of this package follow the run directory: rundir.go the
// manifest and the order of reading, format.go which gateway log and
// format, gateway.go outlast's gateway log and its cross-line rules,
// repeated.go the second pass that names the first line of a repeated
// record, loadgen.go the load generators' exports, engine.go the engine
// log, metrics.go the scrapes. Which formats there are, their file names
// and how each is told and opened are the table of ingest/inputs; nothing
// here names a format. Nothing here is shared between runs, so runs may be
// read in parallel, each through its own Sink.
package rundir

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/manifest"
	"github.com/outlast-dev/outlast/ingest/outlastlog"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
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
	// Data is the run's tables; after Stream its Turns and Sessions are
	// empty (they went to the Sink) and Turns and Sessions count them.
	Data     *schema.RunData
	Turns    int64
	Sessions int64
	// Rejects are the lines rejected in lenient mode, in the order read,
	// each with its position, reason and verbatim line.
	Rejects  []*textpos.ParseError
	Warnings []string // things a researcher must see: format drift, truncated lines, clock offsets
}

// Sink takes one run's rows as Stream reads them: the turns and sessions
// one by one in any order, then the run's other tables. dataset.RunWriter
// is the Sink of a staged dataset.
type Sink interface {
	AddTurn(schema.Turn) error
	AddSession(schema.Session) error
	// FixSessions sets a function applied to every session row, those
	// already added included, before it is stored: a session that gets a
	// record after its end has had its row passed on already.
	FixSessions(fix func(*schema.Session))
	// Finish stores the rest of the run: d.Turns is empty, and d.Sessions
	// (the sessions still open at the end of the log) are added to those
	// given to AddSession.
	Finish(d *schema.RunData) error
	// Abort discards what the Sink holds of the run after an error.
	Abort()
}

// BeginFunc opens the Sink of the run called name (the manifest's run:).
type BeginFunc func(name string) (Sink, error)

// IsRunDir reports whether dir holds a manifest.
func IsRunDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, ManifestName))
	return err == nil && st.Mode().IsRegular()
}

// Read reads the run in dir into memory. A directory that holds several
// runs (a GuideLLM sweep) is an error: use ReadAll.
func Read(dir string, opt Options) (*Result, error) {
	return one(ReadAll(dir, opt))
}

// ReadAll reads the runs in dir into memory: one run, or one per
// benchmark of a GuideLLM sweep.
func ReadAll(dir string, opt Options) ([]*Result, error) {
	res, err := readRunDir(dir, opt, true, nil)
	if err != nil {
		return nil, err
	}
	for _, r := range res {
		r.Turns, r.Sessions = int64(len(r.Data.Turns)), int64(len(r.Data.Sessions))
	}
	return res, nil
}

// one returns the only result of a run directory.
func one(res []*Result, err error) (*Result, error) {
	if err != nil {
		return nil, err
	}
	if len(res) != 1 {
		names := make([]string, len(res))
		for i, r := range res {
			names[i] = r.Data.Run.Run
		}
		return nil, fmt.Errorf("the directory holds %d runs (%s): read them with ReadAll or StreamAll, or pick one with files.benchmark", len(res), strings.Join(names, ", "))
	}
	return res[0], nil
}

// Stream reads the run in dir into the Sink that begin opens for it. The
// turns and sessions go to the Sink as the gateway log is read, so memory
// grows with the sessions open at once, not with the log's size; the other
// tables go to Finish at the end. On an error the Sink is aborted. The
// rejects are the caller's to store. A directory that holds several runs
// is an error: use StreamAll.
func Stream(dir string, opt Options, begin BeginFunc) (*Result, error) {
	return one(StreamAll(dir, opt, begin))
}

// StreamAll is Stream for a directory of one run or several (a GuideLLM
// sweep: one run per benchmark, each through its own Sink, one after
// another).
func StreamAll(dir string, opt Options, begin BeginFunc) ([]*Result, error) {
	res, err := stream(dir, opt, begin, false)
	if errors.Is(err, outlastlog.ErrKeyCollision) {
		// Ended sessions are known by a 64-bit hash of their id; two ids
		// share one so rarely that reading the run again, keeping the ids,
		// costs less than keeping them always.
		res, err = stream(dir, opt, begin, true)
	}
	return res, err
}

func stream(dir string, opt Options, begin BeginFunc, exact bool) ([]*Result, error) {
	var sink *countingSink
	res, err := readRunDir(dir, opt, exact, func(name string) (*countingSink, error) {
		s, err := begin(name)
		if err != nil {
			return nil, err
		}
		sink = &countingSink{Sink: s}
		return sink, nil
	})
	if err != nil {
		if sink != nil && !sink.finished {
			sink.Abort()
		}
		return nil, err
	}
	return res, nil
}

// countingSink counts the rows it passes on.
type countingSink struct {
	Sink
	turns, sessions int64
	finished        bool
}

func (s *countingSink) AddTurn(t schema.Turn) error {
	s.turns++
	return s.Sink.AddTurn(t)
}

func (s *countingSink) AddSession(row schema.Session) error {
	s.sessions++
	return s.Sink.AddSession(row)
}

// finish stores the run res through the Sink, counting its rows.
func (s *countingSink) finish(res *Result) error {
	res.Turns, res.Sessions = s.turns, s.sessions+int64(len(res.Data.Sessions))
	s.finished = true
	return s.Sink.Finish(res.Data)
}

// readRunDir reads the runs in dir. With begin, the turns and sessions go
// to the Sink it returns for each run's name instead of into memory, with
// sessions known after their end by the hash of their id unless exact.
func readRunDir(dir string, opt Options, exact bool, begin func(run string) (*countingSink, error)) ([]*Result, error) {
	res, err := readRunDirIn(dir, opt, exact, begin)
	if err != nil && !strings.HasPrefix(err.Error(), dir+": ") {
		// Every error names the run directory it is about, also one that
		// came from below without it (a file that is not gzip, say).
		err = fmt.Errorf("%s: %w", dir, err)
	}
	return res, err
}

func readRunDirIn(dir string, opt Options, exact bool, begin func(run string) (*countingSink, error)) ([]*Result, error) {
	mpath := filepath.Join(dir, ManifestName)
	mbytes, err := os.ReadFile(mpath)
	if err != nil {
		return nil, err
	}
	m, err := manifest.Parse(mbytes, ManifestName)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	base := m.Run()
	base.ManifestSHA256 = fmt.Sprintf("%x", sha256.Sum256(mbytes))
	base.OutlastVersion = opt.Version
	base.SchemaVersion = schema.Version
	if base.LogTZ == "" {
		base.LogTZ = "UTC"
	}
	loc, err := m.Location()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	gw, format, err := gatewayFile(dir, m)
	if err != nil {
		return nil, err
	}
	d := &dirReader{dir: dir, opt: opt, m: m, base: base, loc: loc, exact: exact, begin: begin, gwPath: gw}
	if format.Records == nil {
		return d.readExport(format)
	}
	r, err := d.newRun(base, m.StartedAt)
	if err != nil {
		return nil, err
	}
	r.res.Data.Run.GatewayFormat = format.Name
	r.warnKeys(format)
	gwSpan, err := r.readGateway(gw, format)
	if err != nil {
		return nil, err
	}
	if err := r.finishRun(gwSpan, nil); err != nil {
		return nil, err
	}
	return []*Result{r.res}, nil
}

// dirReader is what the runs of one directory share.
type dirReader struct {
	dir    string
	opt    Options
	m      *manifest.Manifest
	base   schema.Run // the manifest's run, with provenance
	loc    *time.Location
	exact  bool
	begin  func(run string) (*countingSink, error)
	gwPath string
}

// newRun starts reading the run run, whose t=0 is t0.
func (d *dirReader) newRun(run schema.Run, t0 time.Time) (*runReader, error) {
	res := &Result{Data: &schema.RunData{Run: run}}
	r := &runReader{dir: d.dir, opt: d.opt, m: d.m, res: res, exact: d.exact, t0: t0, loc: d.loc}
	if d.begin != nil {
		var err error
		if r.sink, err = d.begin(run.Run); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// finishRun reads the engine log and the metrics into the run whose
// gateway activity spans gwSpan, keeping only the samples in clip when it
// is set (a sweep's benchmark shares them with the others), and passes the
// run to its Sink.
func (r *runReader) finishRun(gwSpan span, clip *span) error {
	m, res := r.m, r.res
	r.checkRunWindow(gwSpan)
	var p string
	if m.Files.HasRoles() {
		var err error
		if p, err = r.readRoleLogs(gwSpan); err != nil {
			return err
		}
	} else {
		var err error
		if p, err = findFile(r.dir, m.Files.EngineLog, m.Files.EngineLog != manifest.DefaultEngineLog); err != nil {
			return err
		}
		if p != "" {
			span, err := r.readEngineLog(p, m.Engine.Name)
			if err != nil {
				return err
			}
			r.checkSpan("engine log samples", span, gwSpan)
		}
	}
	if m.Engine.PrefixCaching != nil && p != "" {
		r.prefixCachingStated(p, res.Data.Run.EngineLogFormat, *m.Engine.PrefixCaching)
	}
	if mp, err := findMetrics(r.dir, m.Files.Metrics); err != nil {
		return err
	} else if mp != "" {
		span, err := r.readMetrics(mp, m.Files.MetricsFormat)
		if err != nil {
			return err
		}
		r.checkSpan("metrics scrapes", span, gwSpan)
	}
	if m.Engine.PrefixCaching == nil {
		// After the metrics: their cache_config_info may say it.
		r.prefixCachingUnstated(p, res.Data.Run.EngineLogFormat)
	}
	r.cachingContradicted()
	if clip != nil {
		r.clipEngine(*clip)
	} else {
		r.trimEngine(gwSpan)
	}
	res.Data.Run.RejectedLines = int64(len(res.Rejects))
	res.Data.Sort()
	if r.sink != nil {
		return r.sink.finish(res)
	}
	return nil
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
		return "", fmt.Errorf("%s: missing %s (named in run.yaml, or required by run-format.md)", dir, name)
	}
	return "", nil
}

// findMetrics resolves the manifest's metrics name: a file as findFile
// finds it, or a directory (of query_range answers). It returns "" when
// there is neither.
func findMetrics(dir, name string) (string, error) {
	p := filepath.Join(dir, name)
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return p, nil
	}
	// A name of run.yaml's own is no default that may be absent: a typo
	// must not pass silently.
	return findFile(dir, name, name != manifest.DefaultMetrics)
}

// runReader reads the files of one run directory into res.
type runReader struct {
	dir  string
	opt  Options
	m    *manifest.Manifest
	res  *Result
	sink *countingSink // nil: turns and sessions into memory
	t0   time.Time     // the manifest's started_at
	// metricsPrefixCaching is what the metrics' cache_config_info says
	// of prefix caching, nil when nothing.
	metricsPrefixCaching *bool
	loc                  *time.Location
	// exact keeps the ids of ended sessions (after ErrKeyCollision).
	exact bool
	gw    gatewayLog
	// cachedTurns counts the turns that report cached prompt tokens
	// (more than 0), which a cache that is off never gives.
	cachedTurns int64
}

// cutNote adds to err, an input's error, that one of inputs is a
// compressed file cut mid-write (lineio.StreamCut): its last line is
// then cut too, and that, not the line's writer, is what the error is
// about.
func cutNote(err error, inputs ...*lineio.Reader) error {
	for _, lr := range inputs {
		if lr.StreamCut() {
			return fmt.Errorf("%w (%s's compressed stream ends before its end marker: the file was cut mid-write)", err, lr.Name())
		}
	}
	return err
}

// warnCut warns of a compressed input whose stream ends before its end
// marker (lineio.StreamCut): a compressing writer stopped mid-run.
func (r *runReader) warnCut(lr *lineio.Reader) {
	if lr.StreamCut() {
		r.warnf("WARNING: %s: the compressed stream ends before its end marker: the file was cut (its writer was stopped mid-run); what it holds was read", lr.Name())
	}
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
	if rp, ok := unresolved(pe.Err); ok {
		r.gw.repeated = append(r.gw.repeated, rp)
	}
	r.res.Rejects = append(r.res.Rejects, pe)
	return nil
}

func open(path string) (*lineio.Reader, error) {
	return lineio.Open(path, filepath.Base(path))
}

// openHead opens the file at path to tell its format (lineio.OpenHead).
func openHead(path string) (*lineio.Reader, error) {
	return lineio.OpenHead(path, filepath.Base(path))
}

// span is the run-time interval a source covers.
type span struct{ first, last float64 }

func newSpan() span { return span{math.Inf(1), math.Inf(-1)} }

func (s *span) add(t float64) {
	s.first = math.Min(s.first, t)
	s.last = math.Max(s.last, t)
}

func (s span) ok() bool { return s.first <= s.last }

// checkRunWindow warns when the gateway's activity, gw, lies far from the
// run's planned window, 0..duration_s: a wrong started_at (a time zone's
// hours, a day off) places every record elsewhere, and nothing else would
// say so. Some slack is allowed before 0 and much after the planned end
// (a run may go on draining).
func (r *runReader) checkRunWindow(gw span) {
	d := r.res.Data.Run.DurationS
	if !gw.ok() || d <= 0 {
		return
	}
	slack := max(60, d/10)
	if gw.first < -slack || gw.first > d || gw.last > 2*d+slack {
		r.warnf("WARNING: the gateway's records span %.0f..%.0f s of run time, but the run is planned for 0..%.0f s: check started_at (and the records' clock)",
			gw.first, gw.last, d)
	}
	if t := r.res.Data.Run.TriggerStartS; t != nil && *t >= max(d, gw.last) {
		r.warnf("WARNING: trigger.start_s %.0f is at or after the run's end (%.0f s): the trigger never ran, and the analysis leaves the run out of what counts persistence", *t, max(d, gw.last))
	}
	if c := r.res.Data.Run.ControlStartS; c != nil && *c >= max(d, gw.last) {
		r.warnf("WARNING: control.start_s %.0f is at or after the run's end (%.0f s): the control never ran", *c, max(d, gw.last))
	}
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
