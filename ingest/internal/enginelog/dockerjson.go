package enginelog

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
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
	// The same lines re-written by Python's json.dumps, whose default
	// separators are ", " and ": " (a log filtered or merged by a script).
	dockerJSONLogSpaced  = []byte(`{"log": "`)
	dockerJSONTimeSpaced = []byte(`, "time": "`)
)

// dockerJSONStart returns the length of the `{"log":"` that begins raw,
// in either spacing, and the "time" key that goes with it; 0 for none.
func dockerJSONStart(raw []byte) (int, []byte) {
	switch {
	case bytes.HasPrefix(raw, dockerJSONLog):
		return len(dockerJSONLog), dockerJSONTime
	case bytes.HasPrefix(raw, dockerJSONLogSpaced):
		return len(dockerJSONLogSpaced), dockerJSONTimeSpaced
	}
	return 0, nil
}

// dockerJSON reads l.Raw, which begins with `{"log":"`, as Docker's
// json-file line: l.Text becomes the decoded line (in p.json) and the
// stamp that of "time". A line that is not whole such an object (but for
// blanks after it) is left as it is.
func (p *Preamble) dockerJSON(l *Line) {
	raw := trimEnd(l.Raw) // blanks a terminal copy padded the line with
	start, timeKey := dockerJSONStart(raw)
	text, end, firstEsc, ok := appendJSONString(p.json[:0], raw, start)
	p.json = text
	if !ok || !bytes.HasSuffix(raw, []byte(`"}`)) {
		return
	}
	t := bytes.LastIndex(raw, timeKey)
	if t < end {
		return
	}
	text = bytes.TrimSuffix(text, []byte{'\n'})
	l.Text = text
	l.jsonAt, l.jsonEnd, l.jsonKind = int32(t+len(timeKey)), int32(len(raw)-2), DockerJSON
	// The text's offsets are the raw line's, shifted by `{"log":"`, up to
	// the first escape; past it, a column would be a guess.
	l.shift = int32(start)
	if firstEsc < len(text) {
		l.stripped = true
	}
}

// appendJSONString appends to dst the decoded JSON string whose opening
// quote is b[i-1] (jsontext.AppendUnquote) and returns it, the offset
// after its closing quote, the length of the decoded text before its
// first escape, and false if the string does not end, holds an escape
// JSON does not have, or is not valid UTF-8 (which Docker never writes).
func appendJSONString(dst, b []byte, i int) (out []byte, end, firstEsc int, ok bool) {
	firstEsc = -1
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '\\':
			if firstEsc < 0 {
				firstEsc = j - i
			}
			j++
		case '"':
			n := len(dst)
			out, err := jsontext.AppendUnquote(dst, b[i-1:j+1])
			if err != nil {
				return dst[:n], 0, 0, false
			}
			if firstEsc < 0 {
				firstEsc = len(out) - n
			}
			return out, j + 1, firstEsc, true
		}
	}
	return dst, 0, 0, false
}
