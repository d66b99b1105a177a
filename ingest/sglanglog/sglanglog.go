// Package sglanglog reads an SGLang engine log (the stdout and stderr of
// `sglang.launch_server`) and yields its "Prefill batch" and "Decode batch"
// lines as engine samples.
//
// It reads the lines as SGLang prints them: the header of configure_logger
// in sglang/srt/utils.py, "[YYYY-MM-DD HH:MM:SS(.mmm)? TAGS] message" with
// rank tags in any order, behind what enginelog takes off the front (ANSI
// colour, a container stamp, and here at most one process prefix, Ray's
// "(SGLangEngine pid=N, ip=A)"); and the scheduler's batch lines
// (sglang/srt/managers/scheduler.py, later scheduler_metrics_mixin.py),
// "batch." and "batch," with an optional " [ITER]", with or without a
// trailing comma, fields in any order. Lines are parsed by hand, without
// regular expressions, because logs can be large.
package sglanglog

import (
	"bytes"
	"io"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/schema"
)

// Options says how to place the log's timestamps on the run's clock.
type Options = enginelog.Options

// Dialect names reported in Info.Format, decided by the newest marker seen
// anywhere in the log (see Info.Format).
const (
	FormatBase = "sglang"      // SGLang headers but no batch line or dated marker
	Format04   = "sglang-0.4"  // "Prefill batch." / "Decode batch." or "largest-len" (v0.4.x-v0.5.3, up to 2025-10-23)
	Format05   = "sglang-0.5"  // "batch," or "batch [N]," with a trailing comma (2025-10-23 to 2026-01-29)
	Format2026 = "sglang-2026" // "batch," without trailing comma, "#pending-token", or "KV Cache is allocated. dtype:" (2026-01-30 on)
)

// Dialect ranks, oldest first; the highest seen names the dialect.
const (
	rankNone = iota
	rankBase
	rank04
	rank05
	rank2026
)

// Info is what a reader learned besides the samples. Its Format is the
// name of the newest dialect marker seen (FormatBase ... Format2026), ""
// if no SGLang header was seen at all. Its KVPoolTokens is the first
// "max_total_num_tokens=N" (the scheduler's authoritative pool size);
// without it, the first "KV Cache is allocated ... #tokens: N" (a per-rank
// pool).
type Info = enginelog.Info

// Reader yields the samples of one SGLang log in line order.
type Reader struct {
	in       enginelog.Lines
	dialect  enginelog.Dialect
	maxTotal int64                       // max_total_num_tokens=
	allocTok int64                       // KV Cache is allocated ... #tokens:
	slab     enginelog.Slab[batchValues] // backing for samples' fields
	ended    bool
}

// NewReader returns a reader of the SGLang log in lr.
func NewReader(lr *lineio.Reader, opt Options) *Reader {
	return &Reader{
		in:      enginelog.NewLines(lr, opt),
		dialect: enginelog.NewDialect("", FormatBase, Format04, Format05, Format2026),
		slab:    enginelog.NewSlab[batchValues](256),
	}
}

// Info returns what the reader learned so far; call it after Next has
// returned io.EOF for the whole log's figures.
func (r *Reader) Info() Info {
	in := r.in.Summary()
	in.Format = r.dialect.Name()
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
		line, ok := r.in.Next()
		if !ok {
			r.ended = true
			if err := r.in.Err(); err != nil {
				return schema.EngineSample{}, err
			}
			break
		}
		s, ok, err := r.readLine(&line)
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
func (r *Reader) readLine(l *enginelog.Line) (s schema.EngineSample, ok bool, err error) {
	h, hok := parseHeader(l)
	if !hok {
		return s, false, nil
	}
	r.dialect.Saw(rankBase)
	ts := r.in.Stamp(l, r.in.Clock.Date(h.Stamp))
	msg := l.Text[h.msg:]
	var kind string
	var rest []byte
	switch {
	case bytes.HasPrefix(msg, prefillBatch):
		kind, rest = schema.LinePrefill, msg[len(prefillBatch):]
	case bytes.HasPrefix(msg, decodeBatch):
		kind, rest = schema.LineDecode, msg[len(decodeBatch):]
	case bytes.HasPrefix(msg, maxTotalKey):
		return s, false, r.maxTotalLine(l, h.msg)
	case bytes.HasPrefix(msg, allocatedMsg):
		return s, false, r.allocatedLine(l, h.msg)
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
	r.in.Info.SampleLines++
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
	start = enginelog.SkipSpaces(msg[:end], start)
	rest = msg[start:end]
	if len(rest) == 0 {
		return schema.EngineSample{}, false, l.Errorf(h.msg+min(punctAt+1, len(msg)), "SGLang %s batch line: no fields", kind)
	}
	s = schema.EngineSample{
		TS:          ts,
		Source:      schema.SourceLog,
		Kind:        kind,
		EngineIndex: h.dp,
		Line:        int64(l.Pos.Line),
	}
	// A ", " left at the end (a line ending in ", ,") is not followed by
	// an empty field.
	fl, ferr := parseFields(bytes.TrimSuffix(rest, []byte(", ")), &s, r.slab.New())
	if ferr != nil {
		return schema.EngineSample{}, false, l.FieldsErr(h.msg+start, ferr, "SGLang "+kind+" batch line")
	}
	switch {
	case fl.newest:
		r.dialect.Saw(rank2026)
	case punct == '.' || fl.largestLen:
		r.dialect.Saw(rank04)
	case trailing:
		r.dialect.Saw(rank05)
	default:
		r.dialect.Saw(rank2026)
	}
	return s, true, nil
}

// maxTotalLine reads "max_total_num_tokens=N, chunked_prefill_size=...",
// the message of l at offset at.
func (r *Reader) maxTotalLine(l *enginelog.Line, at int) error {
	v := l.Text[at+len(maxTotalKey):]
	if i := bytes.IndexByte(v, ','); i >= 0 {
		v = v[:i]
	}
	n, ok := enginelog.ParseUint(v)
	if !ok {
		return l.Errorf(at+len(maxTotalKey), "SGLang max_total_num_tokens: malformed number %q", v)
	}
	if r.maxTotal == 0 {
		r.maxTotal = n
	}
	return nil
}

// allocatedLine reads "KV Cache is allocated.( dtype: D,)? #tokens: N, ...",
// the message of l at offset at.
func (r *Reader) allocatedLine(l *enginelog.Line, at int) error {
	rest := l.Text[at+len(allocatedMsg):]
	if bytes.HasPrefix(rest, []byte(" dtype: ")) {
		r.dialect.Saw(rank2026) // added 2026-05-24
	}
	i := bytes.Index(rest, []byte("#tokens: "))
	if i < 0 {
		return l.Errorf(at+len(allocatedMsg), "SGLang KV cache allocation line: no \"#tokens: N\"")
	}
	v := rest[i+len("#tokens: "):]
	if j := bytes.IndexByte(v, ','); j >= 0 {
		v = v[:j]
	}
	n, ok := enginelog.ParseUint(v)
	if !ok {
		return l.Errorf(at+len(allocatedMsg)+i+len("#tokens: "), "SGLang KV cache allocation line: malformed #tokens %q", v)
	}
	if r.allocTok == 0 {
		r.allocTok = n
	}
	return nil
}
