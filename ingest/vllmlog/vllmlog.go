// Package vllmlog reads a vLLM engine log (the stdout and stderr of `vllm
// serve`) and yields its periodic stats lines as engine samples.
//
// It accepts every line shape of reference/engine-log-formats.md Part A:
// ANSI colour, an optional container RFC 3339 stamp in front, any number of
// "(Name pid=N)" process prefixes, the header with or without "[", the V1
// stats line with or without "Engine NNN: " or "N Engines Aggregated: ",
// optional fields in any position, and the V0 engine's stats line followed
// by its separate prefix-cache line. Lines are parsed by hand, without
// regular expressions, because logs can be large.
package vllmlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/outlast-dev/outlast/textpos"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/logscan"
	"github.com/outlast-dev/outlast/schema"
)

// Options says how to place the log's timestamps on the run's clock.
type Options struct {
	// T0 is the run's t=0 (the manifest's started_at). It must be set:
	// vLLM's stamps have no year, so the first stamp takes the year that
	// puts it nearest T0, and later stamps roll over Dec->Jan from there.
	T0 time.Time
	// Loc is the zone of the log's timestamps (manifest engine.log_tz);
	// nil means UTC.
	Loc *time.Location
}

// Dialect names reported in Info.Format. Each is decided by the newest
// marker seen anywhere in the log (see Info.Format).
const (
	FormatV0   = "vllm-v0"   // a V0-engine stats line (Swapped, Pending), VLLM_USE_V1=0
	Format07   = "vllm-0.7"  // header without "[" (before 2025-02-24)
	Format08   = "vllm-0.8"  // "[file:line]" header; stats lines without "Engine NNN: " (0.8.0-0.8.2)
	Format09   = "vllm-0.9"  // stats lines with "Engine NNN: " but no APIServer prefix (0.8.3-0.10.0)
	Format010  = "vllm-0.10" // "(APIServer pid=N)" or "(EngineCore_DPn pid=N)" prefixes, or 0.11-0.12 fields (0.10.1 to early 2026)
	Format2026 = "vllm-2026" // a 2026-only marker: "(EngineCore pid=N)", the merged KV-size line, or "Deferred:"
)

// Dialect ranks, oldest first; the highest seen names the dialect.
const (
	rankNone = iota
	rank07
	rank08
	rank09
	rank010
	rank2026
)

var rankNames = [...]string{"", Format07, Format08, Format09, Format010, Format2026}

// maxDaysBack is how far a stamp may fall before the previous one without
// being taken as the next year: lines of different processes are slightly
// out of order, a Dec->Jan rollover goes back by about a year.
const maxDaysBack = 183

// Info is what a reader learned besides the samples.
type Info struct {
	// Format is the dialect recognised: FormatV0 if any V0-engine stats
	// line was seen, else the name of the newest marker seen (Format07 ...
	// Format2026), "" if no vLLM header was seen at all. A log from 2026
	// that shows no 2026-only marker is reported by its older markers.
	Format string
	// KVPoolTokens is the first "GPU KV cache size: N tokens" value (the
	// separate or the merged startup line); 0 if none.
	KVPoolTokens int64
	Lines        int // lines read
	// SampleLines counts the stats lines recognised, including those that
	// gave a parse error.
	SampleLines int
	// FirstS and LastS are the earliest and latest time, in seconds since
	// T0, of any line with a vLLM header; NaN if there was none.
	FirstS, LastS float64
}

// Reader yields the samples of one vLLM log in line order.
type Reader struct {
	lr   *lineio.Reader
	t0   time.Time
	loc  *time.Location
	info Info
	rank int
	v0   bool

	year     int // year of the latest stamp, once the first stamp fixed it
	haveYear bool
	prev     time.Time

	// minute caches the start of a stamp's minute, because time.Date is a
	// large share of the per-line cost.
	minuteKey  [5]int
	minuteBase time.Time

	slab    []statsValues // backing for samples' fields, handed out in order
	clean   []byte        // the current line with ANSI escapes removed
	queue   []result      // results waiting to be returned, from head on
	head    int
	pending *result // a V0 stats sample waiting for its prefix-cache line
	ended   bool
}

type result struct {
	s   schema.EngineSample
	err error
}

// NewReader returns a reader of the vLLM log in lr.
func NewReader(lr *lineio.Reader, opt Options) *Reader {
	loc := opt.Loc
	if loc == nil {
		loc = time.UTC
	}
	return &Reader{lr: lr, t0: opt.T0, loc: loc, info: Info{FirstS: math.NaN(), LastS: math.NaN()}}
}

// Info returns what the reader learned so far; call it after Next has
// returned io.EOF for the whole log's figures.
func (r *Reader) Info() Info {
	in := r.info
	in.Format = rankNames[r.rank]
	if r.v0 {
		in.Format = FormatV0
	}
	return in
}

// Next returns the next sample: a schema.EngineSample with Source
// schema.SourceLog, Kind schema.LineStats, TS in seconds since T0 and Line
// the 1-based line number. It returns io.EOF at the end, and a
// *textpos.ParseError for a stats or KV-size line it cannot parse (a
// malformed number, a missing unit, a truncated field); the reader then goes
// on with the next line. Other engine output (startup chatter, uvicorn
// access lines, tracebacks) is read and passed over.
func (r *Reader) Next() (schema.EngineSample, error) {
	for {
		if r.head < len(r.queue) {
			res := r.queue[r.head]
			r.head++
			if r.head == len(r.queue) {
				r.queue, r.head = r.queue[:0], 0 // reuse the array
			}
			return res.s, res.err
		}
		if r.ended {
			return schema.EngineSample{}, io.EOF
		}
		if !r.lr.Next() {
			r.ended = true
			r.flushPending()
			if err := r.lr.Err(); err != nil {
				r.queue = append(r.queue, result{err: err})
			}
			continue
		}
		r.info.Lines++
		r.readLine(r.lr.Bytes())
	}
}

func (r *Reader) flushPending() {
	if r.pending != nil {
		r.queue = append(r.queue, *r.pending)
		r.pending = nil
	}
}

// readLine parses one line and queues what it yields.
func (r *Reader) readLine(raw []byte) {
	line := raw
	stripped := false
	if bytes.IndexByte(raw, 0x1b) >= 0 {
		r.clean = logscan.StripANSI(r.clean[:0], raw)
		line, stripped = r.clean, true
	}
	h, ok := parseHeader(line)
	if !ok {
		return
	}
	if h.rank > r.rank {
		r.rank = h.rank
	}
	t := r.resolve(h)
	ts := t.Sub(r.t0).Seconds()
	if math.IsNaN(r.info.FirstS) || ts < r.info.FirstS {
		r.info.FirstS = ts
	}
	if math.IsNaN(r.info.LastS) || ts > r.info.LastS {
		r.info.LastS = ts
	}
	msg := line[h.msg:]
	pos := r.lr.Pos()
	col := func(off int) int {
		if stripped {
			return 0 // offsets in the cleaned line do not match the raw one
		}
		return h.msg + off + 1
	}

	// The V0 engine prints its prefix-cache hit rate on the line after its
	// stats line; attach it, or release the stats sample without it.
	if r.pending != nil {
		if rest, ok := bytes.CutPrefix(msg, []byte("Prefix cache hit rate: GPU: ")); ok {
			p := r.pending
			r.pending = nil
			v, off, err := percentField(rest)
			if err == nil {
				hit := v / 100
				p.s.LoggedHitRate = &hit
			}
			r.queue = append(r.queue, *p)
			if err != nil {
				r.queue = append(r.queue, result{err: parseErr(pos, raw, col(len(msg)-len(rest)+off), "vLLM V0 prefix cache hit rate: %v", err)})
			}
			return
		}
		r.flushPending()
	}

	if bytes.HasPrefix(msg, kvSizePrefix) {
		r.kvSize(msg, pos, raw, col)
		return
	}
	body, engine, isStats := statsBody(msg)
	if !isStats {
		return
	}
	r.info.SampleLines++
	if engine.explicit && r.rank < rank09 {
		r.rank = rank09
	}
	if engine.index < 0 && r.rank < rank010 {
		r.rank = rank010
	}
	s := schema.EngineSample{
		TS:          ts,
		Source:      schema.SourceLog,
		Kind:        schema.LineStats,
		EngineIndex: engine.index,
		Line:        int64(pos.Line),
	}
	off := len(msg) - len(body)
	fl, err := parseStats(body, &s, r.values())
	if err != nil {
		var fe *logscan.FieldError
		c := 0
		if errors.As(err, &fe) {
			c = col(off + fe.Off)
		}
		r.queue = append(r.queue, result{err: parseErr(pos, raw, c, "vLLM stats line: %v", err)})
		return
	}
	if fl.rank > r.rank {
		r.rank = fl.rank
	}
	if fl.v0 {
		r.v0 = true
		r.pending = &result{s: s}
		return
	}
	r.queue = append(r.queue, result{s: s})
}

// values returns fresh backing for one sample's fields. They are carved
// from a slab so that a sample costs no allocation of its own.
func (r *Reader) values() *statsValues {
	if len(r.slab) == 0 {
		r.slab = make([]statsValues, 64)
	}
	v := &r.slab[0]
	r.slab = r.slab[1:]
	return v
}

var (
	kvSizePrefix = []byte("GPU KV cache size: ")
	mergedKV     = []byte(" tokens, Maximum concurrency for ")
)

// kvSize reads "GPU KV cache size: 400,000 tokens" and its merged form.
func (r *Reader) kvSize(msg []byte, pos textpos.Pos, raw []byte, col func(int) int) {
	rest := msg[len(kvSizePrefix):]
	end := bytes.IndexByte(rest, ' ')
	if end < 0 || !bytes.HasPrefix(rest[end:], []byte(" tokens")) {
		r.queue = append(r.queue, result{err: parseErr(pos, raw, col(len(kvSizePrefix)), "vLLM KV cache size line: no \"N tokens\"")})
		return
	}
	n, ok := parseThousands(rest[:end])
	if !ok {
		r.queue = append(r.queue, result{err: parseErr(pos, raw, col(len(kvSizePrefix)), "vLLM KV cache size line: malformed token count %q", rest[:end])})
		return
	}
	if bytes.HasPrefix(rest[end:], mergedKV) && r.rank < rank2026 {
		r.rank = rank2026
	}
	if r.info.KVPoolTokens == 0 {
		r.info.KVPoolTokens = n
	}
}

func parseErr(pos textpos.Pos, raw []byte, col int, format string, args ...any) error {
	e := textpos.Errorf(pos, raw, format, args...)
	e.Column = col
	return e
}

// resolve places a yearless stamp on the calendar: the first stamp takes the
// year nearest T0, later ones keep the year unless the clock went back by
// more than half a year, which is a Dec->Jan rollover.
func (r *Reader) resolve(h header) time.Time {
	at := func(y int) time.Time {
		if key := [5]int{y, h.mon, h.day, h.hour, h.min}; key != r.minuteKey || r.minuteBase.IsZero() {
			r.minuteKey = key
			r.minuteBase = time.Date(y, time.Month(h.mon), h.day, h.hour, h.min, 0, 0, r.loc)
		}
		return r.minuteBase.Add(time.Duration(h.sec) * time.Second)
	}
	if !r.haveYear {
		y0 := r.t0.In(r.loc).Year()
		best := at(y0)
		for _, y := range []int{y0 - 1, y0 + 1} {
			if t := at(y); absDur(t.Sub(r.t0)) < absDur(best.Sub(r.t0)) {
				best = t
			}
		}
		r.year, r.haveYear, r.prev = best.Year(), true, best
		return best
	}
	t := at(r.year)
	if t.Before(r.prev.Add(-maxDaysBack * 24 * time.Hour)) {
		r.year++
		t = at(r.year)
	}
	r.prev = t
	return t
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// Match reports whether line looks like a vLLM log line: a vLLM header
// (level, "MM-DD HH:MM:SS", "[file:line]") after any ANSI colour, container
// stamp and process prefixes. It is meant for sniffing an unknown engine;
// judge by many lines, not one, because an SGLang log can begin with a few
// vLLM-format lines (SGLang imports vLLM).
func Match(line []byte) bool {
	if bytes.IndexByte(line, 0x1b) >= 0 {
		line = logscan.StripANSI(nil, line)
	}
	_, ok := parseHeader(line)
	return ok
}

// header is a parsed vLLM line header.
type header struct {
	mon, day, hour, min, sec int
	msg                      int // offset of the message in the line
	rank                     int // dialect rank the header itself shows
}

var levels = [...][]byte{[]byte("INFO "), []byte("DEBUG "), []byte("WARNING "), []byte("ERROR "), []byte("CRITICAL ")}

// parseHeader parses
//
//	[container-stamp ] [(Name pid=N) ]* LEVEL MM-DD HH:MM:SS [file:line] message
//
// where the "[" is missing before vLLM 0.8.
func parseHeader(b []byte) (header, bool) {
	var h header
	i := logscan.SkipContainerStamp(b)
	for i < len(b) && b[i] == '(' {
		end := bytes.IndexByte(b[i:], ')')
		if end < 0 {
			return h, false
		}
		inner := b[i+1 : i+end]
		p := bytes.Index(inner, []byte(" pid="))
		if p < 0 {
			return h, false
		}
		if r := procRank(inner[:p]); r > h.rank {
			h.rank = r
		}
		i = logscan.SkipSpaces(b, i+end+1)
	}
	lvl := false
	for _, l := range levels {
		if bytes.HasPrefix(b[i:], l) {
			i = logscan.SkipSpaces(b, i+len(l))
			lvl = true
			break
		}
	}
	if !lvl || len(b)-i < 14 {
		return h, false
	}
	st := b[i : i+14]
	if st[2] != '-' || st[5] != ' ' || st[8] != ':' || st[11] != ':' {
		return h, false
	}
	var ok [5]bool
	h.mon, ok[0] = logscan.Two(st[0:2])
	h.day, ok[1] = logscan.Two(st[3:5])
	h.hour, ok[2] = logscan.Two(st[6:8])
	h.min, ok[3] = logscan.Two(st[9:11])
	h.sec, ok[4] = logscan.Two(st[12:14])
	if !(ok[0] && ok[1] && ok[2] && ok[3] && ok[4]) || h.mon < 1 || h.mon > 12 || h.day < 1 || h.day > 31 || h.hour > 23 || h.min > 59 || h.sec > 60 {
		return h, false
	}
	i = logscan.SkipSpaces(b, i+14)
	bracket := i < len(b) && b[i] == '['
	if bracket {
		i++
	}
	// file:line] — the file never holds ':' , ']' or a space.
	j := i
	for j < len(b) && b[j] != ':' && b[j] != ']' && b[j] != ' ' {
		j++
	}
	if j == i || j >= len(b) || b[j] != ':' {
		return h, false
	}
	j++
	k := j
	for k < len(b) && b[k] >= '0' && b[k] <= '9' {
		k++
	}
	if k == j || k >= len(b) || b[k] != ']' {
		return h, false
	}
	h.msg = logscan.SkipSpaces(b, k+1)
	rank := rank07
	if bracket {
		rank = rank08
	}
	if rank > h.rank {
		h.rank = rank
	}
	return h, true
}

// procRank dates a process prefix name (reference A.1).
func procRank(name []byte) int {
	switch {
	case bytes.Equal(name, []byte("EngineCore")):
		return rank2026 // non-DP name since 2026-03-11
	case bytes.Equal(name, []byte("APIServer")), bytes.HasPrefix(name, []byte("EngineCore_DP")), bytes.HasPrefix(name, []byte("Worker")):
		return rank010
	}
	return rankNone
}

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
		idx, _ := logscan.ParseUint(rest[:n])
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
			return fl, &logscan.FieldError{Off: off, Err: fmt.Errorf("field %q is not \"key: value\"", field)}
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
			return fl, &logscan.FieldError{Off: voff + boff, Err: fmt.Errorf("%s: %w", key, err)}
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
	x, err := logscan.ParseNumber(val[:n])
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
		t := logscan.SkipSpaces(rest, 0)
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
