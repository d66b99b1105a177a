package vllmlog

import (
	"bytes"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
)

// Match reports whether line looks like a vLLM log line: a vLLM header
// (level, "MM-DD HH:MM:SS", "[file:line]") after any colour codes,
// wrappers and process prefixes, or a stats line's header after text
// glued in front. It is meant for sniffing an unknown engine; judge by
// many lines, not one, because an SGLang log can begin with a few
// vLLM-format lines (SGLang imports vLLM).
func Match(line []byte) bool {
	return enginelog.Match(line, parseHeader, func(l *enginelog.Line) bool {
		k := bytes.Index(l.Text[l.Start:], statsStart2)
		if k < 0 {
			return false
		}
		if _, ok := gluedHeader(l, l.Start+k); ok {
			return true
		}
		return wrapperTimedStats(l)
	})
}

// wrapperTimedStats reports whether the message of l, which has no vLLM
// header, is a whole stats line that its wrapper's zoned stamp times (the
// header replaced by another logger's, as Rust's tracing does).
func wrapperTimedStats(l *enginelog.Line) bool {
	if _, _, ok := statsBody(l.Text[l.Start:]); !ok {
		return false
	}
	_, timed := l.WrapperTime()
	return timed
}

// header is a parsed vLLM line header.
type header struct {
	enginelog.Stamp
	msg   int  // offset of the message in the line's Text
	rank  int  // dialect rank the header itself shows
	dated bool // the stamp has its year (loggerHeader)
	// byWrapper says that the line has no header of vLLM's: the wrapper's
	// zoned stamp times it (Line.WrapperTime).
	byWrapper bool
}

var levels = [...][]byte{[]byte("INFO "), []byte("DEBUG "), []byte("WARNING "), []byte("ERROR "), []byte("CRITICAL ")}

// parseHeader parses the header of l at offset i of its Text (l.Start:
// after its preamble),
//
//	LEVEL MM-DD HH:MM:SS [file:line] message
//
// where the "[" is missing before vLLM 0.8.
func parseHeader(l *enginelog.Line, i int) (header, bool) {
	h := header{rank: procsRank(l)}
	b := l.Text
	if i < len(b) && b[i] >= '0' && b[i] <= '9' {
		return loggerHeader(b, i, h)
	}
	lvl := false
	for _, lv := range levels {
		if bytes.HasPrefix(b[i:], lv) {
			i = enginelog.SkipSpaces(b, i+len(lv))
			lvl = true
			break
		}
	}
	if !lvl || len(b)-i < 14 {
		return h, false
	}
	// MM-DD HH:MM:SS
	if !h.MonthDay(b[i:]) || b[i+5] != ' ' || !h.TimeOfDay(b[i+6:]) {
		return h, false
	}
	i = enginelog.SkipSpaces(b, i+14)
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
	h.msg = enginelog.SkipSpaces(b, k+1)
	rank := rank07
	if bracket {
		rank = rank08
	}
	if rank > h.rank {
		h.rank = rank
	}
	return h, true
}

// loggerHeader parses, at b[i:], the header of the format of Python's
// logging cookbook, "%(asctime)s - %(name)s - %(levelname)s - %(message)s",
//
//	YYYY-MM-DD HH:MM:SS(,mmm)? - vllm.engine.metrics - INFO - message
//
// which an application running vLLM in its own process may set for every
// logger (Xinference's log in xorbitsai/inference#3787). The logger must be
// vLLM's ("vllm" or "vllm.…"); the stamp has its year, no zone.
func loggerHeader(b []byte, i int, h header) (header, bool) {
	if len(b)-i < 19 || !h.Date(b[i:]) || b[i+10] != ' ' || !h.TimeOfDay(b[i+11:]) {
		return h, false
	}
	j := i + 19
	if j < len(b) && (b[j] == ',' || b[j] == '.') {
		n := h.Fraction(b[j+1:])
		if n == 0 {
			return h, false
		}
		j += 1 + n
	}
	if !bytes.HasPrefix(b[j:], loggerSep) {
		return h, false
	}
	j += len(loggerSep)
	name := j
	for j < len(b) && b[j] != ' ' {
		j++
	}
	if n := b[name:j]; !bytes.Equal(n, vllmLogger) && !bytes.HasPrefix(n, vllmLoggerDot) || !bytes.HasPrefix(b[j:], loggerSep) {
		return h, false
	}
	j += len(loggerSep)
	for _, lv := range levels {
		if w := lv[:len(lv)-1]; bytes.HasPrefix(b[j:], w) && bytes.HasPrefix(b[j+len(w):], loggerSep) {
			h.msg, h.dated = j+len(w)+len(loggerSep), true
			return h, true
		}
	}
	return h, false
}

var (
	loggerSep     = []byte(" - ")
	vllmLogger    = []byte("vllm")
	vllmLoggerDot = []byte("vllm.")
)

// gluedHeader finds the header of a stats line that does not begin where
// the preamble ends: the engine's line begins after other text on the
// same physical line (a progress bar or streamed output written without a
// newline). It looks for the header in front of the fields, at the last
// level word before them; false if there is none.
func gluedHeader(l *enginelog.Line, fields int) (header, bool) {
	before := l.Text[l.Start:fields]
	for _, lv := range levels {
		if j := bytes.LastIndex(before, lv); j > 0 {
			if h, ok := parseHeader(l, l.Start+j); ok {
				return h, true
			}
		}
	}
	return header{}, false
}

// procsRank returns the newest dialect rank the process prefixes of l
// show.
func procsRank(l *enginelog.Line) int {
	r := rankNone
	for k := range l.Procs() {
		r = max(r, procRank(l.Proc(k)))
	}
	return r
}

// procRank dates the name of a process prefix: vLLM names the processes
// whose output it prefixes after their role, and the names changed. Any
// of them dates a line to 0.10.1 or later, when decorate_logs began to
// prefix the output (2025-07-29); "EngineCore_0", the engine core's
// multiprocessing name until it became "EngineCore_DP0" (Sep 2025), was
// printed so by 0.10.1-0.10.2 ("(EngineCore_0 pid=269) ... Initializing a
// V1 LLM engine (v0.10.2.dev2+gf5635d62e...)", vllm-project/vllm#22265).
func procRank(name []byte) int {
	switch {
	case bytes.Equal(name, []byte("EngineCore")):
		return rank2026 // non-DP name since 2026-03-11
	case bytes.Equal(name, []byte("APIServer")), bytes.HasPrefix(name, []byte("EngineCore_")), bytes.HasPrefix(name, []byte("Worker")):
		return rank010
	}
	return rankNone
}
