package vllmlog

import (
	"bytes"
	"fmt"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
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
type statsValues struct {
	running, waiting, kv, hit, prompt, gen, preempt float64
}

// parseStats parses the ", "-separated "Key: value unit" fields of a stats
// line into s, with v as the fields' backing. Known keys must carry a
// well-formed number and their unit; unknown keys (newer optional fields)
// are passed over, with any ", "-separated pieces of their values.
func parseStats(body []byte, s *schema.EngineSample, v *statsValues) (statsFlags, error) {
	var fl statsFlags
	// The V0 line ends with a period after its last "%".
	if n := len(body); n >= 2 && body[n-1] == '.' && body[n-2] == '%' {
		body = body[:n-1]
	}
	off := 0
	afterUnknown := false // the previous field's key was not known
	for off <= len(body) {
		end := bytes.Index(body[off:], []byte(", "))
		if end < 0 {
			end = len(body) - off
		}
		field := body[off : off+end]
		colon := bytes.Index(field, []byte(": "))
		if colon < 0 {
			if afterUnknown {
				// A newer field whose value holds ", " (a list).
				off += end + 2
				continue
			}
			return fl, &enginelog.FieldError{Off: off, Err: fmt.Errorf("field %q is not \"key: value\"", field)}
		}
		afterUnknown = false
		key, val := field[:colon], field[colon+2:]
		voff := off + colon + 2
		var dst *float64
		var unit string
		switch string(key) {
		case "Avg prompt throughput":
			dst, unit = &v.prompt, "tokens/s"
			s.PromptTput = dst
		case "Avg generation throughput":
			dst, unit = &v.gen, "tokens/s"
			s.GenTput = dst
		case "Running":
			dst, unit = &v.running, "reqs"
			s.Running = dst
		case "Waiting":
			dst, unit = &v.waiting, "reqs"
			s.Waiting = dst
		case "Pending": // V0's name for the waiting queue
			dst, unit = &v.waiting, "reqs"
			s.Waiting = dst
			fl.v0 = true
		case "Swapped":
			unit = "reqs"
			fl.v0 = true
		case "CPU KV cache usage":
			unit = "%"
			fl.v0 = true
		case "Preemptions":
			dst = &v.preempt
			s.Preemptions = dst
			fl.rank = max(fl.rank, rank010)
		case "GPU KV cache usage":
			dst, unit = &v.kv, "%"
			s.KVUsage = dst
		case "Prefix cache hit rate":
			dst, unit = &v.hit, "%"
			s.LoggedHitRate = dst
		case "Deferred":
			unit = "reqs"
			fl.rank = max(fl.rank, rank2026)
		case "Corrupted":
			unit = "reqs"
			fl.rank = max(fl.rank, rank010)
		case "External prefix cache hit rate", "MM cache hit rate":
			unit = "%"
			fl.rank = max(fl.rank, rank010)
		default:
			afterUnknown = true
			off += end + 2
			continue
		}
		x, boff, err := numberWithUnit(val, unit)
		if err != nil {
			return fl, &enginelog.FieldError{Off: voff + boff, Err: fmt.Errorf("%s: %w", key, err)}
		}
		if dst != nil {
			*dst = x
		}
		off += end + 2
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
// with an empty unit, a bare number. It returns the byte offset of a problem.
func numberWithUnit(val []byte, unit string) (float64, int, error) {
	n := 0
	for n < len(val) && val[n] != ' ' && val[n] != '%' {
		n++
	}
	x, err := enginelog.ParseNumber(val[:n])
	if err != nil {
		return 0, 0, err
	}
	rest := val[n:]
	switch unit {
	case "":
		if len(rest) != 0 {
			return 0, n, fmt.Errorf("unexpected %q after the number", rest)
		}
	case "%":
		if string(rest) != "%" {
			return 0, n, fmt.Errorf("want \"%%\" after the number, got %q", rest)
		}
	default:
		t := enginelog.SkipSpaces(rest, 0)
		if t == 0 || string(rest[t:]) != unit {
			return 0, n, fmt.Errorf("want %q after the number, got %q", unit, rest)
		}
	}
	return x, 0, nil
}

// percentField parses "41.30%" up to the next ", " (the V0 hit-rate line).
func percentField(b []byte) (float64, int, error) {
	if i := bytes.Index(b, []byte(", ")); i >= 0 {
		b = b[:i]
	}
	return numberWithUnit(b, "%")
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
