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
	year, mon, day, hour, min, sec, nsec int
	dp                                   int32 // DP rank tag, 0 without one
	msg                                  int   // offset of the message in the line's Text
}

// parseHeader parses the header of l after its preamble,
//
//	[YYYY-MM-DD HH:MM:SS(.fff)?( TAGn)*] message
//
// Ray prints one process prefix; two are not an SGLang line.
func parseHeader(l *enginelog.Line) (header, bool) {
	var h header
	if len(l.Procs) > 1 {
		return h, false
	}
	b, i := l.Text, l.Start
	if len(b)-i < 21 || b[i] != '[' {
		return h, false
	}
	st := b[i+1 : i+20]
	if st[4] != '-' || st[7] != '-' || st[10] != ' ' || st[13] != ':' || st[16] != ':' {
		return h, false
	}
	y1, ok1 := enginelog.Two(st[0:2])
	y2, ok2 := enginelog.Two(st[2:4])
	var ok [5]bool
	h.mon, ok[0] = enginelog.Two(st[5:7])
	h.day, ok[1] = enginelog.Two(st[8:10])
	h.hour, ok[2] = enginelog.Two(st[11:13])
	h.min, ok[3] = enginelog.Two(st[14:16])
	h.sec, ok[4] = enginelog.Two(st[17:19])
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
