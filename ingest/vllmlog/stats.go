package vllmlog

import (
	"bytes"
	"fmt"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/ingest/internal/samplefield"
	"github.com/outlast-dev/outlast/schema"
)

// engineTag is the engine a stats line speaks for.
type engineTag struct {
	index    int32 // "Engine NNN" index; -1 for "N Engines Aggregated"
	explicit bool  // the line carried "Engine NNN: "
}

var (
	enginePrefix = []byte("Engine ")
	aggregated   = []byte(" Engines Aggregated: ")
	statsStart1  = []byte("Avg prompt throughput: ")
	statsStart2  = []byte("Running: ")
)

// statsBody reports whether msg is a stats line and returns its fields part
// after any engine prefix.
func statsBody(msg []byte) ([]byte, engineTag, bool) {
	var tag engineTag
	body := msg
	if rest, ok := bytes.CutPrefix(msg, enginePrefix); ok {
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 0 || n > 9 || !bytes.HasPrefix(rest[n:], []byte(": ")) {
			return nil, tag, false
		}
		idx, _ := enginelog.ParseUint(rest[:n])
		tag = engineTag{index: int32(idx), explicit: true}
		body = rest[n+2:]
	} else if len(msg) > 0 && msg[0] >= '0' && msg[0] <= '9' {
		n := 0
		for n < len(msg) && msg[n] >= '0' && msg[n] <= '9' {
			n++
		}
		if !bytes.HasPrefix(msg[n:], aggregated) {
			return nil, tag, false
		}
		tag = engineTag{index: -1, explicit: true}
		body = msg[n+len(aggregated):]
	}
	if !bytes.HasPrefix(body, statsStart1) && !bytes.HasPrefix(body, statsStart2) {
		return nil, tag, false
	}
	return body, tag, true
}

// statsFlags is what a stats line tells about the log's dialect.
type statsFlags struct {
	v0   bool // the V0 engine's line (Swapped / Pending / CPU KV cache usage)
	rank int
}

// statsValues backs a sample's optional fields.
type statsValues [samplefield.NumLogFloats]float64

// unit is what follows a field's number.
type unit uint8

const (
	unitNone unit = iota
	unitTokensPerS
	unitReqs
	unitPercent
)

// String returns the unit as printed.
func (u unit) String() string { return [...]string{"", "tokens/s", "reqs", "%"}[u] }

// statsKey is what a key of a stats line means.
type statsKey struct {
	unit  unit
	field samplefield.Float // the sample field it feeds
	statsFlags
}

// statsKeyOf returns what key means, and false for a key this reader
// does not know. A switch, not a map: there is one lookup per field, and a
// map's is several times slower.
func statsKeyOf(key []byte) (statsKey, bool) {
	switch string(key) {
	case "Avg prompt throughput":
		return statsKey{unit: unitTokensPerS, field: samplefield.PromptTput}, true
	case "Avg generation throughput":
		return statsKey{unit: unitTokensPerS, field: samplefield.GenTput}, true
	case "Running":
		return statsKey{unit: unitReqs, field: samplefield.Running}, true
	case "Waiting":
		return statsKey{unit: unitReqs, field: samplefield.Waiting}, true
	case "Pending": // V0's name for the waiting queue
		return statsKey{unit: unitReqs, field: samplefield.Waiting, statsFlags: statsFlags{v0: true}}, true
	case "Swapped":
		return statsKey{unit: unitReqs, statsFlags: statsFlags{v0: true}}, true
	case "CPU KV cache usage":
		return statsKey{unit: unitPercent, statsFlags: statsFlags{v0: true}}, true
	case "Preemptions":
		return statsKey{field: samplefield.Preemptions, statsFlags: statsFlags{rank: rank010}}, true
	case "GPU KV cache usage":
		return statsKey{unit: unitPercent, field: samplefield.KVUsage}, true
	case "Prefix cache hit rate":
		return statsKey{unit: unitPercent, field: samplefield.LoggedHitRate}, true
	case "Deferred":
		return statsKey{unit: unitReqs, statsFlags: statsFlags{rank: rank2026}}, true
	case "Corrupted":
		return statsKey{unit: unitReqs, statsFlags: statsFlags{rank: rank010}}, true
	case "External prefix cache hit rate", "MM cache hit rate":
		return statsKey{unit: unitPercent, statsFlags: statsFlags{rank: rank010}}, true
	}
	return statsKey{}, false
}

// parseStats parses the ", "-separated "Key: value unit" fields of a stats
// line into s, with v as the fields' backing. Known keys (statsKeyOf) must
// carry a well-formed number and their unit; unknown keys (newer optional
// fields) are passed over, with any ", "-separated pieces of their values.
func parseStats(body []byte, s *schema.EngineSample, v *statsValues) (statsFlags, error) {
	var fl statsFlags
	// The V0 line ends with a period after its last "%".
	if n := len(body); n >= 2 && body[n-1] == '.' && body[n-2] == '%' {
		body = body[:n-1]
	}
	fields := enginelog.NewFields(body)
	for fields.Next() {
		k, known := statsKeyOf(fields.Key())
		if !known {
			fields.Skip()
			continue
		}
		fl.v0 = fl.v0 || k.v0
		fl.rank = max(fl.rank, k.rank)
		x, at, err := numberWithUnit(fields.Val(), k.unit)
		if err != nil {
			return fl, fields.ValueErr(at, err)
		}
		if k.field != samplefield.NoFloat {
			v[k.field] = x
			*k.field.Of(s) = &v[k.field]
		}
	}
	if err := fields.Err(); err != nil {
		return fl, err
	}
	if s.KVUsage != nil {
		*s.KVUsage /= 100
	}
	if s.LoggedHitRate != nil {
		*s.LoggedHitRate /= 100
	}
	return fl, nil
}

// numberWithUnit parses "12.5 tokens/s", "3 reqs", "0    reqs", "18.4%" or,
// with unitNone, a bare number. It returns the byte offset of a problem.
func numberWithUnit(val []byte, u unit) (float64, int, error) {
	n := 0
	for n < len(val) && val[n] != ' ' && val[n] != '%' {
		n++
	}
	x, err := enginelog.ParseNumber(val[:n])
	if err != nil {
		return 0, 0, err
	}
	rest := val[n:]
	switch u {
	case unitNone:
		if len(rest) != 0 {
			return 0, n, fmt.Errorf("unexpected %q after the number", rest)
		}
	case unitPercent:
		if string(rest) != "%" {
			return 0, n, fmt.Errorf("want \"%%\" after the number, got %q", rest)
		}
	default:
		t := enginelog.SkipSpaces(rest, 0)
		if t == 0 || string(rest[t:]) != u.String() {
			return 0, n, fmt.Errorf("want %q after the number, got %q", u, rest)
		}
	}
	return x, 0, nil
}

// percentField parses "41.30%" up to the next ", " (the V0 hit-rate line).
func percentField(b []byte) (float64, int, error) {
	if i := bytes.Index(b, []byte(", ")); i >= 0 {
		b = b[:i]
	}
	return numberWithUnit(b, unitPercent)
}

// parseThousands parses "400,000" or "400000".
func parseThousands(b []byte) (int64, bool) {
	var n int64
	digits := 0
	group := -1 // digits since the last comma; -1 before the first comma
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			if digits >= 18 {
				return 0, false
			}
			n = n*10 + int64(c-'0')
			digits++
			if group >= 0 {
				group++
			}
		case c == ',':
			if digits == 0 || (group >= 0 && group != 3) || (group < 0 && digits > 3) {
				return 0, false
			}
			group = 0
		default:
			return 0, false
		}
	}
	if digits == 0 || (group >= 0 && group != 3) {
		return 0, false
	}
	return n, true
}
