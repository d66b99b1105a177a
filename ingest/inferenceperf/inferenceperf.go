// Package inferenceperf reads inference-perf's per-request export,
// per_request_lifecycle_metrics.json (kubernetes-sigs/inference-perf): a
// JSON array with one record per request, {start_time, end_time, request,
// response, info, error}, in the order requests were collected. Each
// record becomes a turn; the sessions are derived (ingest/internal/loadgen).
//
// Field names and units are inference-perf's own (paths under
// inference_perf/):
//   - the record: reportgen/base.py (name="per_request_lifecycle_metrics",
//     unchanged since v0.1.1), written by client/filestorage/local.py with
//     json.dumps(indent=2);
//   - info: apis/base.py (InferenceInfo) — v0.1.1 to v0.4.0: input_tokens,
//     output_tokens, output_token_times; v0.3.0 adds extra_info; v0.5.0:
//     response_info{output_tokens, output_token_times, server_usage};
//     v0.6.0 and later: request_metrics.text.input_tokens and
//     response_metrics{output_tokens, output_token_times, server_usage};
//   - sessions: apis/user_session.py (extra_info.user_session and the
//     1-based extra_info.chat_round, from v0.3.0);
//   - times: time.perf_counter() (client/modelserver/openai_client.py,
//     apis/streaming_parser.py), seconds on a monotonic clock, not Unix
//     time; per_session_lifecycle_metrics.json (trace_session_replay
//     runs) holds time.time() session times (loadgen/load_generator.py).
//
// The mapping, per record:
//
//	session         extra_info.user_session, a new instance of it (id
//	                "#2", "#3", ...) each time its chat_round goes back
//	                (a new stage); without one, the record is a session
//	                of its own
//	turn            extra_info.chat_round − 1, else the order within the
//	                session
//	ready           null (scheduled_time is not written)
//	sent, done      start_time, end_time + the clock offset
//	first token     output_token_times[0] + the clock offset
//	prompt tokens   server_usage.prompt_tokens, else (Anthropic usage,
//	                apis/anthropic_messages.py) input_tokens +
//	                cache_read_input_tokens + cache_creation_input_tokens,
//	                else the client's input_tokens
//	output tokens   server_usage.completion_tokens (Anthropic:
//	                output_tokens), else output_tokens
//	cached tokens   server_usage.prompt_tokens_details.cached_tokens
//	                (Anthropic: cache_read_input_tokens)
//	status          error when error is set, else ok
//
// The clock offset (Unix time minus perf_counter) comes from, in order:
// the manifest (files.clock_offset_s); the per-session file, whose sessions
// bracket the requests; the "created" Unix seconds the server stamps on
// each response (a streamed one's chunks, or the body of one that was not
// streamed; else the first of the chunks response_metrics keeps, v0.6+),
// which bound when each request reached it.
// Without any, reading fails with an error naming files.clock_offset_s
// (ErrNoAnchor); the records are still read and counted (Reader.Records).
// The file is read whole before its first turn is returned (the anchor
// needs every record), so memory grows with its requests, some 100 bytes
// each, not with the text they carry.
package inferenceperf

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/decimal"
	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
	"github.com/outlast-dev/outlast/textpos"
)

// PerSessionFile is the per-session export beside the per-request one.
const PerSessionFile = "per_session_lifecycle_metrics.json"

// OffsetKey is the manifest key that supplies the clock offset.
const OffsetKey = "files.clock_offset_s"

// Options controls a Reader.
type Options struct {
	T0 time.Time // the run's t=0
	// ClockOffsetS is Unix time minus the file's clock, from the
	// manifest; nil to find it in the output directory.
	ClockOffsetS *float64
	// PerSession is the path of per_session_lifecycle_metrics.json, ""
	// when there is none.
	PerSession string
}

// Anchor says how the file's clock was put on the wall clock.
type Anchor struct {
	Method       string   // manifest, per_session or created
	OffsetS      float64  // Unix time minus perf_counter, seconds
	UncertaintyS *float64 // half-width of the interval it came from; nil from the manifest
}

// Anchor methods.
const (
	AnchorManifest   = "manifest"
	AnchorPerSession = "per_session"
	AnchorCreated    = "created"
)

// Reader reads turns from per_request_lifecycle_metrics.json.
type Reader struct {
	r    io.Reader
	name string
	opt  Options

	read     bool
	errs     []error // bad records, returned first
	turns    []loadgen.Turn
	times    [][3]float64
	next     int
	anchor   Anchor
	warnings []string
	unkeyed  int
	records  int // records read without error
}

// NewReader reads the export in r, named name in positions.
func NewReader(r io.Reader, name string, opt Options) *Reader {
	return &Reader{r: r, name: name, opt: opt}
}

// Next returns the next turn, with times in run seconds, or io.EOF after
// the last. The first call reads the whole file. Bad records come first,
// each a *textpos.ParseError, in file order; an error that is not a
// ParseError (no clock anchor, a read error) ends reading.
func (r *Reader) Next() (*loadgen.Turn, error) {
	if !r.read {
		r.read = true
		if err := r.load(); err != nil {
			return nil, err
		}
	}
	if len(r.errs) > 0 {
		err := r.errs[0]
		r.errs = r.errs[1:]
		return nil, err
	}
	if r.next >= len(r.turns) {
		return nil, io.EOF
	}
	t := &r.turns[r.next]
	r.next++
	return t, nil
}

// Anchor returns how the clock was anchored, once Next has returned a turn
// or io.EOF.
func (r *Reader) Anchor() Anchor { return r.anchor }

// Records returns the number of request records that read without error,
// once Next has returned a turn, io.EOF or an error that is not a
// *textpos.ParseError. It counts them even when their clock has no anchor
// (ErrNoAnchor), when Next returns no turn.
func (r *Reader) Records() int { return r.records }

// Warnings returns the problems that did not stop reading.
func (r *Reader) Warnings() []string { return slices.Clone(r.warnings) }

// Close releases nothing; the run-directory reader closes every reader.
func (r *Reader) Close() {}

func (r *Reader) warnf(format string, args ...any) {
	r.warnings = append(r.warnings, fmt.Sprintf(format, args...))
}

// load reads every record, anchors the clock and moves the times to run
// seconds.
func (r *Reader) load() error {
	recs, bounds, err := r.scan()
	if err != nil {
		return err
	}
	r.records = len(recs)
	if err := r.anchorClock(recs, bounds); err != nil {
		return err
	}
	r.sessions(recs)
	shift := r.shiftNs()
	r.turns = make([]loadgen.Turn, len(recs))
	r.times = make([][3]float64, len(recs))
	for i := range recs {
		rec := &recs[i]
		t := &r.turns[i]
		*t = loadgen.Turn{Pos: rec.pos, Column: rec.col, Ordinal: rec.round == 0 && rec.session != "",
			CachedReported: rec.cachedReported, Continues: rec.continues}
		row := &t.Row
		row.Session = rec.session
		if rec.round > 0 {
			row.Turn = int32(rec.round - 1)
		}
		row.PromptTokens, row.CachedTokens, row.OutputTokens = rec.prompt, rec.cached, rec.output
		row.Status = rec.status
		r.times[i][1], row.SentS = runSeconds(rec.start, shift), &r.times[i][1]
		row.DoneS = runSeconds(rec.end, shift)
		if !math.IsNaN(rec.first) {
			r.times[i][2], row.FirstTokenS = runSeconds(rec.first, shift), &r.times[i][2]
		}
	}
	r.warnFailed(recs)
	if r.unkeyed > 0 {
		r.warnf("%s: WARNING: %d request(s) carry no session key (extra_info.user_session; trace_session_replay writes none): each is read as a one-turn session", r.name, r.unkeyed)
	}
	return nil
}

// warnFailed warns of the requests recorded as successes that failed
// (failure.go), one warning for each cause, at its first record.
func (r *Reader) warnFailed(recs []record) {
	var n [3]int
	var first [3]*record
	for i := range recs {
		if f := recs[i].failed; f != failedNone {
			if n[f] == 0 {
				first[f] = &recs[i]
			}
			n[f]++
		}
	}
	what := [3]string{
		failedInBand:     `carry an error in their response (a top-level "error" in the body or in an SSE frame): read as errors (inference-perf records such a 200 as a success`,
		failedNoResponse: `brought no completion (no content and no usage in the response): read as errors (inference-perf records such a 200 as a success with 0 output tokens`,
	}
	for _, f := range []int{failedInBand, failedNoResponse} {
		if n[f] > 0 {
			r.warnf("%s:%d: WARNING: %d request(s) recorded as successes %s, kubernetes-sigs/inference-perf#713), the first here", first[f].pos, first[f].col, n[f], what[f])
		}
	}
}

// shiftNs returns the clock offset less the run's t=0, in whole ns: the
// offset as the decimal it was given (files.clock_offset_s as run.yaml
// wrote it, an anchor's estimate as computed: the float64's shortest
// form) less t=0 exactly. The offset held as a float64 near 1.8e9 s is
// off by up to 1.2e-7 s, which a float sum would keep in every time
// (2.177999973 for 2.178).
func (r *Reader) shiftNs() int64 {
	off := strconv.AppendFloat(nil, r.anchor.OffsetS, 'f', -1, 64)
	s, _ := decimal.Sum(-r.opt.T0.UnixNano(), off, 0)
	return int64(math.Round(s * 1e9))
}

// runSeconds returns perf_counter reading perf in run seconds, shift ns
// later: to the nanosecond, perf_counter's resolution, so the float64
// nearest the exact decimal sum where the reading has no more than nine
// decimals (a float sum would print 0.7999999999999545 for 0.8).
func runSeconds(perf float64, shift int64) float64 {
	return float64(int64(math.Round(perf*1e9))+shift) / 1e9
}

// openPerSession opens the per-session file, nil when there is none.
func (r *Reader) openPerSession() (*os.File, error) {
	if r.opt.PerSession == "" {
		return nil, nil
	}
	f, err := os.Open(r.opt.PerSession)
	if os.IsNotExist(err) {
		return nil, nil
	}
	return f, err
}

// reject queues a bad record.
func (r *Reader) reject(pos textpos.Pos, col int, raw []byte, msg string) {
	r.errs = append(r.errs, textpos.At(pos, col, raw, "%s", msg))
}

// summaryName matches the names of inference-perf's other reports
// (reportgen/base.py): summaries of the requests, sessions and server
// metrics of the run, a stage or a LoRA adapter.
var summaryName = regexp.MustCompile(`^(summary|stage_\d+|adapter_.+)_(lifecycle|session_lifecycle|prometheus)_metrics\.json$`)

// Summary returns what the file named name (without a compression
// suffix) is when it is one of inference-perf's reports that hold no
// request, and "" otherwise.
func Summary(name string) string {
	switch {
	case name == PerSessionFile:
		return "inference-perf's per-session report (sessions, no request records): outlast reads per_request_lifecycle_metrics.json, " +
			"and this file beside it as the clock anchor"
	case summaryName.MatchString(name):
		return "an inference-perf summary report (distributions, no request records): outlast reads per_request_lifecycle_metrics.json, " +
			"which inference-perf writes with report.request_lifecycle.per_request: true in its config"
	}
	return ""
}

// Sniff reports whether head, the first bytes of a file, starts a list of
// inference-perf request records: '[', then an object whose first key is
// start_time.
func Sniff(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 || head[0] != '[' {
		return false
	}
	rest := bytes.TrimLeft(head[1:], " \t\r\n")
	if len(rest) == 0 || rest[0] != '{' {
		return false
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	return bytes.HasPrefix(rest, []byte(`"start_time"`))
}
