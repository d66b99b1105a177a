package aiperf

import (
	"bytes"
	"errors"
	"math"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/outlast-dev/outlast/ingest/internal/jsondoc"
	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
	"github.com/outlast-dev/outlast/schema"
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
}

// minEpochNs is 2001-09-09 in Unix ns: a smaller request time is not a
// wall-clock time (a performance-counter value would be).
const minEpochNs = 1e18

// parse fills t from line and reports whether the record is a warmup one
// (then t is not filled in full).
func (p *parser) parse(line []byte, t *loadgen.Turn, times *[3]float64, t0ns int64) (warmup bool, _ *lineError) {
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
	var err *jsondoc.Err
	if p.meta, err = m.Object("metadata", p.meta); err != nil {
		return false, wrap(err)
	}
	phase, err := p.str("benchmark_phase", true)
	if err != nil {
		return false, wrap(err)
	}
	switch phase {
	case PhaseWarmup:
		return true, nil
	case PhaseProfiling:
	default:
		f, _ := p.meta.Get("benchmark_phase")
		return false, errorf(f.Off, "metadata.benchmark_phase: unknown phase %q (AIPerf writes warmup or profiling)", phase)
	}
	p.metrics = p.metrics[:0]
	if mm, ok := p.top.Get("metrics"); ok && !jsondoc.IsNull(mm.Val) {
		if p.metrics, err = mm.Object("metrics", p.metrics); err != nil {
			return false, wrap(err)
		}
	}
	return false, wrap(p.turn(t, times, t0ns))
}

// validate checks that line is one valid JSON value, giving the offset of
// the first fault.
func (p *parser) validate(line []byte) *lineError {
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
	return &lineError{Err: jsondoc.Err{Off: off, Msg: msg}, syntax: true}
}

func wrap(err *jsondoc.Err) *lineError {
	if err == nil {
		return nil
	}
	return &lineError{Err: *err}
}

// str returns metadata.key's string ("" when absent or null and not
// required).
func (p *parser) str(key string, required bool) (string, *jsondoc.Err) {
	m, ok := p.meta.Get(key)
	if !ok || jsondoc.IsNull(m.Val) {
		if required {
			return "", jsondoc.Errf(-1, "missing required field metadata.%s", key)
		}
		return "", nil
	}
	s, err := m.String("metadata." + key)
	if err == nil && s == "" {
		err = jsondoc.Errf(m.Off, "metadata.%s: want a non-empty string", key)
	}
	return s, err
}

// ns returns metadata.key, a Unix time in ns, as run seconds; ok is false
// when it is absent or null (an error when required).
func (p *parser) ns(key string, required bool, t0ns int64) (float64, bool, *jsondoc.Err) {
	m, ok := p.meta.Get(key)
	if !ok || jsondoc.IsNull(m.Val) {
		if required {
			return 0, false, jsondoc.Errf(-1, "missing required field metadata.%s", key)
		}
		return 0, false, nil
	}
	v, err := m.Count("metadata." + key)
	if err != nil {
		return 0, false, err
	}
	if v < minEpochNs {
		return 0, false, jsondoc.Errf(m.Off, "metadata.%s: %d is not a Unix time in nanoseconds", key, v)
	}
	return float64(v-t0ns) / 1e9, true, nil
}

// metric returns metrics.tag's value member; ok is false when absent or
// null.
func (p *parser) metric(tag string) (jsondoc.Member, string, bool, *jsondoc.Err) {
	m, ok := p.metrics.Get(tag)
	if !ok || jsondoc.IsNull(m.Val) {
		return jsondoc.Member{}, "", false, nil
	}
	var err *jsondoc.Err
	if p.value, err = m.Object("metrics."+tag, p.value); err != nil {
		return jsondoc.Member{}, "", false, err
	}
	v, ok := p.value.Get("value")
	if !ok {
		return jsondoc.Member{}, "", false, jsondoc.Errf(m.Off, "metrics.%s: missing value", tag)
	}
	if jsondoc.IsNull(v.Val) {
		return jsondoc.Member{}, "", false, nil
	}
	unit := ""
	if u, ok := p.value.Get("unit"); ok && !jsondoc.IsNull(u.Val) {
		if unit, err = u.String("metrics." + tag + ".unit"); err != nil {
			return jsondoc.Member{}, "", false, err
		}
	}
	return v, unit, true, nil
}

// count returns the first of tags present, as a token count; tag is the
// one found, "" for none.
func (p *parser) count(tags ...string) (int64, string, *jsondoc.Err) {
	for _, tag := range tags {
		v, _, ok, err := p.metric(tag)
		if err != nil {
			return 0, "", err
		}
		if !ok {
			continue
		}
		n, err := v.Count("metrics." + tag + ".value")
		return n, tag, err
	}
	return 0, "", nil
}

// perSecond is how many of each time unit AIPerf writes make a second.
var perSecond = map[string]float64{"ns": 1e9, "us": 1e6, "ms": 1e3, "sec": 1, "s": 1}

func (p *parser) turn(t *loadgen.Turn, times *[3]float64, t0ns int64) *jsondoc.Err {
	row := &t.Row
	*times = [3]float64{}
	var err *jsondoc.Err
	if row.Session, err = p.str("x_correlation_id", false); err != nil {
		return err
	}
	single := row.Session == ""
	if single {
		// A build that writes no correlation id: each request is a
		// session of its own.
		if row.Session, err = p.str("x_request_id", false); err != nil {
			return err
		}
		if row.Session == "" {
			return jsondoc.Errf(-1, "missing required field metadata.x_correlation_id (or x_request_id)")
		}
	}
	if m, ok := p.meta.Get("turn_index"); ok && !jsondoc.IsNull(m.Val) {
		n, err := m.Count("metadata.turn_index")
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

	ready, hasReady, err := p.ns("credit_issued_ns", false, t0ns)
	if err != nil {
		return err
	}
	sent, _, err := p.ns("request_start_ns", true, t0ns)
	if err != nil {
		return err
	}
	if row.DoneS, _, err = p.ns("request_end_ns", true, t0ns); err != nil {
		return err
	}
	times[1], row.SentS = sent, &times[1]
	if hasReady {
		times[0], row.ReadyS = ready, &times[0]
	}
	v, unit, ok, err := p.metric("time_to_first_token")
	if err == nil && !ok {
		v, unit, ok, err = p.metric("ttft")
	}
	if err != nil {
		return err
	}
	if ok {
		ms, err := v.Number("metrics.time_to_first_token.value")
		if err != nil {
			return err
		}
		per, known := perSecond[unit]
		if !known {
			return jsondoc.Errf(v.Off, "metrics.time_to_first_token: unknown unit %q (want ns, us, ms or sec)", unit)
		}
		if ms < 0 {
			return jsondoc.Errf(v.Off, "metrics.time_to_first_token.value: want a non-negative number, got %v", ms)
		}
		times[2], row.FirstTokenS = sent+ms/per, &times[2]
	}

	var tag string
	if row.PromptTokens, tag, err = p.count("usage_prompt_tokens", "input_sequence_length", "error_isl"); err != nil {
		return err
	}
	p.clientTokens = tag != "usage_prompt_tokens"
	if row.OutputTokens, _, err = p.count("usage_completion_tokens", "output_sequence_length"); err != nil {
		return err
	}
	if row.CachedTokens, tag, err = p.count("usage_prompt_cache_read_tokens"); err != nil {
		return err
	}
	if t.CachedReported = tag != ""; t.CachedReported && row.CachedTokens > row.PromptTokens {
		v, _, _, _ := p.metric("usage_prompt_cache_read_tokens")
		return jsondoc.Errf(v.Off, "metrics.usage_prompt_cache_read_tokens %d exceeds the prompt's %d tokens", row.CachedTokens, row.PromptTokens)
	}

	row.Status = schema.TurnOK
	if e, ok := p.top.Get("error"); ok && !jsondoc.IsNull(e.Val) {
		if len(e.Val) == 0 || e.Val[0] != '{' {
			return jsondoc.Errf(e.Off, "error: want an object or null, got %s", jsondoc.Describe(e.Val))
		}
		row.Status = schema.TurnError
	}
	if m, ok := p.meta.Get("was_cancelled"); ok && !jsondoc.IsNull(m.Val) {
		c, err := m.Bool("metadata.was_cancelled")
		if err != nil {
			return err
		}
		if c {
			row.Status = schema.TurnAborted
		}
	}
	return nil
}
