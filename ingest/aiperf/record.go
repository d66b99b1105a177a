package aiperf

import (
	"bytes"
	"errors"
	"math"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/outlast-dev/outlast/ingest/internal/decimal"
	"github.com/outlast-dev/outlast/ingest/internal/jsondoc"
	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// Phases of AIPerf's CreditPhase (aiperf/common/enums), as benchmark_phase
// spells them.
const (
	PhaseWarmup    = "warmup"
	PhaseProfiling = "profiling"
)

// parser holds the scratch member tables of one line's objects.
type parser struct {
	top, meta, metrics, value jsondoc.Object
	dec                       *jsontext.Decoder
	// clientTokens says the last turn parsed took its prompt tokens from
	// AIPerf's client-side count.
	clientTokens bool
	// shifted says the last turn parsed carried clock_offset_ns, offsetNs
	// its value.
	shifted  bool
	offsetNs int64
	// conversation is the last turn's conversation_id ("" without one).
	conversation string
}

// maxClockOffsetNs bounds a plausible clock offset between AIPerf's hosts.
const maxClockOffsetNs = 3600e9

// minEpochNs is 2001-09-09 in Unix ns: a smaller request time is not a
// wall-clock time (a performance-counter value would be).
const minEpochNs = 1e18

// parse fills t from line and reports whether the record is a warmup one
// (then t is not filled in full).
func (p *parser) parse(line []byte, t *loadgen.Turn, times *[3]float64, t0ns int64) (warmup bool, _ *jsondoc.Err) {
	if err := p.validate(line); err != nil {
		return false, err
	}
	start := 0
	for start < len(line) && (line[start] == ' ' || line[start] == '\t') {
		start++
	}
	if line[start] != '{' {
		return false, errorf(start, "want a JSON object (an AIPerf record), got %s", jsondoc.Describe(line[start:]))
	}
	p.top = jsondoc.Members(line[start:], start, p.top[:0])
	m, ok := p.top.Get("metadata")
	if !ok {
		return false, errorf(-1, "missing required field metadata")
	}
	p.meta = p.meta[:0]
	if len(m.Val) == 0 || m.Val[0] != '{' {
		return false, errorf(m.Off, "metadata: want an object, got %s", jsondoc.Describe(m.Val))
	}
	p.meta = jsondoc.Members(m.Val, m.Off, p.meta)
	ph, ok := p.meta.Get("benchmark_phase")
	if !ok || jsondoc.IsNull(ph.Val) {
		if p.meta.Present("credit_phase") {
			// AIPerf development builds of 2025-10 (ai-dynamo/aiperf@7c31f579,
			// examples/artifacts/run1) named the phase credit_phase and wrote
			// timestamp_ns for request_start_ns; no release wrote that shape.
			return false, errorf(-1, "missing required field metadata.benchmark_phase: the record has credit_phase instead, the shape of an AIPerf development build that outlast does not read; export with a released AIPerf")
		}
		return false, errorf(-1, "missing required field metadata.benchmark_phase")
	}
	switch string(ph.Val) {
	case `"` + PhaseWarmup + `"`:
		return true, nil
	case `"` + PhaseProfiling + `"`:
	default:
		phase, err := ph.String("metadata.benchmark_phase")
		if err != nil {
			return false, err
		}
		return false, errorf(ph.Off, "metadata.benchmark_phase: unknown phase %q (AIPerf writes warmup or profiling)", phase)
	}
	var err *jsondoc.Err
	p.metrics = p.metrics[:0]
	if mm, ok := p.top.Get("metrics"); ok && !jsondoc.IsNull(mm.Val) {
		if p.metrics, err = mm.Object("metrics", p.metrics); err != nil {
			return false, err
		}
	}
	return false, p.turn(t, times, t0ns)
}

// validate checks that line is one valid JSON value, giving the offset of
// the first fault.
func (p *parser) validate(line []byte) *jsondoc.Err {
	if jsontext.Value(line).IsValid() {
		return nil
	}
	if p.dec == nil {
		p.dec = jsontext.NewDecoder(bytes.NewReader(nil))
	}
	p.dec.Reset(bytes.NewReader(line))
	_, err := p.dec.ReadValue()
	off := int(p.dec.InputOffset())
	msg := "invalid JSON"
	var se *jsontext.SyntacticError
	switch {
	case errors.As(err, &se):
		off, msg = int(se.ByteOffset), "invalid JSON: "+se.Err.Error()
	case err != nil:
		msg = "invalid JSON: the line ends inside a value"
	default:
		msg = "invalid JSON: more than one value on the line"
	}
	return &jsondoc.Err{Off: off, Kind: textpos.ErrSyntax, Msg: msg}
}

// field is a metadata or metrics member and its dotted name for errors.
type field struct{ key, name string }

func meta(key string) field { return field{key, "metadata." + key} }

// The metadata members read, and the metric tags with the names of their
// value and unit.
var (
	fCorrelation  = meta("x_correlation_id")
	fConversation = meta("conversation_id")
	fRequestID    = meta("x_request_id")
	fTurnIndex    = meta("turn_index")
	fCreditIssued = meta("credit_issued_ns")
	fRequestStart = meta("request_start_ns")
	fRequestEnd   = meta("request_end_ns")
	fCancelled    = meta("was_cancelled")
	fClockOffset  = meta("clock_offset_ns")
)

type tag struct{ key, name, value, unit string }

func metric(key string) tag {
	return tag{key, "metrics." + key, "metrics." + key + ".value", "metrics." + key + ".unit"}
}

var (
	tTTFT            = metric("time_to_first_token")
	tTTFTOld         = metric("ttft")
	tUsagePrompt     = metric("usage_prompt_tokens")
	tISL             = metric("input_sequence_length")
	tErrorISL        = metric("error_isl")
	tUsageCompletion = metric("usage_completion_tokens")
	tOSL             = metric("output_sequence_length")
	tCacheRead       = metric("usage_prompt_cache_read_tokens")
)

// str returns metadata f's string ("" when absent or null).
func (p *parser) str(f field) (string, *jsondoc.Err) {
	m, ok := p.meta.Get(f.key)
	if !ok || jsondoc.IsNull(m.Val) {
		return "", nil
	}
	s, err := m.String(f.name)
	if err == nil && s == "" {
		err = jsondoc.Errf(m.Off, "%s: want a non-empty string", f.name)
	}
	return s, err
}

// ns returns metadata f, a Unix time in ns, as run seconds; ok is false
// when it is absent or null (an error when required).
func (p *parser) ns(f field, required bool, t0ns int64) (float64, bool, *jsondoc.Err) {
	v, ok, err := p.sinceNs(f, required, t0ns)
	// An integer below 2^53 over an exact 1e9: rounded once.
	return float64(v) / 1e9, ok, err
}

// sinceNs returns metadata f, a Unix time in ns, less t0ns; ok is false
// when it is absent or null (an error when required).
func (p *parser) sinceNs(f field, required bool, t0ns int64) (int64, bool, *jsondoc.Err) {
	m, ok := p.meta.Get(f.key)
	if !ok || jsondoc.IsNull(m.Val) {
		if required {
			return 0, false, jsondoc.Errf(-1, "missing required field %s", f.name)
		}
		return 0, false, nil
	}
	v, err := m.Count(f.name)
	if err != nil {
		return 0, false, err
	}
	if v < minEpochNs {
		return 0, false, jsondoc.Errf(m.Off, "%s: %d is not a Unix time in nanoseconds", f.name, v)
	}
	return v - t0ns, true, nil
}

// metric returns the value member of metric t and its unit's raw JSON;
// ok is false when the metric is absent or null.
func (p *parser) metric(t tag) (jsondoc.Member, []byte, bool, *jsondoc.Err) {
	m, ok := p.metrics.Get(t.key)
	if !ok || jsondoc.IsNull(m.Val) {
		return jsondoc.Member{}, nil, false, nil
	}
	if len(m.Val) == 0 || m.Val[0] != '{' {
		return jsondoc.Member{}, nil, false, jsondoc.Errf(m.Off, "%s: want an object {value, unit}, got %s", t.name, jsondoc.Describe(m.Val))
	}
	p.value = jsondoc.Members(m.Val, m.Off, p.value[:0])
	v, ok := p.value.Get("value")
	if !ok {
		return jsondoc.Member{}, nil, false, jsondoc.Errf(m.Off, "%s: missing value", t.name)
	}
	if jsondoc.IsNull(v.Val) {
		return jsondoc.Member{}, nil, false, nil
	}
	var unit []byte
	if u, ok := p.value.Get("unit"); ok && !jsondoc.IsNull(u.Val) {
		if u.Val[0] != '"' {
			return jsondoc.Member{}, nil, false, jsondoc.Errf(u.Off, "%s: want a string, got %s", t.unit, jsondoc.Describe(u.Val))
		}
		unit = u.Val
	}
	return v, unit, true, nil
}

// count returns the first of tags present, as a token count; found is the
// one found, nil for none.
func (p *parser) count(tags ...*tag) (int64, *tag, *jsondoc.Err) {
	for _, t := range tags {
		v, _, ok, err := p.metric(*t)
		if err != nil {
			return 0, nil, err
		}
		if !ok {
			continue
		}
		n, err := v.Count(t.value)
		return n, t, err
	}
	return 0, nil, nil
}

// unitShift is the power of ten of each time unit AIPerf writes below a
// second, keyed by the unit as its JSON string.
var unitShift = map[string]int{`"ns"`: 9, `"us"`: 6, `"ms"`: 3, `"sec"`: 0, `"s"`: 0}

func (p *parser) turn(t *loadgen.Turn, times *[3]float64, t0ns int64) *jsondoc.Err {
	row := &t.Row
	*times = [3]float64{}
	var err *jsondoc.Err
	if row.Session, err = p.str(fCorrelation); err != nil {
		return err
	}
	// The conversation only looks up its planned turns: one AIPerf
	// writes empty, or of another type, has none.
	p.conversation = ""
	if m, ok := p.meta.Get(fConversation.key); ok && len(m.Val) > 0 && m.Val[0] == '"' {
		p.conversation, _ = m.String(fConversation.name)
	}
	single := row.Session == ""
	if single {
		// A build that writes no correlation id: each request is a
		// session of its own.
		if row.Session, err = p.str(fRequestID); err != nil {
			return err
		}
		if row.Session == "" {
			return jsondoc.Errf(-1, "missing required field metadata.x_correlation_id (or x_request_id)")
		}
	}
	if m, ok := p.meta.Get(fTurnIndex.key); ok && !jsondoc.IsNull(m.Val) {
		n, err := m.Count(fTurnIndex.name)
		if err != nil {
			return err
		}
		if n > math.MaxInt32 {
			return jsondoc.Errf(m.Off, "metadata.turn_index: %d is too large", n)
		}
		row.Turn = int32(n)
	} else if !single {
		t.Ordinal = true
	}

	ready, hasReady, err := p.ns(fCreditIssued, false, t0ns)
	if err != nil {
		return err
	}
	// A worker stamps its estimate of its clock's offset from the
	// controller's (the timing manager, which stamps credit_issued_ns) on
	// each record once it has measured it, in every run mode (hosts apart in
	// a Kubernetes run; the credit's transit on one host:
	// docs/reference/time-synchronization.md), and leaves its own times as
	// its clock read them (workers/worker.py,
	// workers/clock_offset_tracker.py: controller time = worker time −
	// clock_offset_ns). Its times are moved onto the controller's clock, so
	// that every worker's turns and their ready times share one clock.
	workerNs := t0ns
	p.shifted = false
	if m, ok := p.meta.Get(fClockOffset.key); ok && !jsondoc.IsNull(m.Val) {
		off, err := m.Int(fClockOffset.name)
		if err != nil {
			return err
		}
		if off > maxClockOffsetNs || off < -maxClockOffsetNs {
			return jsondoc.Errf(m.Off, "%s: %d ns is more than an hour: not a clock offset between AIPerf's hosts", fClockOffset.name, off)
		}
		workerNs, p.shifted, p.offsetNs = t0ns+off, true, off
	}
	sentNs, _, err := p.sinceNs(fRequestStart, true, workerNs)
	if err != nil {
		return err
	}
	sent := float64(sentNs) / 1e9
	if row.DoneS, _, err = p.ns(fRequestEnd, true, workerNs); err != nil {
		return err
	}
	if row.DoneS < sent {
		m, _ := p.meta.Get(fRequestEnd.key)
		return jsondoc.Errf(m.Off, "metadata.request_end_ns is before request_start_ns")
	}
	times[1], row.SentS = sent, &times[1]
	if hasReady {
		times[0], row.ReadyS = ready, &times[0]
	}
	name := tTTFT.value
	v, unit, ok, err := p.metric(tTTFT)
	if err == nil && !ok {
		name = tTTFTOld.value
		v, unit, ok, err = p.metric(tTTFTOld)
	}
	if err != nil {
		return err
	}
	if ok {
		x, err := v.Number(name)
		if err != nil {
			return err
		}
		shift, known := unitShift[string(unit)]
		if !known {
			return jsondoc.Errf(v.Off, "%s: unknown unit %s (want ns, us, ms or sec)", name, unit)
		}
		if x < 0 {
			return jsondoc.Errf(v.Off, "%s: want a non-negative number, got %s", name, v.Val)
		}
		// The start in ns plus the TTFT in its unit, rounded once: the
		// TTFT parsed, divided and added would round three times
		// (2.6224582030000003 for 0.079157603 s + 2543.3006 ms).
		first, ok := decimal.Sum(sentNs, v.Val, shift)
		if !ok {
			return jsondoc.Errf(v.Off, "%s: number %s is out of range", name, v.Val)
		}
		times[2], row.FirstTokenS = first, &times[2]
	}

	var found, foundOut *tag
	if row.PromptTokens, found, err = p.count(&tUsagePrompt, &tISL, &tErrorISL); err != nil {
		return err
	}
	p.clientTokens = found != &tUsagePrompt
	if row.OutputTokens, foundOut, err = p.count(&tUsageCompletion, &tOSL); err != nil {
		return err
	}
	prompt := found != nil
	if row.CachedTokens, found, err = p.count(&tCacheRead); err != nil {
		return err
	}
	if t.CachedReported = found != nil; t.CachedReported && row.CachedTokens > row.PromptTokens {
		v, _, _, _ := p.metric(tCacheRead)
		return jsondoc.Errf(v.Off, "metrics.usage_prompt_cache_read_tokens %d exceeds the prompt's %d tokens", row.CachedTokens, row.PromptTokens)
	}

	row.Status = schema.TurnOK
	if e, ok := p.top.Get("error"); ok && !jsondoc.IsNull(e.Val) {
		if len(e.Val) == 0 || e.Val[0] != '{' {
			return jsondoc.Errf(e.Off, "error: want an object or null, got %s", jsondoc.Describe(e.Val))
		}
		row.Status = schema.TurnError
	}
	if m, ok := p.meta.Get(fCancelled.key); ok && !jsondoc.IsNull(m.Val) {
		c, err := m.Bool(fCancelled.name)
		if err != nil {
			return err
		}
		if c {
			row.Status = schema.TurnAborted
		}
	}
	if row.Status == schema.TurnOK && (!prompt || foundOut == nil) {
		// AIPerf writes no count it could not take (NoMetricValue): with
		// --use-server-token-count when the server sent no usage, or for
		// an endpoint that produces no tokens (the metrics' flag
		// PRODUCES_TOKENS_ONLY). A completed turn's count is then unknown,
		// not 0; a failed one's stays 0.
		what := "a prompt-token count (metrics holds neither usage_prompt_tokens nor input_sequence_length"
		if prompt {
			what = "an output-token count (metrics holds neither usage_completion_tokens nor output_sequence_length"
		}
		return jsondoc.Errf(-1, "a completed request without %s: AIPerf counted none, as with --use-server-token-count when the server sent no usage, or on an endpoint that produces no tokens): its count is unknown, not 0", what)
	}
	return nil
}
