package sglanglog

import (
	"bytes"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
)

// Match reports whether line looks like an SGLang log line: an SGLang
// header (see parseHeader) after any colour codes, wrappers and Ray
// prefix, or a batch line with or without one (locate.go). It is meant for
// sniffing an unknown engine.
func Match(line []byte) bool {
	return enginelog.Match(line, parseHeader, func(l *enginelog.Line) bool {
		var h header
		var bt batch
		_, _, ok := batchElsewhere(l, &h, &bt)
		return ok
	})
}

// header is a parsed SGLang line header.
type header struct {
	enginelog.Stamp
	timeOnly bool // "[HH:MM:SS ...]": no date
	ranks    ranks
	msg      int // offset of the message in the line's Text
}

// ranks are the rank tags of a header: " DP3 PP0 ATTN_CP0 MOE_DP1 TP3
// EP3" as run_scheduler_process (sglang/srt/managers/scheduler.py) builds
// its logger prefix, in that order, each only when its parallel size is
// above 1 (DP whenever the scheduler has a DP rank).
type ranks struct {
	at, end      int // the tags as printed: Text[at:end]
	dp, pp, cp   int32
	tp           int32
	hasDP, hasTP bool
}

// repeat reports whether the batch lines of this rank repeat those of
// another whenever the log holds every rank's: every pipeline stage (PPn)
// and every attention context-parallel rank (ATTN_CPn) prints the same
// batch, and so would tensor-parallel ranks other than 0 without
// data-parallel attention. The lines of PP0 and ATTN_CP0 (and, without a
// DP tag, TP0) are those kept; each DP rank is a replica of its own and
// keeps its lines. SGLang itself chooses these ranks to publish KV events
// (pp_rank 0, attn_cp_rank 0, attn_tp_rank 0). A log that lacks them
// keeps the lowest present (Reader.keep).
func (r *ranks) repeat() bool { return r.pp > 0 || r.cp > 0 || !r.hasDP && r.tp > 0 }

// parseHeader parses the header of l at offset i of its Text (l.Start:
// after its preamble). SGLang's configure_logger (sglang/srt/utils.py)
// prints
//
//	[YYYY-MM-DD HH:MM:SS(.mmm)?( TAGn)*] message
//	[HH:MM:SS( TAGn)*] message                      before late 2024
//
// and with a logging config of the user's (SGLANG_LOGGING_CONFIG_PATH),
// one seen in the wild prints
//
//	YYYY-MM-DD HH:MM:SS LEVEL PID [TAGn... file.py:N] message
//
// Ray prints one process prefix in front; two are not an SGLang line.
func parseHeader(l *enginelog.Line, i int) (header, bool) {
	var h header
	if l.Procs() > 1 {
		return h, false
	}
	b := l.Text
	if i >= len(b) {
		return h, false
	}
	if b[i] != '[' {
		return customHeader(b, i)
	}
	var j int
	var ok bool
	// "[YYYY-MM-DD HH:MM:SS" without a fraction, most lines, is read here
	// rather than by dateTime, which costs a call per line.
	if st := b[i+1:]; len(st) >= 20 && st[19] != '.' && h.Date(st) && st[10] == ' ' && h.TimeOfDay(st[11:]) {
		j = i + 20
	} else if j, ok = h.dateTime(b, i+1, '.'); !ok {
		return h, false
	}
	if j < len(b) && b[j] == ']' {
		h.ranks = ranks{at: j, end: j}
		h.msg = enginelog.SkipSpaces(b, j+1)
		return h, true
	}
	end := bytes.IndexByte(b[j:], ']')
	if end < 0 || end > 0 && b[j] != ' ' {
		return h, false
	}
	end += j
	if h.ranks, ok = parseTags(b, j, end); !ok {
		return h, false
	}
	h.msg = enginelog.SkipSpaces(b, end+1)
	return h, true
}

// dateTime parses "YYYY-MM-DD HH:MM:SS" or "HH:MM:SS", with an optional
// fraction after a '.' or after dot, at b[i:] into h, and returns the
// offset after it. SGLang's own header has "." (".%(msecs)03d");
// Python's default, in a custom config, ",". Other tools' bracketed
// stamps with "," (LMCache's "[2026-05-04 05:25:03,414] LMCache INFO:"
// inside a vLLM log) are not SGLang's header.
func (h *header) dateTime(b []byte, i int, dot byte) (int, bool) {
	if len(b)-i >= 19 && h.Date(b[i:]) {
		if b[i+10] != ' ' || !h.TimeOfDay(b[i+11:]) {
			return 0, false
		}
		i += 19
	} else if len(b)-i >= 8 && h.TimeOfDay(b[i:]) {
		h.timeOnly = true
		i += 8
	} else {
		return 0, false
	}
	if i < len(b) && (b[i] == '.' || b[i] == dot) {
		n := h.Fraction(b[i+1:])
		if n == 0 {
			return 0, false
		}
		i += 1 + n
	}
	return i, true
}

// parseTags parses the rank tags in b[from:to], "DP6", "TP0",
// "ATTN_CP1" each after a space (the first may stand at from), in any
// order.
func parseTags(b []byte, from, to int) (ranks, bool) {
	r := ranks{at: enginelog.SkipSpaces(b[:to], from), end: to}
	for j := r.at; j < to; j = enginelog.SkipSpaces(b[:to], j) {
		k := j
		for k < to && (b[k] >= 'A' && b[k] <= 'Z' || b[k] == '_') {
			k++
		}
		d := k
		for d < to && b[d] >= '0' && b[d] <= '9' {
			d++
		}
		if k == j || d == k || d-k > 9 || d < to && b[d] != ' ' {
			return r, false
		}
		n, _ := enginelog.ParseUint(b[k:d])
		switch string(b[j:k]) {
		case "DP":
			r.dp, r.hasDP = int32(n), true
		case "PP":
			r.pp = int32(n)
		case "ATTN_CP":
			r.cp = int32(n)
		case "TP":
			r.tp, r.hasTP = int32(n), true
		}
		j = d
	}
	return r, true
}

// customHeader parses "YYYY-MM-DD HH:MM:SS(,mmm)? LEVEL PID [TAGS
// file.py:N] " at b[i:], the header of a logging config of the user's.
func customHeader(b []byte, i int) (header, bool) {
	var h header
	if len(b)-i < 19 || b[i] < '0' || b[i] > '9' {
		return h, false
	}
	j, ok := h.dateTime(b, i, ',')
	if !ok || h.timeOnly || j >= len(b) || b[j] != ' ' {
		return h, false
	}
	// LEVEL and PID, then the bracket.
	for words := 0; j < len(b) && b[j] == ' '; words++ {
		j++
		if j < len(b) && b[j] == '[' {
			break
		}
		w := j
		for j < len(b) && (b[j] >= 'A' && b[j] <= 'Z' || b[j] >= '0' && b[j] <= '9') {
			j++
		}
		if j == w || words == 2 {
			return h, false
		}
	}
	if j >= len(b) || b[j] != '[' {
		return h, false
	}
	// "[DP3 TP3 EP3 file.py:222]": the tags, then the file and line.
	end := bytes.IndexByte(b[j:], ']')
	if end < 0 {
		return h, false
	}
	end += j
	tags, last := end, j+1+bytes.LastIndexByte(b[j+1:end], ' ')+1
	if colon := bytes.LastIndexByte(b[last:end], ':'); colon > 0 && digitsOnly(b[last+colon+1:end]) {
		tags = max(last-1, j+1)
	}
	if h.ranks, ok = parseTags(b, j+1, tags); !ok {
		return h, false
	}
	h.msg = enginelog.SkipSpaces(b, end+1)
	return h, true
}

func digitsOnly(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
