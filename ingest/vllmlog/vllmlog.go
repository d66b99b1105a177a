// Package vllmlog reads a vLLM engine log (the stdout and stderr of `vllm
// serve`) and yields its periodic stats lines as engine samples.
//
// It reads the lines as vLLM prints them: the header of vllm/logger.py
// ("LEVEL MM-DD HH:MM:SS [file:line] message", without the "[" before
// vLLM 0.8; or, where an application gives vLLM's loggers the format of
// Python's logging cookbook, "YYYY-MM-DD HH:MM:SS,mmm - vllm.engine.metrics
// - INFO - message"), behind what enginelog takes off the front (colour codes, also
// with their ESC byte lost; the wrappers of log collectors and launchers;
// any number of "(Name pid=N)" prefixes of vLLM's worker and engine-core
// processes or of Ray's actors), or after text glued in front on the same
// line (a progress bar); the V1 stats line of vllm/v1/metrics/loggers.py
// with or without "Engine NNN: " or "N Engines Aggregated: ", its
// optional and unknown fields in any position; and the V0 engine's stats
// line (vllm/engine/metrics.py, earlier llm_engine.py) followed by its
// separate prefix-cache line, which alone is a sample of its own. A stats
// line must carry Running, the waiting queue and, with the prompt
// throughput, the generation throughput (stats.go); one that does not, or
// whose header is lost (", Running: 10 reqs, ...") or not as vLLM prints
// it ("INFO: 09-04 04:13:45 [loggers.py:273] Engine 001: ..."), is a
// damaged line and a positioned error. Lines are parsed by hand, without regular
// expressions, because logs can be large.
package vllmlog

import (
	"bytes"
	"io"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/samplefield"
	"github.com/outlast-dev/outlast/schema"
)

// Options says how to place the log's timestamps on the run's clock. T0
// must be set: vLLM's stamps have no year, so the first stamp takes the
// year that puts it nearest T0, and later stamps roll over Dec->Jan from
// there.
type Options = enginelog.Options

// Dialect names reported in Info.Format. Each is decided by the newest
// marker seen anywhere in the log (see Info.Format).
const (
	FormatV0   = "vllm-v0"   // a V0-engine stats line (Swapped, Pending), VLLM_USE_V1=0
	FormatBase = "vllm"      // a vLLM line that no marker dates: a stats line without "Engine NNN: " under another logger's header, or none (header.go)
	Format07   = "vllm-0.7"  // header without "[" (before 2025-02-24)
	Format08   = "vllm-0.8"  // "[file:line]" header; stats lines without "Engine NNN: " (0.8.0-0.8.2)
	Format09   = "vllm-0.9"  // stats lines with "Engine NNN: " but no APIServer prefix (0.8.3-0.10.0)
	Format010  = "vllm-0.10" // "(APIServer pid=N)", "(EngineCore_N pid=N)" or "(EngineCore_DPn pid=N)" prefixes, or 0.11-0.12 fields (0.10.1 to early 2026)
	Format2026 = "vllm-2026" // a 2026-only marker: "(EngineCore pid=N)", the merged KV-size line, "Deferred:", or a version built in 2026 (version.go)
)

// Dialect ranks, oldest first; the highest seen names the dialect.
const (
	rankNone = iota
	rankBase
	rank07
	rank08
	rank09
	rank010
	rank2026
)

// Info is what a reader learned besides the samples. Its Format is
// FormatV0 if any V0-engine stats line was seen, else the name of the
// newest marker seen (Format07 ... Format2026), FormatBase for vLLM lines
// that none dates, "" if no vLLM header (nor a stats line timed by its
// wrapper) was seen at all: a log from 2026 that shows no 2026-only marker
// is reported by its older markers. Its KVPoolTokens is the first "GPU KV cache size:
// N tokens" value (the separate or the merged startup line).
type Info = enginelog.Info

// Reader yields the samples of one vLLM log in line order.
type Reader struct {
	in      enginelog.Lines
	dialect enginelog.Dialect
	v0      bool
	kvPool  int64
	slab    enginelog.Slab[statsValues] // backing for samples' fields

	queue   []result // results waiting to be returned, from head on
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
	return &Reader{
		in:      enginelog.NewLines(lr, opt),
		dialect: enginelog.NewDialect("", FormatBase, Format07, Format08, Format09, Format010, Format2026),
		slab:    enginelog.NewSlab[statsValues](64),
	}
}

// Info returns what the reader learned so far; call it after Next has
// returned io.EOF for the whole log's figures.
func (r *Reader) Info() Info {
	in := r.in.Summary()
	in.Format = r.dialect.Name()
	if r.v0 {
		in.Format = FormatV0
	}
	in.KVPoolTokens = r.kvPool
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
		line, ok := r.in.Next()
		if !ok {
			r.ended = true
			r.flushPending()
			if err := r.in.Err(); err != nil {
				r.fail(err)
			}
			continue
		}
		r.readLine(&line)
	}
}

func (r *Reader) flushPending() {
	if r.pending != nil {
		r.queue = append(r.queue, *r.pending)
		r.pending = nil
	}
}

func (r *Reader) fail(err error) { r.queue = append(r.queue, result{err: err}) }

var (
	v0HitRate    = []byte("Prefix cache hit rate: GPU: ")
	kvSizePrefix = []byte("GPU KV cache size: ")
	mergedKV     = []byte(" tokens, Maximum concurrency for ")
)

// readLine parses one line and queues what it yields.
func (r *Reader) readLine(l *enginelog.Line) {
	h, ok := parseHeader(l, l.Start)
	if !ok && r.in.Uncolour(l) {
		h, ok = parseHeader(l, l.Start)
	}
	if !ok {
		if h, ok = r.headerElsewhere(l); !ok {
			return
		}
	}
	r.dialect.Saw(max(h.rank, rankBase)) // a vLLM line, if nothing dates it
	var ts float64
	switch {
	case h.byWrapper:
		wt, _ := l.WrapperTime()
		ts = r.in.Stamp(l, wt)
	case h.dated:
		ts = r.in.Stamp(l, r.in.Clock.Date(h.Stamp))
	default:
		ts = r.in.Stamp(l, r.in.Clock.Yearless(h.Stamp))
	}
	msg := l.Text[h.msg:]

	// The V0 engine prints its prefix-cache hit rate on the line after its
	// stats line; attach it, or release the stats sample without it.
	rest, hitRate := bytes.CutPrefix(msg, v0HitRate)
	if r.pending != nil {
		if hitRate {
			p := r.pending
			r.pending = nil
			v, off, err := percentField(rest)
			if err == nil {
				p.s.LoggedHitRate = &v
			}
			r.queue = append(r.queue, *p)
			if err != nil {
				r.fail(l.Errorf(h.msg+len(msg)-len(rest)+off, "vLLM V0 prefix cache hit rate: %v", err))
			}
			return
		}
		r.flushPending()
	}
	if hitRate {
		r.loneHitRate(l, h, ts, rest)
		return
	}

	if bytes.HasPrefix(msg, kvSizePrefix) {
		r.kvSize(l, h.msg)
		return
	}
	if v, ok := versionOf(msg); ok {
		if builtIn2026(v) {
			r.dialect.Saw(rank2026)
		}
		return
	}
	body, engine, isStats := statsBody(msg)
	if !isStats {
		return
	}
	r.in.Info.SampleLines++
	if engine.explicit {
		r.dialect.Saw(rank09)
	}
	if engine.index < 0 {
		r.dialect.Saw(rank010)
	}
	s := schema.EngineSample{
		TS:          ts,
		Source:      schema.SourceLog,
		Kind:        schema.LineStats,
		EngineIndex: engine.index,
		Line:        int64(l.Pos.Line),
	}
	at := h.msg + len(msg) - len(body)
	// Another line glued on after this one, its newline lost (two
	// processes writing to one terminal, a paste): read both. Looked for
	// on every stats line, not only one whose fields fail: glued on after
	// a field outlast does not know, the next line's header would be
	// passed over with that field and its fields read as this line's.
	// Every vLLM header ends its file:line with ']', which no stats field
	// holds: one byte search first, the header search only past it.
	next := -1
	if bytes.IndexByte(l.Text[at:], ']') >= 0 {
		next = gluedAfter(l, at)
	}
	if next >= 0 {
		body = trimProcs(l.Text[at:next])
	}
	fl, err := parseStats(body, &s, r.slab.New())
	if err != nil {
		r.fail(l.FieldsErr(at, err, "vLLM stats line"))
		return
	}
	if next >= 0 {
		defer r.readGlued(l, next)
	}
	r.dialect.Saw(fl.rank)
	if fl.v0 {
		r.v0 = true
		r.pending = &result{s: s}
		return
	}
	r.queue = append(r.queue, result{s: s})
}

// headerElsewhere handles a line whose preamble is not followed by a vLLM
// header but which holds the fields of a stats line: their header further
// on (text glued in front of the engine's line, counted in Info.Glued), or
// none at all, which makes the line a damaged stats line whose start is
// lost. Lines without stats fields are not vLLM's or not stats lines.
func (r *Reader) headerElsewhere(l *enginelog.Line) (header, bool) {
	k := bytes.Index(l.Text[l.Start:], statsStart2)
	if k < 0 {
		return header{}, false
	}
	k += l.Start
	if h, ok := gluedHeader(l, k); ok {
		r.in.Info.Glued++
		return h, true
	}
	if looksLikeStats(l.Text[k:]) {
		if wrapperTimedStats(l) {
			return header{msg: l.Start, byWrapper: true, rank: procsRank(l)}, true
		}
		r.in.Info.SampleLines++
		if head := malformedHeader(l, k); head != nil {
			r.fail(l.Errorf(l.Start, "vLLM stats line whose header %q is not as vLLM prints it (\"LEVEL MM-DD HH:MM:SS [file:line] \")", head))
			return header{}, false
		}
		r.fail(l.Errorf(k, "vLLM stats line without its header (\"LEVEL MM-DD HH:MM:SS [file:line]\"): the start of the line is lost"))
	}
	return header{}, false
}

// malformedHeader returns the text in front of the stats message of l,
// whose fields begin at offset k, when it holds a level word but does not
// parse as vLLM's header ("INFO: 09-04 04:13:45 [loggers.py:273]" in a
// paste retyped by hand, vllm-project/vllm-ascend#16156): the line's start
// is there, its header is not vLLM's. It returns nil when there is no such
// text (the start of the line is lost).
func malformedHeader(l *enginelog.Line, k int) []byte {
	b := l.Text[l.Start:k]
	msg := len(b)
	if i := bytes.LastIndex(b, statsStart1); i >= 0 {
		msg = i
	}
	if j := bytes.LastIndex(b[:msg], enginePrefix); j >= 0 {
		if _, _, ok := statsBody(b[j:]); ok {
			msg = j
		}
	}
	if j := bytes.LastIndex(b[:msg], aggregated); j >= 0 {
		for j > 0 && b[j-1] >= '0' && b[j-1] <= '9' {
			j--
		}
		msg = j
	}
	head := bytes.TrimRight(b[:msg], " ")
	for _, lv := range levels {
		if bytes.Contains(head, lv[:len(lv)-1]) {
			return head
		}
	}
	return nil
}

// gluedAfter returns the offset in l.Text, after at, of the first vLLM
// header that begins another line glued onto this one; -1 if there is
// none. The process prefixes in front of that header are the glued
// line's (trimProcs).
func gluedAfter(l *enginelog.Line, at int) int {
	first := -1
	for _, lv := range levels {
		for i := at; i < len(l.Text); {
			k := bytes.Index(l.Text[i:], lv)
			if k < 0 || first >= 0 && i+k >= first {
				break
			}
			if _, ok := parseHeader(l, i+k); ok {
				first = i + k
				break
			}
			i += k + 1
		}
	}
	return first
}

// trimProcs returns b without the "(Name pid=N)" prefixes (and Ray's
// nameless "(pid=N)") and blanks at its end: those of a line glued on
// after b.
func trimProcs(b []byte) []byte {
	for {
		b = bytes.TrimRight(b, " ")
		if len(b) == 0 || b[len(b)-1] != ')' {
			return b
		}
		open := bytes.LastIndexByte(b, '(')
		if open < 0 || !bytes.Contains(b[open:], []byte(" pid=")) && !bytes.HasPrefix(b[open+1:], []byte("pid=")) {
			return b // not a process prefix, nor Ray's nameless "(pid=N, ip=A)"
		}
		b = b[:open]
	}
}

// readGlued reads the rest of l from offset at, a line glued onto the
// one before it, as a line of its own.
func (r *Reader) readGlued(l *enginelog.Line, at int) {
	r.in.Info.Glued++
	rest := *l
	rest.Start = at
	r.readLine(&rest)
}

// loneHitRate reads a V0 prefix-cache line that does not follow a stats
// line (the stats line was not in the log, or another line came between):
// a sample of its own with only the hit rate, at offset rest of the
// message.
func (r *Reader) loneHitRate(l *enginelog.Line, h header, ts float64, rest []byte) {
	r.in.Info.SampleLines++
	r.v0 = true
	x, off, err := percentField(rest)
	if err != nil {
		r.fail(l.Errorf(len(l.Text)-len(rest)+off, "vLLM V0 prefix cache hit rate: %v", err))
		return
	}
	v := r.slab.New()
	v[samplefield.LoggedHitRate] = x
	r.queue = append(r.queue, result{s: schema.EngineSample{
		TS:            ts,
		Source:        schema.SourceLog,
		Kind:          schema.LineStats,
		Line:          int64(l.Pos.Line),
		LoggedHitRate: &v[samplefield.LoggedHitRate],
	}})
}

// kvSize reads "GPU KV cache size: 400,000 tokens" and its merged form, the
// message of l at offset at.
func (r *Reader) kvSize(l *enginelog.Line, at int) {
	rest := l.Text[at+len(kvSizePrefix):]
	end := bytes.IndexByte(rest, ' ')
	if end < 0 || !bytes.HasPrefix(rest[end:], []byte(" tokens")) {
		r.fail(l.Errorf(at+len(kvSizePrefix), "vLLM KV cache size line: no \"N tokens\""))
		return
	}
	n, ok := parseThousands(rest[:end])
	if !ok {
		r.fail(l.Errorf(at+len(kvSizePrefix), "vLLM KV cache size line: malformed token count %q", rest[:end]))
		return
	}
	if bytes.HasPrefix(rest[end:], mergedKV) {
		r.dialect.Saw(rank2026)
	}
	if r.kvPool == 0 {
		r.kvPool = n
	}
}
