package vllmlog

import (
	"bytes"
	"fmt"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/ingest/internal/samplefield"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
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

// startsStats reports whether body begins with the first key of a stats
// line (either form), or is that key alone: a line cut right after its
// first key, its trailing space trimmed or not, is a stats line cut short,
// an error, not some other message to pass over.
func startsStats(body []byte) bool {
	for _, k := range [...][]byte{statsStart1, statsStart2} {
		if bytes.HasPrefix(body, k) || bytes.Equal(body, k[:len(k)-1]) {
			return true
		}
	}
	return false
}

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
	if !startsStats(body) {
		return nil, tag, false
	}
	return body, tag, true
}

// statsFlags is what a stats line tells about the log's dialect.
type statsFlags struct {
	v0   bool // the V0 engine's line (Swapped / Pending / CPU KV cache usage)
	rank int
}

// needs are the fields every stats line carries, as bits: Running and the
// waiting queue in every form since the first V1 line ("Running: N reqs,
// Waiting: N reqs"), and the generation throughput wherever the prompt
// throughput stands (vllm/engine/metrics.py, vllm/v1/metrics/loggers.py).
// A line without one is cut or damaged, not a form of vLLM's.
type needs uint8

const (
	needRunning needs = 1 << iota
	needWaiting
	needPrompt // not needed: marks that the generation throughput is
	needGen
)

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
	need needs
}

// statsKeys are the keys this reader knows, by statsKeyID.
var statsKeys = [...]statsKey{
	statsUnknown:     {},
	statsPrompt:      {unit: unitTokensPerS, field: samplefield.PromptTput, need: needPrompt},
	statsGen:         {unit: unitTokensPerS, field: samplefield.GenTput, need: needGen},
	statsRunning:     {unit: unitReqs, field: samplefield.Running, need: needRunning},
	statsWaiting:     {unit: unitReqs, field: samplefield.Waiting, need: needWaiting},
	statsPending:     {unit: unitReqs, field: samplefield.Waiting, statsFlags: statsFlags{v0: true}, need: needWaiting}, // V0's name for the waiting queue
	statsSwapped:     {unit: unitReqs, statsFlags: statsFlags{v0: true}},
	statsCPUKV:       {unit: unitPercent, statsFlags: statsFlags{v0: true}},
	statsPreemptions: {field: samplefield.Preemptions, statsFlags: statsFlags{rank: rank010}},
	statsGPUKV:       {unit: unitPercent, field: samplefield.KVUsage},
	statsHitRate:     {unit: unitPercent, field: samplefield.LoggedHitRate},
	statsDeferred:    {unit: unitReqs, statsFlags: statsFlags{rank: rank2026}},
	statsCorrupted:   {unit: unitReqs, statsFlags: statsFlags{rank: rank010}},
	statsOtherRate:   {unit: unitPercent, statsFlags: statsFlags{rank: rank010}},
}

// statsKeyID names an entry of statsKeys.
type statsKeyID uint8

const (
	statsUnknown statsKeyID = iota
	statsPrompt
	statsGen
	statsRunning
	statsWaiting
	statsPending
	statsSwapped
	statsCPUKV
	statsPreemptions
	statsGPUKV
	statsHitRate
	statsDeferred
	statsCorrupted
	statsOtherRate
)

// statsKeyOf returns what key means, nil for a key this reader does not
// know. A switch, not a map: there is one lookup per field, and a map's is
// several times slower; it returns a small number, not the statsKey,
// which costs as much again.
func statsKeyOf(key []byte) *statsKey {
	if id := statsKeyIDOf(key); id != statsUnknown {
		return &statsKeys[id]
	}
	return nil
}

func statsKeyIDOf(key []byte) statsKeyID {
	switch string(key) {
	case "Avg prompt throughput":
		return statsPrompt
	case "Avg generation throughput":
		return statsGen
	case "Running":
		return statsRunning
	case "Waiting":
		return statsWaiting
	case "Pending":
		return statsPending
	case "Swapped":
		return statsSwapped
	case "CPU KV cache usage":
		return statsCPUKV
	case "Preemptions":
		return statsPreemptions
	case "GPU KV cache usage":
		return statsGPUKV
	case "Prefix cache hit rate":
		return statsHitRate
	case "Deferred":
		return statsDeferred
	case "Corrupted":
		return statsCorrupted
	case "External prefix cache hit rate", "MM cache hit rate":
		return statsOtherRate
	}
	return statsUnknown
}

// parseStats parses the ", "-separated "Key: value unit" fields of a stats
// line into s, with v as the fields' backing. Known keys (statsKeyOf) must
// carry a well-formed number and their unit; unknown keys (newer optional
// fields, patched builds' own) are passed over, with any ", "-separated
// pieces of their values. The fields every stats line carries (needs)
// must be there.
func parseStats(body []byte, s *schema.EngineSample, v *statsValues) (statsFlags, error) {
	var fl statsFlags
	var seen needs
	// The V0 line ends with a period after its last "%".
	if n := len(body); n >= 2 && body[n-1] == '.' && body[n-2] == '%' {
		body = body[:n-1]
	}
	fields := enginelog.NewFields(body)
	for fields.Next() {
		k := statsKeyOf(fields.Key())
		if k == nil {
			fields.Skip()
			continue
		}
		fl.v0 = fl.v0 || k.v0
		fl.rank = max(fl.rank, k.rank)
		seen |= k.need
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
	if seen&(needRunning|needWaiting) != needRunning|needWaiting || seen&needPrompt != 0 && seen&needGen == 0 {
		return fl, missing(seen, len(body))
	}
	return fl, nil
}

// missing returns a *textpos.Reason at offset end naming the first field a
// stats line needs and lacks, nil when it has them all.
func missing(seen needs, end int) error {
	var name string
	switch {
	case seen&needRunning == 0:
		name = "Running"
	case seen&needWaiting == 0:
		name = "Waiting"
	case seen&needPrompt != 0 && seen&needGen == 0:
		name = "Avg generation throughput"
	default:
		return nil
	}
	return textpos.Reasonf(end, nil, "missing %q: the line is cut or damaged", name)
}

// looksLikeStats reports whether b, from a "Running: " on, holds the
// fields of a stats line: "Running: N reqs" and a waiting queue.
func looksLikeStats(b []byte) bool {
	n := len(statsStart2)
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	return n > len(statsStart2) && bytes.HasPrefix(b[n:], []byte(" reqs")) &&
		(bytes.Contains(b, []byte("Waiting: ")) || bytes.Contains(b, []byte("Pending: ")))
}

// numberWithUnit parses "12.5 tokens/s", "3 reqs", "0    reqs", "18.4%" (as
// the fraction 0.184) or, with unitNone, a bare number. It returns the byte
// offset of a problem.
func numberWithUnit(val []byte, u unit) (float64, int, error) {
	n := 0
	for n < len(val) && val[n] != ' ' && val[n] != '%' {
		n++
	}
	parse := enginelog.ParseNumber
	if u == unitPercent {
		parse = enginelog.ParsePercent
	}
	x, err := parse(val[:n])
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
			return 0, n, unitErr(rest, "%")
		}
	default:
		t := enginelog.SkipSpaces(rest, 0)
		if t == 0 || string(rest[t:]) != u.String() {
			return 0, n, unitErr(rest, u.String())
		}
	}
	return x, 0, nil
}

// unitErr describes what follows a number, rest, where unit alone was
// wanted: text after a whole unit (a line cut after its comma, "0 reqs,")
// is named as what is extra, not as a wrong unit.
func unitErr(rest []byte, unit string) error {
	t := enginelog.SkipSpaces(rest, 0)
	if t <= 1 && len(rest) > t+len(unit) && string(rest[t:t+len(unit)]) == unit {
		return fmt.Errorf("unexpected %q after %q: the line is cut or damaged", rest[t+len(unit):], unit)
	}
	return fmt.Errorf("want %q after the number, got %q", unit, rest)
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
