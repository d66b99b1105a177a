package enginelog

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// A log copied from a container's log file as Docker's default logging
// driver (json-file) keeps it has each of the engine's lines as a JSON
// object, written by moby's daemon/logger/jsonfilelog/jsonlog
// (JSONLogs.MarshalJSONBuf): its members "log" (the line with its
// newline, left out when empty), "stream", "attrs" (with --log-opt
// labels or env) and "time" (RFC 3339 with nanoseconds, UTC), in that
// order, the line's text escaped as JSON ("&", "<" and ">" as \u0026,
// \u003c, \u003e, control bytes as \u00XX):
//
//	{"log":"INFO 07-20 10:15:03 [loggers.py:271] Engine 000: ...\n","stream":"stdout","time":"2026-07-20T10:15:03.527104251Z"}
//
// Such a line is read as the engine's line it holds, with the DockerJSON
// wrapper, whose stamp is "time". A line longer than 16 KB is split by
// Docker into several objects, of which only the last ends with a
// newline; each is read as a line of its own (a stats or batch line is
// far shorter).

var (
	dockerJSONLog  = []byte(`{"log":"`)
	dockerJSONTime = []byte(`,"time":"`)
)

// dockerJSON reads l.Raw, which begins with `{"log":"`, as Docker's
// json-file line: l.Text becomes the decoded line (in p.json) and the
// stamp that of "time". A line that is not whole such an object is left
// as it is.
func (p *Preamble) dockerJSON(l *Line) {
	raw := l.Raw
	text, end, firstEsc, ok := appendJSONString(p.json[:0], raw, len(dockerJSONLog))
	p.json = text
	if !ok || !bytes.HasSuffix(raw, []byte(`"}`)) {
		return
	}
	t := bytes.LastIndex(raw, dockerJSONTime)
	if t < end {
		return
	}
	text = bytes.TrimSuffix(text, []byte{'\n'})
	l.Text = text
	l.jsonAt, l.jsonEnd = int32(t+len(dockerJSONTime)), int32(len(raw)-2)
	// The text's offsets are the raw line's, shifted by `{"log":"`, up to
	// the first escape; past it, a column would be a guess.
	l.shift = int32(len(dockerJSONLog))
	if firstEsc < len(text) {
		l.stripped = true
	}
}

// appendJSONString appends to dst the decoded JSON string that begins at
// b[i] (after its opening quote) and returns it, the offset after its
// closing quote, the length dst had at its first escape (len of the
// result when none), and false if the string does not end or holds an
// escape JSON does not have.
func appendJSONString(dst, b []byte, i int) (out []byte, end, firstEsc int, ok bool) {
	firstEsc = -1
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			if firstEsc < 0 {
				firstEsc = len(dst)
			}
			return dst, i + 1, firstEsc, true
		case c != '\\':
			j := i + 1
			for j < len(b) && b[j] != '"' && b[j] != '\\' {
				j++
			}
			dst = append(dst, b[i:j]...)
			i = j
			continue
		}
		if firstEsc < 0 {
			firstEsc = len(dst)
		}
		if i+1 >= len(b) {
			return dst, 0, 0, false
		}
		switch e := b[i+1]; e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, n := hexRune(b[i+2:])
			if n == 0 {
				return dst, 0, 0, false
			}
			i += n
			if utf16.IsSurrogate(r) {
				r2, n2 := rune(-1), 0
				if len(b) > i+3 && b[i+2] == '\\' && b[i+3] == 'u' {
					r2, n2 = hexRune(b[i+4:])
				}
				if dec := utf16.DecodeRune(r, r2); n2 > 0 && dec != utf8.RuneError {
					r = dec
					i += 2 + n2
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, 0, 0, false
		}
		i += 2
	}
	return dst, 0, 0, false
}

// hexRune reads the four hex digits at the start of b, returning their
// value and 4, or 0, 0.
func hexRune(b []byte) (rune, int) {
	if len(b) < 4 {
		return 0, 0
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, 0
		}
	}
	return r, 4
}
