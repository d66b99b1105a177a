// Package guidellm reads GuideLLM's report, benchmarks.json or its YAML
// form (vllm-project/guidellm): one document holding a list of
// benchmarks, each with its requests grouped by outcome under
// requests.{successful, errored, incomplete}. Each request becomes a turn;
// the sessions are derived (ingest/internal/loadgen). A file with several
// benchmarks (a sweep) is read one benchmark at a time (NextBenchmark).
//
// The JSON is decoded as a stream (ingest/internal/jsondoc): memory holds
// one request at a time, never the file, which for a sweep can be
// gigabytes. The YAML form is read whole (yaml.v3), converted to JSON in
// memory and read the same way.
//
// Field names and units are GuideLLM's own (paths under src/guidellm/):
//   - the report: benchmark/output.py (v0.3: benchmarks only),
//     benchmark/schemas/generative/report.py (v0.4: args, benchmarks; v0.5
//     and v0.6: metadata{version: 1}, args, benchmarks),
//     benchmark/schemas/report.py (v0.7 and later: metadata{version: 2},
//     config, benchmarks), written with json.dumps (one line; v0.3.1's
//     benchmark/output.py: json.dump with indent=4) or yaml.dump (keys
//     sorted);
//   - a benchmark: benchmark/schemas/benchmark.py and base.py (config with
//     strategy, sample_size or sample_requests, backend: the backend's
//     arguments, model and request_format in backends/openai/http.py;
//     scheduler_metrics
//     with measure_start_time and measure_end_time; metrics.request_totals;
//     requests), benchmark/benchmark.py at v0.3.1 (args.strategy,
//     worker.backend_model, start_time, end_time, request_totals);
//   - a request: schemas/request_stats.py (prompt_tokens, cached_tokens
//     from 2026-08, output_tokens), schemas/info.py (info.conversation_id
//     and info.turn_index from v0.6.0, info.agent_id, info.timings with
//     targeted_start, request_start, first_token_iteration, request_end and
//     resolve_end, all Unix seconds from time.time()); at v0.3.1
//     benchmark/benchmark.py (scheduler_info.targeted_start_time,
//     request_start, request_end, first_token_time).
//
// The mapping, per request:
//
//	session         info.conversation_id (with "/" and info.agent_id for
//	                a sub-agent's branch), else request_id (one turn)
//	turn            info.turn_index (0-based), else 0
//	ready           by the benchmark's strategy (Benchmark.readyKey):
//	                info.timings.targeted_start for a schedule (constant,
//	                poisson, trace), info.timings.dequeued for a closed
//	                loop (synchronous, concurrent, throughput); v0.3
//	                scheduler_info.targeted_start_time, dequeued_time;
//	                unknown for another strategy
//	sent            info.timings.request_start (else resolve_start)
//	first token     info.timings.first_token_iteration
//	done            info.timings.request_end (else resolve_end)
//	tokens          prompt_tokens, cached_tokens (or
//	                input_metrics.cached_tokens), output_tokens; 0 output
//	                tokens when the backend's request_format is
//	                /v1/embeddings (Benchmark.Embeddings)
//	status          the bucket: successful → ok, errored → error,
//	                incomplete → aborted; a request that did not
//	                complete and whose output is empty produced no token:
//	                output 0, whatever output_tokens says (v0.3 writes the
//	                requested count when the server sent no usage)
//
// A report of a schema newer than MaxSchemaVersion (metadata.version,
// raised only for a breaking change to the output format) is refused at
// its version, unless Options.Lenient: then it is read as version 2, with
// a warning.
//
// GuideLLM marks no request as warmup or cooldown: only the benchmark's
// measured window (scheduler_metrics.measure_start_time and
// measure_end_time) says which requests it counted. Requests outside it
// (ending before it starts, or starting after it ends, as GuideLLM's
// get_within_range decides) are not part of the run: counted
// (Benchmark.Excluded), not returned. When the file holds fewer requests
// in the window than metrics.request_totals counts, GuideLLM sampled them
// (sample_size, --sample-requests) and the run's windows would be wrong:
// that is an error unless Options.Lenient.
//
// A completed request's token counts are null only when GuideLLM had no
// usage from the server and counted no token (schemas/request_stats.py):
// the count is unknown and the request is refused (a turn's counts are
// never null), except for the output of an embeddings request, which is 0
// (backends/openai/request_handlers.py, EmbeddingsRequestHandler: the
// endpoint generates no tokens).
package guidellm

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/outlast-dev/outlast/ingest/internal/jsondoc"
	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
)

// Options controls a Reader.
type Options struct {
	// Lenient makes a sampled benchmark a warning instead of an error.
	Lenient bool
}

// Report is what the report says about the whole run, known once
// NextBenchmark has returned the first benchmark.
type Report struct {
	SchemaVersion int    // metadata.version: 0 before v0.5, 1 for v0.5-v0.6, 2 from v0.7
	ToolVersion   string // metadata.guidellm_version, "" before v0.5
	Model         string // the backend's model from args or config, "" if not given
	Target        string // the backend's URL
	// RequestFormat is the backend's endpoint (config.spec.backend
	// request_format, v0.7+), "" if not given.
	RequestFormat string
}

// Reader reads a GuideLLM report.
type Reader struct {
	doc    *jsondoc.Doc
	opt    Options
	report Report
	t0ns   int64 // the run's t=0, Unix ns

	state int
	bench *Benchmark
	// bucket is the status of the request list being read, "" between
	// lists.
	bucket string
	req    request
	turn   loadgen.Turn
	times  [3]float64

	warnings []string
}

// Reader states.
const (
	stTop        = iota // in the report, before the benchmarks
	stBenchmarks        // in the benchmarks list, between benchmarks
	stRequests          // in a benchmark's requests
	stDone              // after the benchmarks
)

// NewReader returns a reader of the report in r, named name in positions.
// A report whose first byte is '{' is JSON, read as a stream; any other is
// YAML, read whole.
func NewReader(r io.Reader, name string, opt Options) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := firstByte(br)
	if err != nil {
		return nil, err
	}
	rd := &Reader{opt: opt}
	if first == '{' {
		rd.doc = jsondoc.New(br, name)
	} else {
		data, err := io.ReadAll(br)
		if err != nil {
			return nil, err
		}
		if rd.doc, err = fromYAML(data, name); err != nil {
			return nil, err
		}
	}
	if err := rd.top(); err != nil {
		return nil, err
	}
	return rd, nil
}

// firstByte returns the first byte that is not white space, without
// consuming it.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.Peek(1)
		if err != nil {
			if err == io.EOF {
				return 0, fmt.Errorf("the file is empty")
			}
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			br.ReadByte()
			continue
		}
		return b[0], nil
	}
}

// Summary returns what the file named name (without a compression
// suffix) is when it is one of GuideLLM's summaries, which hold no
// request, and "" otherwise: benchmarks.csv and benchmarks.html, the
// default names of its CSV and HTML outputs (benchmark/outputs/csv.py,
// html.py).
func Summary(name string) string {
	switch name {
	case "benchmarks.csv", "benchmarks.html":
		return "GuideLLM's summary (per-benchmark statistics, no request records): outlast reads the report, " +
			"benchmarks.json or benchmarks.yaml (GuideLLM's json or yaml output)"
	}
	return ""
}

// Sniff reports whether head, the first bytes of a file, starts a GuideLLM
// report: a JSON object or YAML mapping whose first key is one of the
// report's first keys (benchmarks at v0.3; args from v0.4; metadata from
// v0.5; yaml.dump sorts the keys, so benchmarks comes first in YAML). A
// JSON report's metadata must name its schema version or GuideLLM's
// (GenerativeBenchmarkMetadata: version, guidellm_version), as AIPerf's
// records, which start with a metadata member too, never do. Any JSON
// white space may surround the tokens: v0.3.1 writes the report with
// json.dump(indent=4) (benchmark/output.py), later versions on one line,
// and a report re-dumped by hand has any indentation.
func Sniff(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) > 0 && head[0] == '{' {
		return sniffJSON(head)
	}
	if rest, ok := bytes.CutPrefix(head, []byte("---")); ok && len(rest) > 0 && (rest[0] == '\n' || rest[0] == '\r') {
		head = bytes.TrimLeft(rest, " \t\r\n")
	}
	for _, k := range []string{"benchmarks", "metadata", "args"} {
		if bytes.HasPrefix(head, []byte(k+":")) {
			return true
		}
	}
	return false
}

// sniffJSON reports whether head, cut anywhere after the report's first
// key (and after the metadata when that comes first), starts a GuideLLM
// report in JSON.
func sniffJSON(head []byte) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	tok, err := dec.ReadToken()
	if err != nil || tok.Kind() != '"' {
		return false
	}
	switch tok.String() {
	case "benchmarks", "args":
		return true
	case "metadata":
		raw, err := dec.ReadValue()
		if err != nil || raw.Kind() != '{' {
			return false
		}
		o := jsondoc.Members(raw, 0, nil)
		return o.Present("version") || o.Present("guidellm_version")
	}
	return false
}

// Report returns what the report says about the whole run.
func (r *Reader) Report() Report { return r.report }

// Warnings returns the problems that did not stop reading.
func (r *Reader) Warnings() []string { return slices.Clone(r.warnings) }

// TakeWarnings returns the warnings since its last call: those of the
// benchmark just read.
func (r *Reader) TakeWarnings() []string {
	w := r.warnings
	r.warnings = nil
	return w
}

func (r *Reader) warnf(format string, args ...any) {
	r.warnings = append(r.warnings, fmt.Sprintf(format, args...))
}

// top reads the report's members up to its list of benchmarks.
func (r *Reader) top() error {
	tok, err := r.doc.ReadToken()
	if err != nil {
		return noEOF(r.doc, err)
	}
	if tok.Kind() != '{' {
		return r.doc.Errorf(r.doc.Offset()-1, nil, "want a GuideLLM report (a JSON object with benchmarks), got %s", kindName(tok.Kind()))
	}
	return r.topMembers()
}

// topMembers reads the report's members until its benchmarks list starts
// (state stBenchmarks) or the report ends (stDone).
func (r *Reader) topMembers() error {
	for {
		key, off, ok, err := r.doc.Key()
		if err != nil {
			return noEOF(r.doc, err)
		}
		if !ok {
			r.state = stDone
			return r.end()
		}
		switch key {
		case "benchmarks":
			tok, err := r.doc.ReadToken()
			if err != nil {
				return noEOF(r.doc, err)
			}
			if tok.Kind() != '[' {
				return r.doc.Errorf(off, nil, "benchmarks: want a list, got %s", kindName(tok.Kind()))
			}
			r.state = stBenchmarks
			return nil
		case "metadata", "args", "config":
			raw, start, err := r.doc.ReadValue()
			if err != nil {
				return noEOF(r.doc, err)
			}
			if e := r.report.read(key, raw); e != nil {
				return r.doc.Errorf(start+int64(e.Off), raw, "%s", e.Msg)
			}
			if key == "metadata" && r.report.SchemaVersion > MaxSchemaVersion {
				if err := r.newerSchema(raw, start); err != nil {
					return err
				}
			}
		default:
			if err := r.doc.SkipValue(); err != nil {
				return noEOF(r.doc, err)
			}
		}
	}
}

// MaxSchemaVersion is the newest report schema (metadata.version) read:
// GuideLLM raises it only for a breaking change to the output format
// (benchmark/schemas/report.py, GenerativeBenchmarkMetadata).
const MaxSchemaVersion = 2

// newerSchema refuses a report of a schema newer than MaxSchemaVersion,
// at its metadata.version in raw (the metadata, at start), unless lenient:
// then it is read as the newest known, with a warning.
func (r *Reader) newerSchema(raw []byte, start int64) error {
	v, _ := jsondoc.Members(raw, 0, nil).Get("version")
	tool := ""
	if r.report.ToolVersion != "" {
		tool = " (guidellm_version " + r.report.ToolVersion + ")"
	}
	msg := fmt.Sprintf("metadata.version %d%s: a GuideLLM report schema newer than outlast reads "+
		"(version 1: GuideLLM v0.5-v0.6; 2: v0.7 and later; GuideLLM raises it only for a breaking change to the output format)",
		r.report.SchemaVersion, tool)
	err := r.doc.Errorf(start+int64(v.Off), raw, "%s; --lenient reads it as version %d", msg, MaxSchemaVersion)
	if !r.opt.Lenient {
		return err
	}
	r.warnf("%s: WARNING: %s (read anyway as version %d: --lenient)", r.where(start+int64(v.Off)), msg, MaxSchemaVersion)
	return nil
}

// end checks that nothing follows the report.
func (r *Reader) end() error {
	_, err := r.doc.ReadToken()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	return r.doc.Errorf(r.doc.Offset(), nil, "more after the report's end")
}

// NextBenchmark reads up to the next benchmark's requests and returns the
// benchmark, or io.EOF after the last.
func (r *Reader) NextBenchmark() (*Benchmark, error) {
	b, err := r.nextBenchmark()
	if err != nil && err != io.EOF {
		r.state = stDone // the document cannot be read past a fault in its structure
	}
	return b, err
}

func (r *Reader) nextBenchmark() (*Benchmark, error) {
	for r.state == stRequests {
		// The caller did not read the previous benchmark to its end.
		if _, err := r.Next(); err != nil && err != io.EOF {
			return nil, err
		}
	}
	if r.state != stBenchmarks {
		return nil, io.EOF
	}
	if r.doc.PeekKind() == ']' {
		if _, err := r.doc.ReadToken(); err != nil {
			return nil, err
		}
		if err := r.topMembers(); err != nil {
			return nil, err
		}
		if r.state == stBenchmarks {
			return nil, r.doc.Errorf(r.doc.Offset(), nil, "a second benchmarks list")
		}
		return nil, io.EOF
	}
	idx := 0
	if r.bench != nil {
		idx = r.bench.Index + 1
	}
	off := r.doc.Offset()
	tok, err := r.doc.ReadToken()
	if err != nil {
		return nil, noEOF(r.doc, err)
	}
	if tok.Kind() != '{' {
		return nil, r.doc.Errorf(off, nil, "benchmarks[%d]: want an object, got %s", idx, kindName(tok.Kind()))
	}
	b := &Benchmark{Index: idx, Model: r.report.Model, RequestFormat: r.report.RequestFormat}
	r.bench = b
	for {
		key, koff, ok, err := r.doc.Key()
		if err != nil {
			return nil, noEOF(r.doc, err)
		}
		if !ok {
			// A benchmark without requests.
			r.warnf("%s: benchmarks[%d] has no requests", r.where(koff), idx)
			return b, nil
		}
		if key == "requests" {
			tok, err := r.doc.ReadToken()
			if err != nil {
				return nil, noEOF(r.doc, err)
			}
			if tok.Kind() != '{' {
				return nil, r.doc.Errorf(koff, nil, "benchmarks[%d].requests: want an object of request lists, got %s", idx, kindName(tok.Kind()))
			}
			r.state, r.bucket = stRequests, ""
			if !b.windowKnown {
				r.warnf("%s: benchmarks[%d]: no measured window (scheduler_metrics.measure_start_time/measure_end_time) before the requests: every request is read", r.where(koff), idx)
			}
			return b, nil
		}
		raw, start, err := r.doc.ReadValue()
		if err != nil {
			return nil, noEOF(r.doc, err)
		}
		if err := r.readMember(b, key, raw, start); err != nil {
			return nil, err
		}
	}
}

// SetT0 sets the run's t=0, which the next turns' times are measured from.
func (r *Reader) SetT0(t0 time.Time) {
	r.t0ns = t0.UnixNano()
}

// where formats the position of offset off.
func (r *Reader) where(off int64) string {
	pos, col := r.doc.Pos(off)
	return fmt.Sprintf("%s:%d", pos, col)
}

// noEOF turns the end of the input inside the report into an error.
func noEOF(doc *jsondoc.Doc, err error) error {
	if err == io.EOF {
		return doc.Errorf(doc.Offset(), nil, "the file ends inside the report: it was cut short")
	}
	return err
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "the end of a value"
}
