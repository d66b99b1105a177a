// Package aiperf reads AIPerf's per-request export, profile_export.jsonl
// (ai-dynamo/aiperf): one JSON object per line, {"metadata": {...},
// "metrics": {tag: {"value": v, "unit": u}}, "error": ...}, one line per
// request, in the order requests completed. Each line becomes a turn of
// the run; the sessions are derived (ingest/internal/loadgen).
//
// Field names and units are AIPerf's own:
//   - the record: aiperf/common/models/record_models.py (MetricRecordInfo,
//     MetricRecordMetadata) at 5e0b1e17 and db4f6397 (2025), written by
//     aiperf/post_processors/record_export_results_processor.py with
//     model_dump_json: every key present, nulls written;
//     src/aiperf/common/metric_records_wire.py and
//     src/aiperf/common/models/record_export_models.py (2026, msgspec with
//     omit_defaults): null keys and defaults omitted, so was_cancelled
//     appears only when true;
//   - the metric tags: aiperf/metrics/types/ttft_metric.py
//     (time_to_first_token; "ttft" in builds of 2025-10-09 only), the
//     usage metrics usage_prompt_tokens, usage_completion_tokens and
//     usage_prompt_cache_read_tokens (2026 builds), input_sequence_length,
//     output_sequence_length and error_isl (client-side tokenizer counts);
//   - the units: aiperf/common/enums/metric_enums.py (MetricTimeUnit: ns,
//     us, ms, sec).
//
// The mapping, per turn:
//
//	session         metadata.x_correlation_id (one per session instance;
//	                conversation_id repeats when a dataset is reused), else
//	                x_request_id as a one-turn session
//	turn            metadata.turn_index (0-based)
//	ready           metadata.credit_issued_ns (2026 builds), else null
//	sent, done      metadata.request_start_ns, request_end_ns (Unix ns),
//	                less metadata.clock_offset_ns when given (2026 builds,
//	                every run mode: worker clock to controller clock)
//	first token     sent + metrics.time_to_first_token (or ttft) in its unit
//	prompt tokens   usage_prompt_tokens, else input_sequence_length, else
//	                error_isl (client-side: warned)
//	output tokens   usage_completion_tokens, else output_sequence_length
//	cached tokens   usage_prompt_cache_read_tokens (absent: not reported)
//	status          aborted if was_cancelled, else error if error is set,
//	                else ok
//
// AIPerf writes no count it could not take (NoMetricValue in
// aiperf/metrics/types/input_sequence_length_metric.py,
// output_sequence_length_metric.py): a completed request without a prompt
// or an output count is refused, its count unknown; a failed one's is 0.
//
// Records of benchmark_phase warmup are not part of the run: they are
// counted (Info.Warmup), not returned. A phase other than warmup and
// profiling is an error.
package aiperf

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/outlast-dev/outlast/ingest/internal/jsondoc"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
	"github.com/outlast-dev/outlast/ingest/internal/pipeline"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// Info is what the reader saw, complete once Next has returned io.EOF.
type Info struct {
	Records int // non-blank lines read
	Warmup  int // warmup records, not part of the run
	// ClientTokens counts the completed turns whose prompt tokens are
	// AIPerf's client-side count (no usage_prompt_tokens from the server).
	ClientTokens int
	// Shifted counts the turns whose times were moved onto the
	// controller's clock by their clock_offset_ns (every run mode of 2026
	// builds), Unshifted those that carried none; MaxClockOffsetNs is the
	// largest offset's magnitude.
	Shifted, Unshifted int
	MaxClockOffsetNs   int64
	// MultiTurn says a turn beyond a conversation's first was read.
	MultiTurn bool
}

// Reader reads turns from profile_export.jsonl. It cuts the input into
// chunks of whole lines and parses them on GOMAXPROCS goroutines
// (parallel.go); Next hands the turns out in input order, with exact
// positions, as a sequential reader would.
type Reader struct {
	lr    *lineio.Reader
	lines *pipeline.Reader[item, struct{}]
	info  Info

	warnings []string // at the end, after the input's own (lines)
	done     bool
	plan     map[string]int64 // turns planned by conversation (SetPlan)
}

// NewReader reads turns from lr; t0 is the run's t=0, which record times
// are measured from. Call Close when done unless Next has returned io.EOF.
func NewReader(lr *lineio.Reader, t0 time.Time) *Reader {
	return &Reader{lr: lr, lines: pipeline.NewReader(lr, chunkSize, nil, newWorker(t0.UnixNano()))}
}

// Next returns the next turn, or io.EOF after the last. The turn is valid
// until the next call. A bad line gives a *textpos.ParseError and the
// reader goes on with the next line; a bad last line without a newline (the
// run was stopped mid-write) is a warning instead.
func (r *Reader) Next() (*loadgen.Turn, error) {
	for {
		it, cutShort, err := r.lines.Next()
		if err != nil {
			if err == io.EOF {
				r.finish()
			}
			return nil, err
		}
		r.info.Records++
		if it.err != nil {
			if it.err.Kind == textpos.ErrSyntax && cutShort {
				r.lines.CutShort(it.turn.Pos, it.err.Msg)
				continue
			}
			return nil, it.err.At(it.turn.Pos, it.turn.Raw)
		}
		if it.warmup {
			r.info.Warmup++
			continue
		}
		if it.client && it.turn.Row.Status == schema.TurnOK {
			r.info.ClientTokens++
		}
		if it.shifted {
			r.info.Shifted++
			r.info.MaxClockOffsetNs = max(r.info.MaxClockOffsetNs, it.offset, -it.offset)
		} else {
			r.info.Unshifted++
		}
		if it.turn.Row.Turn > 0 {
			r.info.MultiTurn = true
		}
		if r.plan != nil && it.conversation != "" {
			it.turn.Planned = r.plan[it.conversation]
		}
		it.link()
		return &it.turn, nil
	}
}

// link points the turn's times at its item's: the items may have moved
// since parsing set them (the slice grew).
func (it *item) link() {
	row := &it.turn.Row
	for i, p := range [3]**float64{&row.ReadyS, &row.SentS, &row.FirstTokenS} {
		if *p != nil {
			*p = &it.times[i]
		}
	}
}

func (r *Reader) finish() {
	if r.done {
		return
	}
	r.done = true
	name := r.lr.Name()
	if r.info.Warmup > 0 {
		r.warnings = append(r.warnings, fmt.Sprintf("%s: %d warmup record(s) (benchmark_phase warmup) are not part of the run: counted in runs.excluded_records, not stored", name, r.info.Warmup))
	}
	if r.info.Shifted > 0 {
		w := fmt.Sprintf("%s: %d record(s) carry clock_offset_ns (the worker's measured offset from the controller's clock, which AIPerf stamps in every run mode; the largest %s): their times are moved onto the controller's clock, which stamps credit_issued_ns", name, r.info.Shifted, nsString(r.info.MaxClockOffsetNs))
		if r.info.Unshifted > 0 {
			w += fmt.Sprintf("; %d record(s) carry none (a worker's first credits, before it had measured its offset): their times stay on their worker's clock, off by up to that offset", r.info.Unshifted)
		}
		r.warnings = append(r.warnings, w)
	}
	if r.info.ClientTokens > 0 {
		r.warnings = append(r.warnings, fmt.Sprintf("%s: %d completed turn(s) carry no server usage (usage_prompt_tokens): their token counts are AIPerf's client-side tokenizer counts (input_sequence_length, output_sequence_length); AIPerf builds of 2025 count only the new turn's text, not the conversation's history", name, r.info.ClientTokens))
	}
}

// Close stops the parsing goroutines and waits for them; the line reader
// may then be closed.
func (r *Reader) Close() {
	r.lines.Close()
}

// Info returns what the reader saw.
func (r *Reader) Info() Info { return r.info }

// Warnings returns the problems that did not stop reading; complete once
// Next has returned io.EOF.
func (r *Reader) Warnings() []string {
	return append(slices.Clone(r.lines.Warnings()), r.warnings...)
}

// Sniff reports whether line, the first non-blank line of a file, is an
// AIPerf record: an object whose first member is "metadata", holding the
// request_start_ns and benchmark_phase every released build writes, beside
// "metrics". AIPerf writes no white space between tokens (model_dump_json,
// msgspec), but a record re-written by another JSON encoder (Python's
// json.dumps writes ": " and ", ") is the same record: any JSON white
// space is accepted.
func Sniff(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return false
	}
	first, ok := keyAt(line, skipSpace(line, 1))
	return ok && first == "metadata" && hasKey(line, "metrics") && hasKey(line, "request_start_ns") && hasKey(line, "benchmark_phase")
}

// Summary returns what the file named name (without a compression
// suffix), whose first bytes are head, is when it is one of AIPerf's
// summaries, which hold aggregate statistics and no request, and ""
// otherwise: by name, profile_export_aiperf.json and .csv and their
// _timeslices forms (the defaults of aiperf/config/artifacts.py; with
// --profile-export-prefix P they are P.json, P.csv); by content, a JSON
// object that names aiperf_version before anything else but
// schema_version (the summary of 2026 builds,
// docs/reference/json-export-schema.md).
func Summary(name string, head []byte) string {
	const what = "AIPerf's summary (aggregate statistics, no request records): outlast reads its per-request export, " +
		"profile_export.jsonl (P.jsonl with --profile-export-prefix P), which AIPerf writes at --export-level records (the default) or raw"
	switch name {
	case "profile_export_aiperf.json", "profile_export_aiperf.csv", "profile_export_aiperf_timeslices.json", "profile_export_aiperf_timeslices.csv":
		return what
	}
	// The first keys, read as a stream: head may end anywhere.
	dec := jsontext.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return ""
	}
	for range 2 {
		tok, err := dec.ReadToken()
		if err != nil || tok.Kind() != '"' {
			return ""
		}
		switch tok.String() {
		case "aiperf_version":
			return what
		case "schema_version":
			if err := dec.SkipValue(); err != nil {
				return ""
			}
		default:
			return ""
		}
	}
	return ""
}

// hasKey reports whether line holds a member named key: the quoted name
// followed, after any white space, by a colon. A string value equal to
// the name is not followed by a colon, so it does not count.
func hasKey(line []byte, key string) bool {
	quoted := `"` + key + `"`
	for i := 0; ; {
		j := bytes.Index(line[i:], []byte(quoted))
		if j < 0 {
			return false
		}
		i += j + len(quoted)
		if k := skipSpace(line, i); k < len(line) && line[k] == ':' {
			return true
		}
	}
}

// keyAt returns the member name that starts at line[i], a quoted string
// followed by a colon; false if there is none (or it holds an escape,
// which no AIPerf member name does).
func keyAt(line []byte, i int) (string, bool) {
	if i >= len(line) || line[i] != '"' {
		return "", false
	}
	end := bytes.IndexAny(line[i+1:], `"\`)
	if end < 0 || line[i+1+end] != '"' {
		return "", false
	}
	name := string(line[i+1 : i+1+end])
	k := skipSpace(line, i+2+end)
	return name, k < len(line) && line[k] == ':'
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// errorf is a bad value of the line at offset off (-1: the whole line).
func errorf(off int, format string, args ...any) *jsondoc.Err {
	return jsondoc.Errf(off, format, args...)
}

// nsString writes a duration in ns with three significant digits in the
// largest unit it fills.
func nsString(ns int64) string {
	for _, u := range []struct {
		per  float64
		name string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}} {
		if float64(ns) >= u.per {
			return fmt.Sprintf("%.3g %s", float64(ns)/u.per, u.name)
		}
	}
	return fmt.Sprintf("%d ns", ns)
}
