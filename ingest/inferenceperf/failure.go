package inferenceperf

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/outlast-dev/outlast/ingest/internal/jsondoc"
)

// inference-perf records a request as a success whenever the server
// answered 200, whatever the body held (kubernetes-sigs/inference-perf
// issue #713, open at v0.6.1 and on main of 2026-08; pull request #744 fixes
// it by recording them as failures): a body, or an SSE frame of it, that
// carries a top-level "error" (vLLM and SGLang send `data: {"error": {…}}`
// when generation fails mid-stream; a proxy can return the OpenAI error
// object whole), and a body that is no completion at all (no content and no
// usage: the unary path's early return for an empty choices list writes
// response_metrics null). Such a record, error null and 0 output tokens,
// is read as the failure it was.

// The failures of a request recorded as a success.
const (
	failedNone       = iota
	failedInBand     // the response carries an error
	failedNoResponse // the response is no completion
)

// inBandError reports whether the response text raw (a JSON string, as the
// record holds it) carries a top-level "error": the body, when it is a JSON
// object, or a `data:` frame of an SSE stream.
func (p *parser) inBandError(raw []byte) bool {
	if !bytes.Contains(raw, []byte("error")) {
		return false // the common case, decided without decoding the text
	}
	body, err := jsondoc.Member{Val: raw}.String("response")
	if err != nil {
		return false
	}
	text := bytes.TrimSpace([]byte(body))
	if bytes.HasPrefix(text, []byte("{")) {
		return p.hasError(text)
	}
	for line := range bytes.Lines(text) {
		data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:"))
		if !ok {
			continue
		}
		if data = bytes.TrimSpace(data); bytes.HasPrefix(data, []byte("{")) && p.hasError(data) {
			return true
		}
	}
	return false
}

// hasError reports whether obj is a JSON object with a top-level "error"
// that is not null (an OpenAI error object, TGI's string, Anthropic's error
// event).
func (p *parser) hasError(obj []byte) bool {
	if !jsontext.Value(obj).IsValid() {
		return false
	}
	p.body = jsondoc.Members(obj, 0, p.body[:0])
	m, ok := p.body.Get("error")
	return ok && !jsondoc.IsNull(m.Val)
}
