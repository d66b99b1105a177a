package guidellm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/outlast-dev/outlast/ingest/internal/decimal"
	"github.com/outlast-dev/outlast/ingest/internal/jsondoc"
	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// bucketStatus is the turn status of each request list.
var bucketStatus = [3]string{schema.TurnOK, schema.TurnError, schema.TurnAborted}

// Next returns the current benchmark's next turn, or io.EOF after its last
// request (then the benchmark's In and Excluded are complete). The turn is
// valid until the next call. A bad request gives a *textpos.ParseError and
// the reader goes on with the next one.
func (r *Reader) Next() (*loadgen.Turn, error) {
	t, err := r.next()
	if errors.Is(err, errBadRequest) {
		return nil, err // a bad request: the next one can be read
	}
	if err != nil && err != io.EOF && !errors.Is(err, errSampled) {
		r.state = stDone // the document cannot be read past a fault in its structure
	}
	return t, err
}

// The kinds of error after which reading goes on (textpos.Reason's Kind):
// a bad request, and a sampled benchmark, which was read to its end.
var (
	errBadRequest = errors.New("bad request")
	errSampled    = errors.New("sampled")
)

func (r *Reader) next() (*loadgen.Turn, error) {
	for r.state == stRequests {
		if r.bucket == "" {
			key, off, ok, err := r.doc.Key()
			if err != nil {
				return nil, noEOF(r.doc, err)
			}
			if !ok {
				return nil, r.benchmarkEnd()
			}
			switch key {
			case "successful", "errored", "incomplete":
				if r.doc.PeekKind() == 'n' {
					r.doc.ReadToken()
					continue
				}
				tok, err := r.doc.ReadToken()
				if err != nil {
					return nil, noEOF(r.doc, err)
				}
				if tok.Kind() != '[' {
					return nil, r.doc.Errorf(off, nil, "benchmarks[%d].requests.%s: want a list of requests, got %s", r.bench.Index, key, kindName(tok.Kind()))
				}
				r.bucket = key
			case "total":
				if err := r.doc.SkipValue(); err != nil {
					return nil, noEOF(r.doc, err)
				}
			default:
				return nil, r.doc.Errorf(off, nil, "benchmarks[%d].requests: unknown request list %q (GuideLLM writes successful, errored, incomplete and total)", r.bench.Index, key)
			}
			continue
		}
		if r.doc.PeekKind() == ']' {
			if _, err := r.doc.ReadToken(); err != nil {
				return nil, err
			}
			r.bucket = ""
			continue
		}
		raw, start, err := r.doc.ReadValue()
		if err != nil {
			return nil, noEOF(r.doc, err)
		}
		r.doc.Release(start)
		b := bucketIndex(r.bucket)
		t := &r.turn
		pos, col := r.doc.Pos(start)
		*t = loadgen.Turn{Pos: pos, Column: col, Raw: raw}
		in, e := r.req.parse(raw, t, &r.times, r.t0ns, r.bench, b != 0)
		if e != nil {
			epos, ecol := r.doc.Pos(start + int64(max(e.Off, 0)))
			if e.Off < 0 {
				epos, ecol = pos, col
			}
			r.bench.bad[b]++
			return nil, badRequest(epos, ecol, raw, fmt.Sprintf("benchmarks[%d].requests.%s: %s", r.bench.Index, r.bucket, e.Msg))
		}
		if !in {
			r.bench.Excluded++
			continue
		}
		r.bench.In[b]++
		t.Row.Status = bucketStatus[b]
		if r.req.embeddingsOutput {
			r.bench.embeddingsOutput++
		}
		if r.req.emptyOutput {
			r.bench.emptyOutput++
		}
		if r.req.streamedOutput {
			r.bench.streamedOutput++
		}
		if t.Row.Status == schema.TurnOK && r.req.nullTokens != "" {
			return nil, badRequest(pos, col, raw, fmt.Sprintf("benchmarks[%d].requests.%s: a completed request with %s null: %s", r.bench.Index, r.bucket, r.req.nullTokens, unknownCount))
		}
		return t, nil
	}
	return nil, io.EOF
}

// unknownCount says why a completed request's null token count is
// refused. GuideLLM writes null when the server sent no usage and, for
// the output, no token iteration was seen (prompt_tokens and
// output_tokens in schemas/request_stats.py): the count is unknown, and a
// turn's tokens are never null (schema.Turn), nor a made-up 0.
const unknownCount = "GuideLLM got no usage from the server and counted no tokens, so the count is unknown; " +
	"outlast stores no guessed count (--lenient leaves the request out, in the rejects)"

func bucketIndex(name string) int {
	for i, b := range Buckets {
		if b == name {
			return i
		}
	}
	return -1
}

// benchmarkEnd reads the benchmark's members after its requests, then
// checks what was read against GuideLLM's own counts.
func (r *Reader) benchmarkEnd() error {
	b := r.bench
	for {
		key, _, ok, err := r.doc.Key()
		if err != nil {
			return noEOF(r.doc, err)
		}
		if !ok {
			break
		}
		raw, start, err := r.doc.ReadValue()
		if err != nil {
			return noEOF(r.doc, err)
		}
		if key == "requests" {
			return r.doc.Errorf(start, nil, "benchmarks[%d]: a second requests member", b.Index)
		}
		if err := r.readMember(b, key, raw, start); err != nil {
			return err
		}
	}
	r.state = stBenchmarks
	name := r.doc.Name()
	if b.Excluded > 0 {
		r.warnf("%s: benchmarks[%d]: %d request(s) outside the benchmark's measured window (GuideLLM's warmup and cooldown) are not part of the run: counted in runs.excluded_records, not stored", name, b.Index, b.Excluded)
	}
	if b.emptyOutput > 0 {
		r.warnf("%s: benchmarks[%d]: %d request(s) that did not complete have an empty output but output_tokens > 0 (GuideLLM writes the requested count when the server sent no usage): stored as 0, what they produced", name, b.Index, b.emptyOutput)
	}
	if _, known := readyKeys[b.Strategy]; !known {
		what := fmt.Sprintf("strategy %q", b.Strategy)
		if b.Strategy == "" {
			what = "no strategy"
		}
		r.warnf("%s: benchmarks[%d]: %s: outlast does not know when its requests were ready (a schedule's targeted_start, or a closed loop's free slot), so their ready times are unknown: sessions arrive at their first request's sent time", name, b.Index, what)
	}
	if b.streamedOutput > 0 {
		r.warnf("%s: benchmarks[%d]: %d request(s) that did not complete have output_tokens null but streamed text (cut off before the server's usage came): stored as the token chunks they received (info.timings.token_iterations), what they produced", name, b.Index, b.streamedOutput)
	}
	if b.embeddingsOutput > 0 {
		r.warnf("%s: benchmarks[%d]: %d embeddings request(s) (request_format %s) carry output_tokens > 0: the endpoint generates no tokens, the count is the dataset's requested output that GuideLLM merges into the request's stats; stored as 0", name, b.Index, b.embeddingsOutput, EmbeddingsFormat)
	}
	if b.totalsRaw == nil {
		r.warnf("%s: benchmarks[%d]: no metrics.request_totals: cannot check that every request was written (not sampled)", name, b.Index)
		return io.EOF
	}
	var sampled []string
	for i, k := range Buckets {
		switch {
		case b.totals[i] < 0:
		case b.In[i]+b.bad[i] < b.totals[i]:
			sampled = append(sampled, fmt.Sprintf("%d of the %d %s", b.In[i]+b.bad[i], b.totals[i], k))
		case b.In[i] > b.totals[i]:
			r.warnf("%s: benchmarks[%d]: %d %s requests in the measured window, but request_totals counts %d", name, b.Index, b.In[i], k, b.totals[i])
		}
	}
	if len(sampled) == 0 {
		return io.EOF
	}
	msg := fmt.Sprintf("benchmarks[%d]: the file holds %s requests GuideLLM counted in its measured window (request_totals): the requests were sampled (sample_size, --sample-requests), so every rate and window outlast computes would be wrong; run GuideLLM without sampling", b.Index, strings.Join(sampled, ", "))
	pos, col := b.totalsPos, b.totalsCol
	if r.opt.Lenient {
		// Read anyway, and the run says so where it lasts: the error is
		// the run's reject (runs.rejected_lines, the dataset's
		// _rejects/), not only a warning gone with the ingest's output.
		r.warnf("%s: WARNING: %s (read anyway: --lenient; kept as a reject of the run)", name, msg)
		return badRequest(pos, col, b.totalsRaw, msg+" (read anyway: --lenient)")
	}
	// Not a ParseError: a strict reading stops at it.
	return &textpos.Reason{Off: -1, Kind: errSampled, Msg: jsondocError(pos, col, b.totalsRaw, msg+", or ingest with --lenient to read the sample").Error()}
}

// readMember reads the member key, whose value raw begins at offset start,
// of benchmark b.
func (r *Reader) readMember(b *Benchmark, key string, raw []byte, start int64) error {
	had := b.totalsRaw
	if e := b.read(key, raw); e != nil {
		return r.doc.Errorf(start+int64(e.Off), raw, "benchmarks[%d].%s", b.Index, e.Msg)
	}
	if b.totalsRaw != nil && (had == nil || &had[0] != &b.totalsRaw[0]) {
		// request_totals is a slice of raw: its offset in the document
		// is raw's plus where it stands in raw. Its position is taken
		// now, before the requests release their lines, and its text
		// copied: raw is the decoder's buffer.
		b.totalsPos, b.totalsCol = r.doc.Pos(start + int64(cap(raw)-cap(b.totalsRaw)))
		b.totalsRaw = bytes.Clone(b.totalsRaw)
	}
	return nil
}

// request holds the scratch tables of one request's objects.
type request struct {
	top, info, timings, input, usage jsondoc.Object
	// nullTokens names the token count that was null, "" if none: only
	// a request that did not complete may lack one.
	nullTokens string
	// embeddingsOutput says the request went to the embeddings endpoint
	// and its output_tokens was a positive count, stored as 0.
	embeddingsOutput bool
	// emptyOutput says a request that did not complete produced no output
	// but carried a positive output_tokens, stored as 0.
	emptyOutput bool
	// streamedOutput says a request that did not complete had a null
	// output_tokens and streamed tokens, stored as their count.
	streamedOutput bool
	// isV04 says the request is of v0.4 or later (info.timings read).
	isV04 bool
}

// parse fills t from the request raw (valid JSON), failed when it did not
// complete (the errored and incomplete lists), and reports whether it
// lies in the benchmark's measured window. Offsets in errors are in raw.
func (q *request) parse(raw []byte, t *loadgen.Turn, times *[3]float64, t0ns int64, b *Benchmark, failed bool) (bool, *jsondoc.Err) {
	if raw[0] != '{' {
		return false, jsondoc.Errf(0, "want a request object, got %s", jsondoc.Describe(raw))
	}
	q.top = jsondoc.Members(raw, 0, q.top[:0])
	*times = [3]float64{}
	row := &t.Row
	q.nullTokens, q.embeddingsOutput, q.emptyOutput, q.streamedOutput = "", false, false, false
	_, q.isV04 = q.top.Get("info")
	var start, end float64
	var err *jsondoc.Err
	if _, ok := q.top.Get("info"); ok {
		start, end, err = q.v04(row, times, t0ns, b.readyKey(false))
	} else if _, ok := q.top.Get("scheduler_info"); ok {
		start, end, err = q.v03(row, times, t0ns, b.readyKey(true))
	} else {
		return false, jsondoc.Errf(-1, "missing required field info (or v0.3's scheduler_info)")
	}
	if err != nil {
		return false, err
	}
	if row.SentS != nil && row.DoneS < *row.SentS {
		return false, jsondoc.Errf(-1, "the request ends before it was sent")
	}
	if err := q.counts(row, b, failed); err != nil {
		return false, err
	}
	cached, ok := q.top.Get("cached_tokens")
	if !ok || jsondoc.IsNull(cached.Val) {
		// Before the computed field was serialised, and where it is null,
		// input_metrics has the count.
		if in, found := q.top.Get("input_metrics"); found && !jsondoc.IsNull(in.Val) {
			if q.input, err = in.Object("input_metrics", q.input); err != nil {
				return false, err
			}
			cached, ok = q.input.Get("cached_tokens")
		}
	}
	if ok && !jsondoc.IsNull(cached.Val) {
		if row.CachedTokens, err = cached.Count("cached_tokens"); err != nil {
			return false, err
		}
		t.CachedReported = true
		if row.CachedTokens > row.PromptTokens && q.nullTokens != "prompt_tokens" {
			return false, jsondoc.Errf(cached.Off, "cached_tokens %d exceeds prompt_tokens %d", row.CachedTokens, row.PromptTokens)
		}
	}
	return b.inWindow(start, end), nil
}

// v04 reads the session and times of a request of v0.4 or later (info,
// info.timings), its ready time from the member ready of the timings ("":
// unknown); start and end are its start (NaN if unknown) and end in Unix
// seconds, for the window.
func (q *request) v04(row *schema.Turn, times *[3]float64, t0ns int64, ready string) (start, end float64, err *jsondoc.Err) {
	m, _ := q.top.Get("info")
	if q.info, err = m.Object("info", q.info); err != nil {
		return 0, 0, err
	}
	if row.Session, err = q.session(); err != nil {
		return 0, 0, err
	}
	if tm, ok := q.info.Get("turn_index"); ok && !jsondoc.IsNull(tm.Val) {
		n, err := tm.Count("info.turn_index")
		if err != nil {
			return 0, 0, err
		}
		if n > math.MaxInt32 {
			return 0, 0, jsondoc.Errf(tm.Off, "info.turn_index: %d is too large", n)
		}
		row.Turn = int32(n)
	}
	tm, ok := q.info.Get("timings")
	if !ok {
		return 0, 0, jsondoc.Errf(-1, "missing required field info.timings")
	}
	if q.timings, err = tm.Object("info.timings", q.timings); err != nil {
		return 0, 0, err
	}
	return q.times(q.timings, "info.timings", row, times, t0ns,
		keys(ready), []string{"request_start", "resolve_start"},
		[]string{"first_token_iteration"}, []string{"request_end", "resolve_end"})
}

// session returns a v0.4+ request's session: its conversation, and the
// sub-agent's branch of it, else the request itself.
func (q *request) session() (string, *jsondoc.Err) {
	if c, ok := q.info.Get("conversation_id"); ok && !jsondoc.IsNull(c.Val) && string(c.Val) != `""` {
		s, err := c.String("info.conversation_id")
		if err != nil {
			return s, err
		}
		if a, ok := q.info.Get("agent_id"); ok && !jsondoc.IsNull(a.Val) {
			agent, err := a.String("info.agent_id")
			if err != nil {
				return "", err
			}
			if agent != "" {
				s += "/" + agent
			}
		}
		return s, nil
	}
	for _, o := range []jsondoc.Object{q.info, q.top} {
		if id, ok := o.Get("request_id"); ok && !jsondoc.IsNull(id.Val) {
			return requestID(id)
		}
	}
	return "", jsondoc.Errf(-1, "missing required field request_id")
}

// requestID returns a request's id, which must not be empty: it names the
// request's session when there is no conversation.
func requestID(m jsondoc.Member) (string, *jsondoc.Err) {
	s, err := m.String("request_id")
	if err == nil && s == "" {
		err = jsondoc.Errf(m.Off, "request_id: want a non-empty string")
	}
	return s, err
}

// keys returns the one key k, or none for "".
func keys(k string) []string {
	if k == "" {
		return nil
	}
	return []string{k}
}

// v03 reads the session and times of a v0.3 request (scheduler_info, no
// sessions: each request is a session of its own), its ready time as v04.
func (q *request) v03(row *schema.Turn, times *[3]float64, t0ns int64, ready string) (start, end float64, err *jsondoc.Err) {
	id, ok := q.top.Get("request_id")
	if !ok {
		return 0, 0, jsondoc.Errf(-1, "missing required field request_id")
	}
	if row.Session, err = requestID(id); err != nil {
		return 0, 0, err
	}
	m, _ := q.top.Get("scheduler_info")
	if q.info, err = m.Object("scheduler_info", q.info); err != nil {
		return 0, 0, err
	}
	// first_token_time sits on the request itself: look it up there.
	if ft, ok := q.top.Get("first_token_time"); ok {
		q.info = append(q.info, jsondoc.Member{Key: []byte("first_token_time"), Val: ft.Val, Off: ft.Off})
	}
	return q.times(q.info, "scheduler_info", row, times, t0ns,
		keys(ready), []string{"request_start"}, []string{"first_token_time"}, []string{"request_end", "worker_end"})
}

// times reads a request's ready, sent, first-token and done times from the
// first present key of each list, as run seconds from t0ns (Unix ns): the
// float64 nearest the exact difference, which the whole seconds and the
// fraction each rounded and then added miss by a bit (1.1293009999999999
// for 1793102401.129301 less 1793102400).
func (q *request) times(o jsondoc.Object, name string, row *schema.Turn, times *[3]float64, t0ns int64, ready, sent, first, done []string) (start, end float64, err *jsondoc.Err) {
	start = math.NaN()
	for i, keys := range [4][]string{ready, sent, first, done} {
		var tm jsondoc.Time
		var raw []byte
		found := false
		for _, k := range keys {
			m, ok := o.Get(k)
			if !ok || jsondoc.IsNull(m.Val) {
				continue
			}
			if tm, err = m.Seconds(name + "." + k); err != nil {
				return 0, 0, err
			}
			if tm.Sec < 0 {
				return 0, 0, jsondoc.Errf(m.Off, "%s.%s: want a Unix time, got %s", name, k, m.Val)
			}
			found, raw = true, m.Val
			break
		}
		if !found {
			if i == 3 {
				return 0, 0, jsondoc.Errf(-1, "missing required field %s.%s", name, keys[0])
			}
			continue
		}
		v, _ := decimal.Sum(-t0ns, raw, 0) // a number Seconds took
		switch i {
		case 0:
			times[0], row.ReadyS = v, &times[0]
		case 1:
			times[1], row.SentS = v, &times[1]
			start = tm.Float()
		case 2:
			times[2], row.FirstTokenS = v, &times[2]
		case 3:
			row.DoneS = v
			end = tm.Float()
		}
	}
	return start, end, nil
}

// jsondocError is a ParseError at pos and col for the request raw.
func jsondocError(pos textpos.Pos, col int, raw []byte, msg string) error {
	return textpos.At(pos, col, raw, "%s", msg)
}

// badRequest is the ParseError of a bad request at pos and col, after
// which reading goes on (errBadRequest).
func badRequest(pos textpos.Pos, col int, raw []byte, msg string) error {
	return (&textpos.Reason{Off: col - 1, Kind: errBadRequest, Msg: msg}).At(pos, raw)
}
