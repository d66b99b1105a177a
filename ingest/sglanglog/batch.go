package sglanglog

import (
	"fmt"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/ingest/internal/samplefield"
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
	num [samplefield.NumLogFloats]float64
	cnt [samplefield.NumCounts]int64
}

// batchKey is what a key of a batch line means: the field it feeds, a
// number or a count, or else what it tells of the dialect.
type batchKey struct {
	num samplefield.Float
	cnt samplefield.Count
	fieldFlags
}

// batchKeyOf returns what key means: the zero batchKey for a key this
// reader passes over (hybrid pools, graph flags, spec-decoding and PD
// fields, newer additions). A switch, not a map: there is one lookup per
// field, and a map's is several times slower.
func batchKeyOf(key []byte) batchKey {
	switch string(key) {
	case "#running-req":
		return batchKey{num: samplefield.Running}
	case "#queue-req":
		return batchKey{num: samplefield.Waiting}
	case "token usage", "full token usage": // full: hybrid (SWA, Mamba) pools
		return batchKey{num: samplefield.KVUsage}
	case "gen throughput (token/s)":
		return batchKey{num: samplefield.GenTput}
	case "input throughput (token/s)":
		return batchKey{num: samplefield.PromptTput}
	case "#token", "#full token":
		return batchKey{cnt: samplefield.TokensUsed}
	case "#new-seq":
		return batchKey{cnt: samplefield.NewSeqs}
	case "#new-token":
		return batchKey{cnt: samplefield.NewTokens}
	case "#cached-token":
		return batchKey{cnt: samplefield.CachedTokens}
	case "largest-len":
		return batchKey{fieldFlags: fieldFlags{largestLen: true}}
	case "#pending-token":
		return batchKey{fieldFlags: fieldFlags{newest: true}}
	}
	return batchKey{}
}

// parseFields parses the ", "-separated "key: value" fields of a batch line
// into s, with v as the fields' backing. Mapped keys (batchKeyOf) must carry
// a well-formed number; other keys are passed over, with any ", "-separated
// pieces of their values. When a mapped key repeats, the first value
// counts.
func parseFields(body []byte, s *schema.EngineSample, v *batchValues) (fieldFlags, error) {
	var fl fieldFlags
	fields := enginelog.NewFields(body)
	for fields.Next() {
		k := batchKeyOf(fields.Key())
		fl.largestLen = fl.largestLen || k.largestLen
		fl.newest = fl.newest || k.newest
		switch {
		case k.num != samplefield.NoFloat:
			if p := k.num.Of(s); *p == nil {
				x, err := enginelog.ParseNumber(fields.Val())
				if err != nil {
					return fl, fields.ValueErr(0, err)
				}
				v.num[k.num] = x
				*p = &v.num[k.num]
			}
		case k.cnt != samplefield.NoCount:
			if p := k.cnt.Of(s); *p == nil {
				n, ok := enginelog.ParseUint(fields.Val())
				if !ok {
					return fl, fields.ValueErr(0, fmt.Errorf("malformed count %q", fields.Val()))
				}
				v.cnt[k.cnt] = n
				*p = &v.cnt[k.cnt]
			}
		default:
			fields.Skip()
		}
	}
	return fl, fields.Err()
}
