package inferenceperf

import (
	"bytes"
	"errors"
	"io"
	"math"

	"github.com/outlast-dev/outlast/ingest/internal/jsondoc"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// record is one request as read, its times on the file's clock.
type record struct {
	pos textpos.Pos
	col int

	start, end, first float64 // first: NaN without a token time
	created           int64   // the server's "created" Unix seconds, 0 if none
	userSession       string
	round             int64 // chat_round (1-based), 0 if none
	session           string
	continues         bool // of its user's last instance: the user went on

	prompt, cached, output int64
	cachedReported         bool
	status                 string
	// failed says why a request recorded as a success failed (failure.go).
	failed int
}

// bounds are the extremes of the records' times and the interval of
// offsets their "created" stamps allow.
type bounds struct {
	minStart, maxEnd float64
	lo, hi           float64 // created − first token ≤ offset ≤ created + 1 − start
	created          int     // records with a created stamp
}

// scan reads every record of the file.
func (r *Reader) scan() ([]record, bounds, error) {
	b := bounds{minStart: math.Inf(1), maxEnd: math.Inf(-1), lo: math.Inf(-1), hi: math.Inf(1)}
	doc := jsondoc.New(r.r, r.name)
	tok, err := doc.ReadToken()
	if err == io.EOF {
		return nil, b, doc.Errorf(0, nil, "the file is empty")
	}
	if err != nil {
		return nil, b, err
	}
	if tok.Kind() != '[' {
		return nil, b, doc.Errorf(0, nil, "want a JSON list of request records, got %s", jsondoc.Describe([]byte{byte(tok.Kind())}))
	}
	var recs []record
	var p parser
	for doc.PeekKind() != ']' {
		raw, start, err := doc.ReadValue()
		if err == io.EOF {
			err = doc.Errorf(doc.Offset(), nil, "the file ends inside the list: it was cut short")
		}
		var pe *textpos.ParseError
		if errors.As(err, &pe) {
			// The list cannot be read past a fault in its structure: the
			// records before it stand, the fault is the last bad record.
			r.errs = append(r.errs, pe)
			return recs, b, nil
		}
		if err != nil {
			return nil, b, err
		}
		doc.Release(start)
		pos, col := doc.Pos(start)
		rec := record{pos: pos, col: col, first: math.NaN()}
		if e := p.parse(raw, &rec); e != nil {
			epos, ecol := pos, col
			if e.Off >= 0 {
				epos, ecol = doc.Pos(start + int64(e.Off))
			}
			r.reject(epos, ecol, raw, e.Msg)
			continue
		}
		recs = append(recs, rec)
		b.minStart = math.Min(b.minStart, rec.start)
		b.maxEnd = math.Max(b.maxEnd, rec.end)
		if rec.created > 0 {
			arrive := rec.first
			if math.IsNaN(arrive) {
				arrive = rec.end
			}
			b.lo = math.Max(b.lo, float64(rec.created)-arrive)
			b.hi = math.Min(b.hi, float64(rec.created)+1-rec.start)
			b.created++
		}
	}
	if _, err := doc.ReadToken(); err != nil {
		return nil, b, err
	}
	if _, err := doc.ReadToken(); err != io.EOF {
		if err != nil {
			return nil, b, err
		}
		return nil, b, doc.Errorf(doc.Offset(), nil, "more after the list's end")
	}
	return recs, b, nil
}

// parser holds the scratch tables of one record's objects.
type parser struct {
	top, info, extra, resp, reqm, usage, details, text, body jsondoc.Object
	// noCompletion says the last record's response metrics show no
	// completion: none kept, or no content and no usage.
	noCompletion bool
}

// parse fills rec from raw (valid JSON); offsets in errors are in raw.
func (p *parser) parse(raw []byte, rec *record) *jsondoc.Err {
	if raw[0] != '{' {
		return jsondoc.Errf(0, "want a request record (an object), got %s", jsondoc.Describe(raw))
	}
	p.top = jsondoc.Members(raw, 0, p.top[:0])
	var err *jsondoc.Err
	if rec.start, err = p.perf("start_time"); err != nil {
		return err
	}
	if rec.end, err = p.perf("end_time"); err != nil {
		return err
	}
	if rec.end < rec.start {
		m, _ := p.top.Get("end_time")
		return jsondoc.Errf(m.Off, "end_time %v is before start_time %v", rec.end, rec.start)
	}
	rec.status = schema.TurnOK
	if e, ok := p.top.Get("error"); ok && !jsondoc.IsNull(e.Val) {
		if e.Val[0] != '{' {
			return jsondoc.Errf(e.Off, "error: want an object or null, got %s", jsondoc.Describe(e.Val))
		}
		rec.status = schema.TurnError
	}
	if resp, ok := p.top.Get("response"); ok {
		rec.created = created(resp.Val)
	}
	info, ok := p.top.Get("info")
	if !ok || jsondoc.IsNull(info.Val) {
		if rec.status == schema.TurnOK {
			return jsondoc.Errf(-1, "missing info: no token counts (inference-perf v0.1.0 wrote none; v0.1.1 and later do)")
		}
		return nil
	}
	if p.info, err = info.Object("info", p.info); err != nil {
		return err
	}
	if err := p.session(rec); err != nil {
		return err
	}
	if err := p.tokens(rec); err != nil {
		return err
	}
	if rec.status == schema.TurnOK {
		resp, _ := p.top.Get("response")
		switch {
		case p.inBandError(resp.Val):
			rec.status, rec.failed, rec.output = schema.TurnError, failedInBand, 0
		case p.noCompletion:
			rec.status, rec.failed, rec.output = schema.TurnError, failedNoResponse, 0
		}
	}
	return nil
}

// perf returns the record's time key, seconds on the perf_counter clock.
func (p *parser) perf(key string) (float64, *jsondoc.Err) {
	m, ok := p.top.Get(key)
	if !ok {
		return 0, jsondoc.Errf(-1, "missing required field %s", key)
	}
	v, err := m.Number(key)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, jsondoc.Errf(m.Off, "%s: want a non-negative number of seconds, got %s", key, m.Val)
	}
	return v, nil
}

// session reads info.extra_info.user_session and chat_round.
func (p *parser) session(rec *record) *jsondoc.Err {
	x, ok := p.info.Get("extra_info")
	if !ok || jsondoc.IsNull(x.Val) {
		return nil
	}
	var err *jsondoc.Err
	if p.extra, err = x.Object("info.extra_info", p.extra); err != nil {
		return err
	}
	if u, ok := p.extra.Get("user_session"); ok && !jsondoc.IsNull(u.Val) {
		if rec.userSession, err = u.String("info.extra_info.user_session"); err != nil {
			return err
		}
	}
	if c, ok := p.extra.Get("chat_round"); ok && !jsondoc.IsNull(c.Val) {
		if rec.round, err = c.Count("info.extra_info.chat_round"); err != nil {
			return err
		}
		if rec.round < 1 || rec.round > math.MaxInt32 {
			return jsondoc.Errf(c.Off, "info.extra_info.chat_round: want a round from 1, got %s", c.Val)
		}
	}
	if rec.round > 0 && rec.userSession == "" {
		return jsondoc.Errf(x.Off, "info.extra_info: chat_round without user_session")
	}
	return nil
}

// tokens reads the token counts and the first token's time, wherever the
// version wrote them.
func (p *parser) tokens(rec *record) *jsondoc.Err {
	var err *jsondoc.Err
	// The response's metrics: response_metrics (v0.6+), response_info
	// (v0.5), else info itself (v0.1.1-v0.4).
	resp, respName := p.info, "info"
	p.noCompletion = false
	for _, k := range []string{"response_metrics", "response_info"} {
		if m, ok := p.info.Get(k); ok {
			respName = "info." + k
			if jsondoc.IsNull(m.Val) {
				// No response metrics kept: the unary path's return for
				// a body without choices (apis/chat.py, completion.py).
				resp, p.noCompletion = nil, true
			} else if p.resp, err = m.Object(respName, p.resp); err != nil {
				return err
			} else {
				resp = p.resp
			}
			break
		}
	}
	if rec.created == 0 {
		// The chunks kept beside the response carry the stamp too: read
		// them where the response's text is not there (a record whose
		// texts were left out before it was shared).
		if m, ok := resp.Get("response_chunks"); ok && len(m.Val) > 0 && m.Val[0] == '[' {
			jsondoc.Elements(m.Val, m.Off, func(v []byte, _ int) error {
				rec.created = created(v)
				return io.EOF // the first chunk's
			})
		}
	}
	if m, ok := resp.Get("output_token_times"); ok && !jsondoc.IsNull(m.Val) {
		if m.Val[0] != '[' {
			return jsondoc.Errf(m.Off, "%s.output_token_times: want a list, got %s", respName, jsondoc.Describe(m.Val))
		}
		var first *jsondoc.Member
		jsondoc.Elements(m.Val, m.Off, func(v []byte, off int) error {
			first = &jsondoc.Member{Val: v, Off: off}
			return io.EOF // the first is enough
		})
		if first != nil {
			if rec.first, err = first.Number(respName + ".output_token_times[0]"); err != nil {
				return err
			}
		}
	}
	// The client's counts.
	clientIn, err := p.count(p.info, "info", "input_tokens")
	if err != nil {
		return err
	}
	if m, ok := p.info.Get("request_metrics"); ok && !jsondoc.IsNull(m.Val) {
		if p.reqm, err = m.Object("info.request_metrics", p.reqm); err != nil {
			return err
		}
		if t, ok := p.reqm.Get("text"); ok && !jsondoc.IsNull(t.Val) {
			if p.text, err = t.Object("info.request_metrics.text", p.text); err != nil {
				return err
			}
			if n, err := p.count(p.text, "info.request_metrics.text", "input_tokens"); err != nil {
				return err
			} else if n >= 0 {
				clientIn = n
			}
		}
	}
	clientOut, err := p.count(resp, respName, "output_tokens")
	if err != nil {
		return err
	}
	rec.prompt, rec.output = max(clientIn, 0), max(clientOut, 0)
	// The server's usage, when it was kept.
	u, ok := resp.Get("server_usage")
	if !ok || jsondoc.IsNull(u.Val) {
		// v0.5 and later keep the server's usage, which every completion
		// carries (requested with stream_options.include_usage on a
		// stream): without it, no content is no completion.
		if respName != "info" && clientOut <= 0 && math.IsNaN(rec.first) {
			p.noCompletion = true
		}
		return nil
	}
	name := respName + ".server_usage"
	if p.usage, err = u.Object(name, p.usage); err != nil {
		return err
	}
	if n, err := p.count(p.usage, name, "prompt_tokens"); err != nil {
		return err
	} else if n >= 0 {
		rec.prompt = n
	} else if ok, err := p.anthropic(rec, name); ok || err != nil {
		return err
	}
	if n, err := p.count(p.usage, name, "completion_tokens"); err != nil {
		return err
	} else if n >= 0 {
		rec.output = n
	}
	d, ok := p.usage.Get("prompt_tokens_details")
	if !ok || jsondoc.IsNull(d.Val) {
		return nil
	}
	if p.details, err = d.Object(name+".prompt_tokens_details", p.details); err != nil {
		return err
	}
	c, ok := p.details.Get("cached_tokens")
	if !ok || jsondoc.IsNull(c.Val) {
		return nil
	}
	if rec.cached, err = c.Count(name + ".prompt_tokens_details.cached_tokens"); err != nil {
		return err
	}
	rec.cachedReported = true
	if rec.cached > rec.prompt {
		return jsondoc.Errf(c.Off, "%s.prompt_tokens_details.cached_tokens %d exceeds prompt_tokens %d", name, rec.cached, rec.prompt)
	}
	return nil
}

// anthropic reads server usage of the Anthropic shape (api.type
// anthropic_messages, apis/anthropic_messages.py: input_tokens,
// output_tokens, cache_read_input_tokens, cache_creation_input_tokens),
// and reports whether it was one. Anthropic's input_tokens is the prompt's
// uncached remainder, so the prompt is input + cache reads + cache writes,
// as AIPerf's Usage.prompt_tokens adds them back; a server that gives no
// cache key (vLLM's /v1/messages: input_tokens = prompt_tokens) gave the
// whole prompt, and no cached-token figure.
func (p *parser) anthropic(rec *record, name string) (bool, *jsondoc.Err) {
	in, err := p.count(p.usage, name, "input_tokens")
	if err != nil || in < 0 {
		return false, err
	}
	reads, err := p.count(p.usage, name, "cache_read_input_tokens")
	if err != nil {
		return false, err
	}
	writes, err := p.count(p.usage, name, "cache_creation_input_tokens")
	if err != nil {
		return false, err
	}
	out, err := p.count(p.usage, name, "output_tokens")
	if err != nil {
		return false, err
	}
	rec.prompt = in + max(reads, 0) + max(writes, 0)
	if out >= 0 {
		rec.output = out
	}
	if reads >= 0 {
		rec.cached, rec.cachedReported = reads, true
	}
	return true, nil
}

// count returns o's key as a count, -1 when absent or null.
func (p *parser) count(o jsondoc.Object, name, key string) (int64, *jsondoc.Err) {
	m, ok := o.Get(key)
	if !ok || jsondoc.IsNull(m.Val) {
		return -1, nil
	}
	return m.Count(name + "." + key)
}

// created returns the "created" Unix seconds an OpenAI-style response
// carries, as the JSON string raw holds it, 0 if there is none: the first
// chunk's of a streamed response (`data: {"id":…,"created":1793102402,…}`),
// or the body's of one that was not streamed (api.streaming false, the
// default: `{"id":…,"created":1793102402,…}`, read whole with
// response.text() in client/modelserver/openai_client.py). Either is the
// server's time.time() after the request reached it and before the
// response ended (vLLM's serving_completion.py, serving_chat.py). A quote
// inside the body's text is escaped twice in the record, so a key found is
// one of the response's own.
func created(raw []byte) int64 {
	const key = `\"created\":`
	i := bytes.Index(raw, []byte(key))
	if i < 0 || !(bytes.HasPrefix(raw, []byte(`"data:`)) || bytes.HasPrefix(raw, []byte(`"{`))) {
		return 0
	}
	var v int64
	digits := 0
	for _, c := range raw[i+len(key):] {
		if c == ' ' && digits == 0 {
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		v = v*10 + int64(c-'0')
		digits++
	}
	if digits < 9 || digits > 11 {
		return 0 // not a plausible Unix time in seconds
	}
	return v
}
