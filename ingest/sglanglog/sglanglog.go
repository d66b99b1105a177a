// Package sglanglog reads an SGLang engine log (the stdout and stderr of
// `sglang.launch_server`) and yields its "Prefill batch" and "Decode batch"
// lines as engine samples.
//
// It reads the lines as SGLang prints them: the header of configure_logger
// in sglang/srt/utils.py, "[YYYY-MM-DD HH:MM:SS(.mmm)? TAGS] message" with
// rank tags in any order, "[HH:MM:SS TAGS]" before late 2024 (the date
// from the run's start, rolling over midnight), and one custom logging
// config's header (header.go); behind what enginelog takes off the front
// (colour codes, the wrappers of log collectors, and here at most one
// process prefix, Ray's "(SGLangEngine pid=N, ip=A)"), or after text glued
// in front on the same line. The batch lines are the scheduler's
// (sglang/srt/managers/scheduler.py, later scheduler_metrics_mixin.py):
// "batch." and "batch," with an optional " [ITER]", "Prefill
// batch(mixed #running-req: N).", mid-2024's "[gpu_id=N] " in front, with
// or without a trailing comma, fields in any order and unknown fields
// passed over; and SGLang 0.1's "new fill batch." and nameless decode
// lines (locate.go). A batch line must carry the fields its form always
// has (batch.go); one that does not is cut or damaged, a positioned error.
//
// A batch line with no time at all (SGLang 0.1 printed no header; pasted
// messages lose theirs) gives no sample and is counted in Info.Untimed,
// unless a wrapper stamps it with its zone (a container's RFC 3339 stamp):
// the engine's own clock is taken whenever the line has one, the wrapper's
// only then. Of the ranks that print copies of one batch, the lines of
// the lowest pipeline stage and attention context-parallel rank present
// (and, without a DP tag, the lowest TP rank) are kept, stage 0 and rank 0
// when the log has them, and the others counted in Info.Repeats
// (ranks.go); each data-parallel rank is a replica of its own, kept,
// with its DP rank as the sample's EngineIndex. Lines are parsed by hand,
// without regular expressions, because logs can be large.
package sglanglog

import (
	"bytes"
	"io"
	"math"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/samplefield"
	"github.com/outlast-dev/outlast/schema"
)

// Options says how to place the log's timestamps on the run's clock.
type Options = enginelog.Options

// Dialect names reported in Info.Format, decided by the newest marker seen
// anywhere in the log (see Info.Format).
const (
	FormatBase = "sglang"      // SGLang headers but no batch line or dated marker
	Format01   = "sglang-0.1"  // "new fill batch." or a nameless decode line, without headers (2024 until May)
	Format03   = "sglang-0.3"  // "[HH:MM:SS]" headers without a date (v0.2 to v0.3.x, until late 2024)
	Format04   = "sglang-0.4"  // "Prefill batch." / "Decode batch." or "largest-len" (v0.4.x-v0.5.3, up to 2025-10-23)
	Format05   = "sglang-0.5"  // "batch," or "batch [N]," with a trailing comma (2025-10-23 to 2026-01-29)
	Format2026 = "sglang-2026" // "batch," without trailing comma, "#pending-token", or "KV Cache is allocated. dtype:" (2026-01-30 on)
)

// Dialect ranks, oldest first; the highest seen names the dialect.
const (
	rankNone = iota
	rankBase
	rank01
	rank03
	rank04
	rank05
	rank2026
)

// Info is what a reader learned besides the samples. Its Format is the
// name of the newest dialect marker seen (FormatBase ... Format2026), ""
// if no SGLang header or batch line was seen at all. Its KVPoolTokens is the first
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
	h        header // the current line's, and its batch line
	bt       batch
	// everyLine yields what a line holds whatever the other lines: every
	// rank's copy of a batch, and a line with no time as a sample at a
	// NaN time (the real-lines corpus test reads lines one by one).
	everyLine bool
	// kept is, per data-parallel group, the rank whose copies of the
	// group's batches are kept (ranks.go).
	kept map[int32]*keptRank
}

// NewReader returns a reader of the SGLang log in lr.
func NewReader(lr *lineio.Reader, opt Options) *Reader {
	return &Reader{
		in:      enginelog.NewLines(lr, opt),
		dialect: enginelog.NewDialect("", FormatBase, Format01, Format03, Format04, Format05, Format2026),
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
	in.Notes = r.rankNotes()
	return in
}

// Next returns the next sample: a schema.EngineSample with Source
// schema.SourceLog, Kind schema.LinePrefill or schema.LineDecode, TS in
// seconds since T0, EngineIndex the DP rank (0 without a DP tag) and Line
// the 1-based line number. It returns io.EOF at the end, and a
// *textpos.ParseError for a batch or KV-pool line it cannot parse (a
// malformed number, a field that is not "key: value", a field the line's
// form always carries missing); the reader then goes on with the next
// line. Other engine output (startup chatter, uvicorn access lines,
// tracebacks) is read and passed over.
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
		var s schema.EngineSample
		ok, err := r.readLine(&line, &s)
		if err != nil || ok {
			return s, err
		}
	}
	return schema.EngineSample{}, io.EOF
}

var (
	maxTotalKey  = []byte("max_total_num_tokens=")
	allocatedMsg = []byte("KV Cache is allocated.")
)

// readLine parses one line into s; ok reports a sample. The header and
// the batch line are taken apart in the reader's h and bt, and the sample
// is built in place, because copying them from function to function for
// every line costs a good share of the reader's time.
func (r *Reader) readLine(l *enginelog.Line, s *schema.EngineSample) (ok bool, err error) {
	h, bt := &r.h, &r.bt
	var hok bool
	if *h, hok = parseHeader(l, l.Start); !hok && r.in.Uncolour(l) {
		*h, hok = parseHeader(l, l.Start)
	}
	var ts float64
	if hok {
		ts = r.saw(l, h)
		at := h.msg + gpuID(l.Text[h.msg:])
		msg := l.Text[at:]
		switch {
		case bytes.HasPrefix(msg, maxTotalKey):
			return false, r.maxTotalLine(l, at)
		case bytes.HasPrefix(msg, allocatedMsg):
			return false, r.allocatedLine(l, at)
		}
		if !findBatch(l.Text, at, bt) {
			return false, nil
		}
	} else {
		// The KV pool's lines are startup facts, true whatever the time:
		// read also where the header is lost (a paste) or the line is
		// glued on after other output. Without a header the line may be
		// anyone's (a traceback quoting the argument): only a key that
		// begins a word and a value that reads are taken, and a line that
		// does not read is passed over, not an error.
		rest := l.Text[l.Start:]
		if k := bytes.Index(rest, maxTotalKey); k >= 0 && (k == 0 || rest[k-1] == ' ') {
			r.maxTotalLine(l, l.Start+k)
			return false, nil
		}
		if k := bytes.Index(rest, allocatedMsg); k >= 0 && (k == 0 || rest[k-1] == ' ') {
			r.allocatedLine(l, l.Start+k)
			return false, nil
		}
		var glued bool
		if hok, glued, ok = batchElsewhere(l, h, bt); !ok {
			return false, nil
		}
		if glued {
			r.in.Info.Glued++
			ts = r.saw(l, h)
		}
	}
	return r.batchLine(l, h, hok, ts, bt, s)
}

// saw records a header: the log is SGLang's, and the line has the time it
// returns, in seconds since T0.
func (r *Reader) saw(l *enginelog.Line, h *header) float64 {
	r.dialect.Saw(rankBase)
	if h.timeOnly {
		r.dialect.Saw(rank03)
		return r.in.Stamp(l, r.in.Clock.TimeOnly(h.Stamp))
	}
	return r.in.Stamp(l, r.in.Clock.Date(h.Stamp))
}

// batchLine reads the batch line bt of l, whose header h, at ts, is valid
// when hok, into s; ok reports a sample.
func (r *Reader) batchLine(l *enginelog.Line, h *header, hok bool, ts float64, bt *batch, s *schema.EngineSample) (bool, error) {
	r.in.Info.SampleLines++
	if bt.end <= bt.fields {
		return false, l.Errorf(bt.fields, "%s: no fields: the line is cut or damaged", bt.form.what)
	}
	*s = schema.EngineSample{
		TS:          ts,
		Source:      schema.SourceLog,
		Kind:        bt.form.kind,
		EngineIndex: h.ranks.dp,
		Line:        int64(l.Pos.Line),
	}
	v := r.slab.New()
	fl, seen, err := parseFields(l.Text[bt.fields:bt.end], bt.form.sep, bt.form.drop, s, v)
	if err != nil {
		return false, l.FieldsErr(bt.fields, err, bt.form.what)
	}
	if bt.mixed >= 0 && s.Running == nil {
		v.num[samplefield.Running] = float64(bt.mixed)
		s.Running, seen = &v.num[samplefield.Running], seen|needRunning
	}
	if err := lacking(bt.form.needs, seen, bt.end-bt.fields); err != nil {
		return false, l.FieldsErr(bt.fields, err, bt.form.what)
	}
	r.sawBatch(h, hok, bt, fl)

	if !hok {
		wt, timed := l.WrapperTime()
		if !timed {
			r.in.Info.Untimed++
			s.TS = math.NaN()
			return r.everyLine, nil
		}
		s.TS = r.in.Stamp(l, wt)
	}
	if hok && !r.keep(&h.ranks, l.Text[h.ranks.at:h.ranks.end], s) {
		r.in.Info.Repeats++
		return r.everyLine, nil
	}
	return true, nil
}

// sawBatch records what a batch line tells about the log's dialect.
func (r *Reader) sawBatch(h *header, hok bool, bt *batch, fl fieldFlags) {
	switch {
	case bt.form.rank != 0:
		r.dialect.Saw(bt.form.rank)
	case fl.newest:
		r.dialect.Saw(rank2026)
	case bt.punct == '.' && hok && h.timeOnly:
		r.dialect.Saw(rank03)
	case bt.punct == '.' || fl.largestLen:
		r.dialect.Saw(rank04)
	case bt.trailing:
		r.dialect.Saw(rank05)
	default:
		r.dialect.Saw(rank2026)
	}
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
