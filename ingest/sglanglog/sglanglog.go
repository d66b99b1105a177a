// Package sglanglog reads an SGLang engine log (the stdout and stderr of
// `sglang.launch_server`) and yields its "Prefill batch" and "Decode batch"
// lines as engine samples.
//
// It accepts every line shape of reference/engine-log-formats.md Part B:
// the "[YYYY-MM-DD HH:MM:SS(.mmm)? TAGS]" header with rank tags in any order,
// an optional Ray "(SGLangEngine pid=N, ip=A)" prefix, ANSI colour and a
// container RFC 3339 stamp in front, "batch." and "batch," with an optional
// " [ITER]", with or without a trailing comma, and fields in any order.
// Lines are parsed by hand, without regular expressions, because logs can be
// large.
package sglanglog

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
	// T0 is the run's t=0 (the manifest's started_at); sample times are
	// seconds since T0.
	T0 time.Time
	// Loc is the zone of the log's timestamps (manifest engine.log_tz);
	// nil means UTC.
	Loc *time.Location
}

// Dialect names reported in Info.Format, decided by the newest marker seen
// anywhere in the log (see Info.Format).
const (
	FormatBase = "sglang"      // SGLang headers but no batch line or dated marker
	Format04   = "sglang-0.4"  // "Prefill batch." / "Decode batch." or "largest-len" (v0.4.x-v0.5.3, up to 2025-10-23)
	Format05   = "sglang-0.5"  // "batch," or "batch [N]," with a trailing comma (2025-10-23 to 2026-01-29)
	Format2026 = "sglang-2026" // "batch," without trailing comma, "#pending-token", or "KV Cache is allocated. dtype:" (2026-01-30 on)
)

const (
	rankNone = iota
	rankBase
	rank04
	rank05
	rank2026
)

var rankNames = [...]string{"", FormatBase, Format04, Format05, Format2026}

// Info is what a reader learned besides the samples.
type Info struct {
	// Format is the name of the newest dialect marker seen (FormatBase ...
	// Format2026); "" if no SGLang header was seen at all.
	Format string
	// KVPoolTokens is the first "max_total_num_tokens=N" (the scheduler's
	// authoritative pool size); without it, the first "KV Cache is
	// allocated ... #tokens: N" (a per-rank pool); 0 if neither was seen.
	KVPoolTokens int64
	Lines        int // lines read
	// SampleLines counts the prefill and decode lines recognised, including
	// those that gave a parse error.
	SampleLines int
	// FirstS and LastS are the earliest and latest time, in seconds since
	// T0, of any line with an SGLang header; NaN if there was none.
	FirstS, LastS float64
}

// Reader yields the samples of one SGLang log in line order.
type Reader struct {
	lr       *lineio.Reader
	t0       time.Time
	loc      *time.Location
	info     Info
	rank     int
	maxTotal int64 // max_total_num_tokens=
	allocTok int64 // KV Cache is allocated ... #tokens:
	clean    []byte
	ended    bool

	// minute caches the start of the latest stamp's minute, because
	// time.Date is a large share of the per-line cost.
	minuteKey  [5]int
	minuteBase time.Time

	slab []batchValues // backing for samples' fields, handed out in order
}

// NewReader returns a reader of the SGLang log in lr.
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
	in.KVPoolTokens = r.maxTotal
	if in.KVPoolTokens == 0 {
		in.KVPoolTokens = r.allocTok
	}
	return in
}

// Next returns the next sample: a schema.EngineSample with Source
// schema.SourceLog, Kind schema.LinePrefill or schema.LineDecode, TS in
// seconds since T0, EngineIndex the DP rank (0 without a DP tag) and Line
// the 1-based line number. It returns io.EOF at the end, and a
// *textpos.ParseError for a batch or KV-pool line it cannot parse (a
// malformed number, a field that is not "key: value"); the reader then goes
// on with the next line. Other engine output (startup chatter, uvicorn
// access lines, tracebacks) is read and passed over.
func (r *Reader) Next() (schema.EngineSample, error) {
	for !r.ended {
		if !r.lr.Next() {
			r.ended = true
			if err := r.lr.Err(); err != nil {
				return schema.EngineSample{}, err
			}
			break
		}
		r.info.Lines++
		s, ok, err := r.readLine(r.lr.Bytes())
		if err != nil || ok {
			return s, err
		}
	}
	return schema.EngineSample{}, io.EOF
}

var (
	prefillBatch = []byte("Prefill batch")
	decodeBatch  = []byte("Decode batch")
	maxTotalKey  = []byte("max_total_num_tokens=")
	allocatedMsg = []byte("KV Cache is allocated.")
)

// readLine parses one line; ok reports a sample.
func (r *Reader) readLine(raw []byte) (s schema.EngineSample, ok bool, err error) {
	line := raw
	stripped := false
	if bytes.IndexByte(raw, 0x1b) >= 0 {
		r.clean = logscan.StripANSI(r.clean[:0], raw)
		line, stripped = r.clean, true
	}
	h, hok := parseHeader(line)
	if !hok {
		return s, false, nil
	}
	if r.rank < rankBase {
		r.rank = rankBase
	}
	if key := [5]int{h.year, h.mon, h.day, h.hour, h.min}; key != r.minuteKey || r.minuteBase.IsZero() {
		r.minuteKey = key
		r.minuteBase = time.Date(h.year, time.Month(h.mon), h.day, h.hour, h.min, 0, 0, r.loc)
	}
	t := r.minuteBase.Add(time.Duration(h.sec)*time.Second + time.Duration(h.nsec))
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
	var kind string
	var rest []byte
	switch {
	case bytes.HasPrefix(msg, prefillBatch):
		kind, rest = schema.LinePrefill, msg[len(prefillBatch):]
	case bytes.HasPrefix(msg, decodeBatch):
		kind, rest = schema.LineDecode, msg[len(decodeBatch):]
	case bytes.HasPrefix(msg, maxTotalKey):
		return s, false, r.maxTotalLine(msg, pos, raw, col)
	case bytes.HasPrefix(msg, allocatedMsg):
		return s, false, r.allocatedLine(msg, pos, raw, col)
	default:
		return s, false, nil
	}
	// "(Prefill|Decode) batch( \[\d+\])?[.,] "
	if n := iterTag(rest); n > 0 {
		rest = rest[n:]
	}
	if len(rest) == 0 || (rest[0] != '.' && rest[0] != ',') || (len(rest) > 1 && rest[1] != ' ') {
		return s, false, nil // another message that begins with these words
	}
	r.info.SampleLines++
	punct, punctAt := rest[0], len(msg)-len(rest)
	// The fields run from start to end of msg, without the punctuation,
	// the blanks around them and a trailing comma.
	start, end := punctAt+1, len(msg)
	for end > start && msg[end-1] == ' ' {
		end--
	}
	trailing := end > start && msg[end-1] == ','
	if trailing {
		end--
	}
	start = logscan.SkipSpaces(msg[:end], start)
	rest = msg[start:end]
	if len(rest) == 0 {
		e := textpos.Errorf(pos, raw, "SGLang %s batch line: no fields", kind)
		e.Column = col(min(punctAt+2, len(msg)))
		return schema.EngineSample{}, false, e
	}
	s = schema.EngineSample{
		TS:          ts,
		Source:      schema.SourceLog,
		Kind:        kind,
		EngineIndex: h.dp,
		Line:        int64(pos.Line),
	}
	fl, ferr := parseFields(rest, &s, r.values())
	if ferr != nil {
		c := 0
		var fe *logscan.FieldError
		if errors.As(ferr, &fe) {
			c = col(start + fe.Off)
		}
		e := textpos.Errorf(pos, raw, "SGLang %s batch line: %v", kind, ferr)
		e.Column = c
		return schema.EngineSample{}, false, e
	}
	var rank int
	switch {
	case fl.newest:
		rank = rank2026
	case punct == '.' || fl.largestLen:
		rank = rank04
	case trailing:
		rank = rank05
	default:
		rank = rank2026
	}
	if rank > r.rank {
		r.rank = rank
	}
	return s, true, nil
}

// values returns fresh backing for one sample's fields. They are carved
// from a slab so that a sample costs no allocation of its own.
func (r *Reader) values() *batchValues {
	if len(r.slab) == 0 {
		r.slab = make([]batchValues, 256)
	}
	v := &r.slab[0]
	r.slab = r.slab[1:]
	return v
}

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

// maxTotalLine reads "max_total_num_tokens=N, chunked_prefill_size=...".
func (r *Reader) maxTotalLine(msg []byte, pos textpos.Pos, raw []byte, col func(int) int) error {
	v := msg[len(maxTotalKey):]
	if i := bytes.IndexByte(v, ','); i >= 0 {
		v = v[:i]
	}
	n, ok := logscan.ParseUint(v)
	if !ok {
		e := textpos.Errorf(pos, raw, "SGLang max_total_num_tokens: malformed number %q", v)
		e.Column = col(len(maxTotalKey))
		return e
	}
	if r.maxTotal == 0 {
		r.maxTotal = n
	}
	return nil
}

// allocatedLine reads "KV Cache is allocated.( dtype: D,)? #tokens: N, ...".
func (r *Reader) allocatedLine(msg []byte, pos textpos.Pos, raw []byte, col func(int) int) error {
	rest := msg[len(allocatedMsg):]
	if bytes.HasPrefix(rest, []byte(" dtype: ")) && r.rank < rank2026 {
		r.rank = rank2026 // added 2026-05-24
	}
	i := bytes.Index(rest, []byte("#tokens: "))
	if i < 0 {
		e := textpos.Errorf(pos, raw, "SGLang KV cache allocation line: no \"#tokens: N\"")
		e.Column = col(len(allocatedMsg))
		return e
	}
	v := rest[i+len("#tokens: "):]
	if j := bytes.IndexByte(v, ','); j >= 0 {
		v = v[:j]
	}
	n, ok := logscan.ParseUint(v)
	if !ok {
		e := textpos.Errorf(pos, raw, "SGLang KV cache allocation line: malformed #tokens %q", v)
		e.Column = col(len(allocatedMsg) + i + len("#tokens: "))
		return e
	}
	if r.allocTok == 0 {
		r.allocTok = n
	}
	return nil
}

// Match reports whether line looks like an SGLang log line: the
// "[YYYY-MM-DD HH:MM:SS ...]" header after any ANSI colour, container stamp
// and Ray prefix. It is meant for sniffing an unknown engine.
func Match(line []byte) bool {
	if bytes.IndexByte(line, 0x1b) >= 0 {
		line = logscan.StripANSI(nil, line)
	}
	_, ok := parseHeader(line)
	return ok
}

// header is a parsed SGLang line header.
type header struct {
	year, mon, day, hour, min, sec, nsec int
	dp                                   int32 // DP rank tag, 0 without one
	msg                                  int   // offset of the message
}

// parseHeader parses
//
//	[container-stamp ][(Name pid=N, ip=A) ][YYYY-MM-DD HH:MM:SS(.fff)?( TAGn)*] message
func parseHeader(b []byte) (header, bool) {
	var h header
	i := logscan.SkipContainerStamp(b)
	if i < len(b) && b[i] == '(' {
		end := bytes.IndexByte(b[i:], ')')
		if end < 0 || bytes.Index(b[i:i+end], []byte(" pid=")) < 0 {
			return h, false
		}
		i = logscan.SkipSpaces(b, i+end+1)
	}
	if len(b)-i < 21 || b[i] != '[' {
		return h, false
	}
	st := b[i+1 : i+20]
	if st[4] != '-' || st[7] != '-' || st[10] != ' ' || st[13] != ':' || st[16] != ':' {
		return h, false
	}
	y1, ok1 := logscan.Two(st[0:2])
	y2, ok2 := logscan.Two(st[2:4])
	var ok [5]bool
	h.mon, ok[0] = logscan.Two(st[5:7])
	h.day, ok[1] = logscan.Two(st[8:10])
	h.hour, ok[2] = logscan.Two(st[11:13])
	h.min, ok[3] = logscan.Two(st[14:16])
	h.sec, ok[4] = logscan.Two(st[17:19])
	if !(ok1 && ok2 && ok[0] && ok[1] && ok[2] && ok[3] && ok[4]) || h.mon < 1 || h.mon > 12 || h.day < 1 || h.day > 31 || h.hour > 23 || h.min > 59 || h.sec > 60 {
		return h, false
	}
	h.year = y1*100 + y2
	j := i + 20
	if j < len(b) && b[j] == '.' {
		j++
		k := j
		scale := int(1e9)
		for k < len(b) && b[k] >= '0' && b[k] <= '9' {
			if scale > 1 {
				scale /= 10
				h.nsec += int(b[k]-'0') * scale
			}
			k++
		}
		if k == j {
			return h, false
		}
		j = k
	}
	// Rank tags: " DP6", " TP0", " ATTN_CP1", in any order.
	for j < len(b) && b[j] == ' ' {
		j++
		k := j
		for k < len(b) && (b[k] >= 'A' && b[k] <= 'Z' || b[k] == '_') {
			k++
		}
		d := k
		for d < len(b) && b[d] >= '0' && b[d] <= '9' {
			d++
		}
		if k == j || d == k || d-k > 9 {
			return h, false
		}
		if string(b[j:k]) == "DP" {
			n, _ := logscan.ParseUint(b[k:d])
			h.dp = int32(n)
		}
		j = d
	}
	if j >= len(b) || b[j] != ']' {
		return h, false
	}
	h.msg = logscan.SkipSpaces(b, j+1)
	return h, true
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
			return fl, &logscan.FieldError{Off: off, Err: fmt.Errorf("field %q is not \"key: value\"", field)}
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
			x, err := logscan.ParseNumber(val)
			if err != nil {
				return fl, &logscan.FieldError{Off: voff, Err: fmt.Errorf("%s: %w", key, err)}
			}
			*fval = x
			*fdst = fval
		case idst != nil && *idst == nil:
			n, ok := logscan.ParseUint(val)
			if !ok {
				return fl, &logscan.FieldError{Off: voff, Err: fmt.Errorf("%s: malformed count %q", key, val)}
			}
			*ival = n
			*idst = ival
		}
		off = next
	}
	return fl, nil
}
