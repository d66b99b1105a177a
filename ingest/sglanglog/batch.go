package sglanglog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/ingest/internal/samplefield"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
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

// needs are fields a batch line carries, as bits: each form of batch line
// has always carried some (form.needs), and a line without one is cut or
// damaged.
type needs uint8

const (
	needNewSeq needs = 1 << iota
	needNewToken
	needCached
	needRunning
	needTokens // the KV tokens in use: #token, #full token, #gpu token
	needUsage  // the KV pool's usage: token usage, full token usage, gpu token usage
	needQueue
)

// needNames name the bits of needs, in the order SGLang prints the
// fields, for an error.
var needNames = [...]string{"#new-seq", "#new-token", "#cached-token", "#running-req", "#token", "token usage", "#queue-req"}

// batchValues backs a sample's optional fields.
type batchValues struct {
	num [samplefield.NumLogFloats]float64
	cnt [samplefield.NumCounts]int64
}

// batchKey is what a key of a batch line means: the field it feeds, a
// number (a percentage when percent is set) or a count, the need it
// meets, or else what it tells of the dialect.
type batchKey struct {
	num     samplefield.Float
	cnt     samplefield.Count
	percent bool
	// marks are the need the key meets (its low bits) and what it tells of
	// the dialect (markLargestLen, markNewest), which a line's fields OR
	// together.
	marks uint16
}

// The marks of batchKey above the needs.
const (
	markLargestLen uint16 = 1 << (8 + iota)
	markNewest
)

// batchKeys are the keys this reader maps, by keyID.
var batchKeys = [...]batchKey{
	keyNone:     {},
	keyRunning:  {num: samplefield.Running, marks: uint16(needRunning)},
	keyQueue:    {num: samplefield.Waiting, marks: uint16(needQueue)},
	keyUsage:    {num: samplefield.KVUsage, marks: uint16(needUsage)},
	keyGen:      {num: samplefield.GenTput},
	keyInput:    {num: samplefield.PromptTput},
	keyHitRate:  {num: samplefield.LoggedHitRate, percent: true},
	keyTokens:   {cnt: samplefield.TokensUsed, marks: uint16(needTokens)},
	keyNewSeq:   {cnt: samplefield.NewSeqs, marks: uint16(needNewSeq)},
	keyNewToken: {cnt: samplefield.NewTokens, marks: uint16(needNewToken)},
	keyCached:   {cnt: samplefield.CachedTokens, marks: uint16(needCached)},
	keyLargest:  {marks: markLargestLen},
	keyPending:  {marks: markNewest},
}

// keyID names an entry of batchKeys.
type keyID uint8

const (
	keyNone keyID = iota
	keyRunning
	keyQueue
	keyUsage
	keyGen
	keyInput
	keyHitRate
	keyTokens
	keyNewSeq
	keyNewToken
	keyCached
	keyLargest
	keyPending
)

// keyIDOf returns what key means, as an entry of batchKeys: keyNone for a
// key this reader passes over (hybrid pools' second usage, graph flags,
// spec-decoding and PD fields, newer additions). SGLang 0.1 spelled its
// keys with underscores and called the queue #remaining_req. A switch,
// not a map: there is one lookup per field, and a map's is several times
// slower; it returns a small number, not the batchKey, which costs as
// much again.
func keyIDOf(key []byte) keyID {
	switch string(key) {
	case "#running-req", "#running_req":
		return keyRunning
	case "#queue-req", "#remaining_req":
		return keyQueue
	case "token usage", "full token usage", "gpu token usage": // full: hybrid (SWA, Mamba) pools; gpu: HiSparse
		return keyUsage
	case "gen throughput (token/s)":
		return keyGen
	case "input throughput (token/s)":
		return keyInput
	case "cache hit rate", "tree_cache_hit_rate": // the radix cache's, late 2024 and 0.1
		return keyHitRate
	case "#token", "#full token", "#gpu token", "#gpu-token": // HiSparse: "#gpu token" (PoolStats in managers/scheduler_components/pool_stats_observer.py), "#gpu-token" in its PR (#22331)
		return keyTokens
	case "#new-seq", "#seq":
		return keyNewSeq
	case "#new-token", "#new_token":
		return keyNewToken
	case "#cached-token", "#cached_token":
		return keyCached
	case "largest-len":
		return keyLargest
	case "#pending-token":
		return keyPending
	}
	return keyNone
}

// parseFields parses the sep-separated "key: value" fields of a batch line
// into s, with v as the fields' backing; the key drop, which the line's
// form gives another meaning (form.drop), is passed over. Mapped keys
// (keyIDOf) must carry a well-formed number; other keys are passed over,
// with any separated pieces of their values. When a mapped key repeats,
// the first value counts. It returns the needs the fields met.
func parseFields(body, sep []byte, drop keyID, s *schema.EngineSample, v *batchValues) (fieldFlags, needs, error) {
	var marks uint16
	fields := enginelog.NewFieldsSep(body, sep)
	for fields.Next() {
		id := keyIDOf(fields.Key())
		if id == drop {
			id = keyNone
		}
		k := &batchKeys[id]
		marks |= k.marks
		switch {
		case k.num != samplefield.NoFloat:
			if p := k.num.Of(s); *p == nil {
				val := fields.Val()
				if k.percent {
					if len(val) == 0 || val[len(val)-1] != '%' {
						return fieldFlags{}, 0, fields.ValueErr(len(val), fmt.Errorf("want \"%%\" after the number, got %q", val))
					}
					val = val[:len(val)-1]
				}
				parse := enginelog.ParseNumber
				if k.percent {
					parse = enginelog.ParsePercent
				}
				x, err := parse(val)
				if err != nil {
					return fieldFlags{}, 0, fields.ValueErr(0, err)
				}
				v.num[k.num] = x
				*p = &v.num[k.num]
			}
		case k.cnt != samplefield.NoCount:
			if p := k.cnt.Of(s); *p == nil {
				n, ok := enginelog.ParseUint(fields.Val())
				if !ok {
					return fieldFlags{}, 0, fields.ValueErr(0, fmt.Errorf("malformed count %q", fields.Val()))
				}
				v.cnt[k.cnt] = n
				*p = &v.cnt[k.cnt]
			}
		default:
			fields.Skip()
		}
	}
	fl := fieldFlags{largestLen: marks&markLargestLen != 0, newest: marks&markNewest != 0}
	return fl, needs(marks), fields.Err()
}

// lacking returns a *textpos.Reason at offset end naming the fields of want a
// batch line lacks (seen), nil when it has them all.
func lacking(want, seen needs, end int) error {
	if want&^seen == 0 {
		return nil
	}
	var names []string
	for i, name := range needNames {
		if bit := needs(1) << i; want&bit != 0 && seen&bit == 0 {
			names = append(names, strconv.Quote(name))
		}
	}
	if names == nil {
		return nil
	}
	return textpos.Reasonf(end, nil, "missing %s: the line is cut or damaged", strings.Join(names, ", "))
}
