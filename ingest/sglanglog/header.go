package sglanglog

import "github.com/outlast-dev/outlast/ingest/internal/enginelog"

// Match reports whether line looks like an SGLang log line: the
// "[YYYY-MM-DD HH:MM:SS ...]" header after any ANSI colour, container stamp
// and Ray prefix. It is meant for sniffing an unknown engine.
func Match(line []byte) bool {
	_, ok := parseHeader(enginelog.ReadLine(line))
	return ok
}

// header is a parsed SGLang line header.
type header struct {
	enginelog.Stamp
	dp  int32 // DP rank tag, 0 without one
	msg int   // offset of the message in the line's Text
}

// parseHeader parses the header of l after its preamble,
//
//	[YYYY-MM-DD HH:MM:SS(.fff)?( TAGn)*] message
//
// Ray prints one process prefix; two are not an SGLang line.
func parseHeader(l *enginelog.Line) (header, bool) {
	var h header
	if l.Procs() > 1 {
		return h, false
	}
	b, i := l.Text, l.Start
	if len(b)-i < 21 || b[i] != '[' {
		return h, false
	}
	// [YYYY-MM-DD HH:MM:SS
	st := b[i+1 : i+20]
	if !h.Date(st) || st[10] != ' ' || !h.TimeOfDay(st[11:]) {
		return h, false
	}
	j := i + 20
	if j < len(b) && b[j] == '.' {
		n := h.Fraction(b[j+1:])
		if n == 0 {
			return h, false
		}
		j += 1 + n
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
			n, _ := enginelog.ParseUint(b[k:d])
			h.dp = int32(n)
		}
		j = d
	}
	if j >= len(b) || b[j] != ']' {
		return h, false
	}
	h.msg = enginelog.SkipSpaces(b, j+1)
	return h, true
}
