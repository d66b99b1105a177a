package sglanglog

import (
	"bytes"
	"fmt"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/schema"
)

// iterTag returns the length of a " [12345]" iteration tag at the start of
// b, or 0.
func iterTag(b []byte) int {
	if len(b) < 4 || b[0] != ' ' || b[1] != '[' {
		return 0
	}
	n := 2
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	if n == 2 || n >= len(b) || b[n] != ']' {
		return 0
	}
	return n + 1
}

// fieldFlags is what a batch line tells about the log's dialect.
type fieldFlags struct {
	largestLen bool // "largest-len" (v0.4.4)
	newest     bool // "#pending-token" (2026-04-10 on)
}

// batchValues backs a sample's optional fields.
type batchValues struct {
	running, waiting, kv, prompt, gen  float64
	tokens, newSeqs, newTokens, cached int64
}

// parseFields parses the ", "-separated "key: value" fields of a batch line
// into s, with v as the fields' backing. Mapped keys must carry a
// well-formed number; other keys (hybrid pools, graph flags, spec-decoding
// and PD fields, newer additions) are passed over, with any ", "-separated
// pieces of their values. When a mapped key repeats, the first value counts.
func parseFields(body []byte, s *schema.EngineSample, v *batchValues) (fieldFlags, error) {
	var fl fieldFlags
	off := 0
	afterUnknown := false // the previous field's key is one this reader passes over
	for off < len(body) {
		end := bytes.Index(body[off:], []byte(", "))
		if end < 0 {
			end = len(body) - off
		}
		field := body[off : off+end]
		next := off + end + 2
		colon := bytes.Index(field, []byte(": "))
		if colon < 0 {
			if afterUnknown {
				// A field this reader passes over, whose value holds ", ".
				off = next
				continue
			}
			return fl, &enginelog.FieldError{Off: off, Err: fmt.Errorf("field %q is not \"key: value\"", field)}
		}
		key, val := field[:colon], field[colon+2:]
		voff := off + colon + 2
		var fdst **float64
		var fval *float64
		var idst **int64
		var ival *int64
		switch string(key) {
		case "#running-req":
			fdst, fval = &s.Running, &v.running
		case "#queue-req":
			fdst, fval = &s.Waiting, &v.waiting
		case "token usage", "full token usage":
			fdst, fval = &s.KVUsage, &v.kv
		case "gen throughput (token/s)":
			fdst, fval = &s.GenTput, &v.gen
		case "input throughput (token/s)":
			fdst, fval = &s.PromptTput, &v.prompt
		case "#token", "#full token":
			idst, ival = &s.TokensUsed, &v.tokens
		case "#new-seq":
			idst, ival = &s.NewSeqs, &v.newSeqs
		case "#new-token":
			idst, ival = &s.NewTokens, &v.newTokens
		case "#cached-token":
			idst, ival = &s.CachedTokens, &v.cached
		case "largest-len":
			fl.largestLen = true
		case "#pending-token":
			fl.newest = true
		}
		afterUnknown = fdst == nil && idst == nil
		switch {
		case fdst != nil && *fdst == nil:
			x, err := enginelog.ParseNumber(val)
			if err != nil {
				return fl, &enginelog.FieldError{Off: voff, Err: fmt.Errorf("%s: %w", key, err)}
			}
			*fval = x
			*fdst = fval
		case idst != nil && *idst == nil:
			n, ok := enginelog.ParseUint(val)
			if !ok {
				return fl, &enginelog.FieldError{Off: voff, Err: fmt.Errorf("%s: malformed count %q", key, val)}
			}
			*ival = n
			*idst = ival
		}
		off = next
	}
	return fl, nil
}
