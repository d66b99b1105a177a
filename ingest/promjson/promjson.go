// Package promjson reads what the Prometheus HTTP API answers to a range
// query, the way a researcher exports the engine's series from a
// Prometheus server: the JSON of /api/v1/query_range (resultType matrix),
// one file (with one answer, or several appended one after another, as a
// loop of curl -s … >> file leaves them), or a directory of files with
// one query each. Each distinct
// time becomes one schema.EngineSample, through the promseries Timeline
// that also serves the timestamped exposition forms (which series, and how
// engines, ranks and counters combine, are promseries').
//
// The format is that of prometheus/prometheus docs/querying/api.md
// ("Format overview", "Range queries", "Range vectors") as its encoder
// writes it (web/api/v1/json_codec.go, util/jsonutil/marshal.go):
//
//	{"status":"success","data":{"resultType":"matrix","result":[
//	  {"metric":{"__name__":"vllm:num_requests_running","engine":"0","instance":"vllm-0:8000","job":"vllm"},
//	   "values":[[1793102405,"0"],[1793102410.05,"1"]]}]}}
//
// Times are JSON numbers of Unix seconds (integers, or three decimals when
// the milliseconds are not 0), read exactly to the nanosecond; values are
// strings ("0.04496", "1e-07", "NaN", "+Inf"). NaN is a sample value like
// any other in Prometheus: the staleness marker, a NaN of its own, is
// never in an answer (the engine drops stale points), so a NaN here is
// the value the engine gave, and a NaN gauge is an unknown figure, null in
// the sample (promseries); a counter must be a finite number, and a gauge
// not infinite. Keys may come in any order; unknown keys are read over
// (stats, for instance). "warnings" and, from Prometheus 3, "infos" are
// passed on as Info.Notes, as is VictoriaMetrics' "isPartial": true
// (docs/victoriametrics/Cluster-VictoriaMetrics.md: some vmstorage nodes
// did not answer), as a WARNING. An answer of status "error" is refused
// with its errorType and error; a resultType other than matrix (an instant
// query's vector, scalar or string) is refused as such, its result read
// over; a series without __name__ (the result of
// rate() or sum()) is refused, for outlast needs the raw counters; native
// histograms ("histograms") of a metric outlast reads are refused.
// /api/v1/query with a range selector (vllm:…[1h]) answers a matrix of the
// raw samples at their scrape times, read the same way, and so is the
// matrix without its envelope, an array of series, that promtool query -o
// json range prints (cmd/promtool/main.go jsonPrinter; an instant
// vector's samples, "value", from promtool query -o json instant, are
// refused). VictoriaMetrics' /api/v1/export JSON lines (docs/victoriametrics/README.md, "How to export
// data in JSON line format": {"metric","values","timestamps"} per series)
// are another form, refused as such at their first line, and so is
// Grafana's JSON of a panel's data (its /api/ds/query answer, the
// inspector's Panel data or a DataFrame JSON frame: a top-level "results",
// "series" or "schema" and no "status"), which is a panel's query at
// Grafana's step, not the series.
//
// Errors are *textpos.ParseErrors at the line and byte column of the
// offending value (an answer is usually one line); their raw text is the
// value, not the whole line. A point of the wrong type or a bad value
// leaves out every sample at its time (promseries.Timeline.Poison); broken
// syntax (a truncated download) stops the file, keeping the series read
// before it. Series of other metrics are read over: their JSON syntax is
// checked, not their values.
package promjson

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path"
	"sync"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/promseries"
	"github.com/outlast-dev/outlast/schema"
)

// Options configures a Reader.
type Options = promseries.Options

// Info summarises what a Reader has read.
type Info = promseries.Info

// Reader turns query_range answers into engine samples, one per distinct
// time. It reads every input on the first call to Next, holding the
// points of the known series.
type Reader struct {
	inputs []*lineio.Reader
	b      *promseries.Builder
	tl     *promseries.Timeline
	replay *promseries.Replay
	errs   []error
}

// NewReader returns a Reader of the answers in inputs, read in that order.
func NewReader(inputs []*lineio.Reader, opt Options) *Reader {
	b := promseries.NewBuilder(opt.T0)
	if len(inputs) == 1 {
		b.SetInput(inputs[0].Name())
	} else if len(inputs) > 1 {
		b.SetInput(path.Dir(inputs[0].Name())) // the directory of answers, as the caller names them
	}
	return &Reader{inputs: inputs, b: b, tl: promseries.NewTimeline()}
}

// Info returns the summary of the samples read so far.
func (r *Reader) Info() Info { return r.b.Info() }

// Close releases nothing: the reader runs no goroutines. It is there for
// the interface the metrics readers share.
func (r *Reader) Close() {}

// Next returns the errors of the inputs, in input order, then one sample
// per distinct time, then io.EOF.
func (r *Reader) Next() (schema.EngineSample, error) {
	if r.replay == nil {
		for _, lr := range r.inputs {
			if err := r.read(lr); err != nil {
				r.errs = append(r.errs, err)
			}
		}
		r.replay = r.tl.Replay(r.b, r.errs)
	}
	return r.replay.Next()
}

// read parses one input.
func (r *Reader) read(lr *lineio.Reader) error {
	data, err := readAll(lr)
	defer putBuffer(data)
	if err != nil {
		return err
	}
	if len(data) > math.MaxInt32 {
		return fmt.Errorf("%s: %d bytes: a query_range answer over 2 GB is not read; split the query by time", lr.Name(), len(data))
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a byte-order mark, as some editors save
	p := &parser{s: scanner{b: data, line: 1, name: lr.Name()}, r: r, file: r.tl.File(lr.Name())}
	err = p.document()
	for _, n := range p.notes {
		r.b.Note(n)
	}
	if err != nil {
		if pe := errOf(err); pe != nil {
			return pe
		}
		return err
	}
	return nil
}

// readAll reads the whole input into a buffer from buffers. An answer is
// usually one line, which lineio returns in one chunk.
func readAll(lr *lineio.Reader) ([]byte, error) {
	var data []byte
	for {
		var buf []byte
		if data == nil {
			buf = getBuffer()
		}
		chunk, _, err := lr.NextChunk(buf, 1<<20)
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
		if data == nil {
			data = chunk
		} else {
			data = append(data, chunk...)
		}
	}
}

// buffers holds the memory inputs were read into, for the next: nothing
// read keeps a reference into it (names and errors are copies), and
// allocating and clearing a megabyte for each answer was a sixth of
// reading it.
var buffers sync.Pool

// maxPooled is the largest buffer kept for another input.
const maxPooled = 16 << 20

func getBuffer() []byte {
	if b, ok := buffers.Get().(*[]byte); ok {
		return *b
	}
	return nil
}

func putBuffer(b []byte) {
	if cap(b) > 0 && cap(b) <= maxPooled {
		b = b[:0]
		buffers.Put(&b)
	}
}

// Looks reports whether b, the start of an input, is a JSON object: its
// first byte after whitespace is '{' and a member name and its colon
// follow; or an array of them (promtool query -o json range), or an
// empty array. A sample of the exposition formats may begin with '{' too,
// followed by a quoted metric name and a comma or brace.
func Looks(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n\ufeff")
	if len(b) > 0 && b[0] == '[' {
		b = bytes.TrimLeft(b[1:], " \t\r\n")
		if len(b) > 0 && b[0] == ']' {
			return true
		}
	}
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	if len(b) == 0 || b[0] == '}' {
		return len(b) > 0
	}
	if b[0] != '"' {
		return false
	}
	s := scanner{b: b}
	if _, err := s.str(); err != nil {
		return false
	}
	s.ws()
	return s.i < len(s.b) && s.b[s.i] == ':'
}
