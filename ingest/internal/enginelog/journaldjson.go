package enginelog

import (
	"bytes"
	"time"
)

// `journalctl -o json` writes each journal entry as a JSON object on a
// line of its own (systemd's "Journal JSON Format",
// https://systemd.io/JOURNAL_EXPORT_FORMATS/): it begins with "__CURSOR",
// then "__REALTIME_TIMESTAMP" (microseconds since the Unix epoch, as a
// decimal string), then the entry's fields in the order stored, among
// them "MESSAGE", the line the service printed. A field that is not
// printable UTF-8 (colour codes, say) is an array of its bytes as
// numbers instead of a string:
//
//	{"__CURSOR":"s=…","__REALTIME_TIMESTAMP":"1784542503527104",…,"SYSLOG_IDENTIFIER":"vllm","MESSAGE":"INFO 07-20 …",…}
//
// Such a line is read as the engine's line its MESSAGE holds, with the
// JournaldJSON wrapper, whose stamp is __REALTIME_TIMESTAMP, also behind
// the ASCII record separator (0x1E) with which `journalctl -o json-seq`
// begins each entry (RFC 7464's JSON text sequences). A MESSAGE given
// several values (an array of strings) is left as it is.

// recordSep begins each entry of `journalctl -o json-seq`.
const recordSep = 0x1e

var (
	journalCursor   = []byte(`{"__CURSOR":"`)
	journalRealtime = []byte(`,"__REALTIME_TIMESTAMP":"`)
	journalMessage  = []byte(`,"MESSAGE":`)
	// The same entries re-written by Python's json.dumps, whose default
	// separators are ", " and ": " (a journal export filtered by a
	// script), as for Docker's lines.
	journalCursorSpaced   = []byte(`{"__CURSOR": "`)
	journalRealtimeSpaced = []byte(`, "__REALTIME_TIMESTAMP": "`)
	journalMessageSpaced  = []byte(`, "MESSAGE": `)
)

// journaldJSON reads l.Raw, which from offset from on (after json-seq's
// record separator) begins with `{"__CURSOR":"` (or its spaced form), as
// an entry of `journalctl -o json`: l.Text becomes its MESSAGE (in p.json)
// and the stamp its __REALTIME_TIMESTAMP. A line that is not such an entry
// is left as it is.
func (p *Preamble) journaldJSON(l *Line, from int) {
	raw := trimEnd(l.Raw) // blanks a terminal copy padded the line with
	if !bytes.HasSuffix(raw, []byte{'}'}) {
		return
	}
	// Member names stand outside strings, where a quote is never escaped,
	// so the first `,"NAME":` is the member's.
	realtime, message := journalRealtime, journalMessage
	if bytes.HasPrefix(raw[from:], journalCursorSpaced) {
		realtime, message = journalRealtimeSpaced, journalMessageSpaced
	}
	t := bytes.Index(raw, realtime)
	m := bytes.Index(raw, message)
	if t < 0 || m < 0 {
		return
	}
	t += len(realtime)
	te := t
	for te < len(raw) && raw[te] >= '0' && raw[te] <= '9' {
		te++
	}
	if te == t || te >= len(raw) || raw[te] != '"' {
		return
	}
	v := m + len(message)
	var text []byte
	exact := false // whether Text's offsets are Raw's, shifted
	switch {
	case v < len(raw) && raw[v] == '"':
		s, _, firstEsc, ok := appendJSONString(p.json[:0], raw, v+1)
		p.json = s
		if !ok {
			return
		}
		text, exact = s, firstEsc >= len(bytes.TrimSuffix(s, []byte{'\n'}))
	case v < len(raw) && raw[v] == '[':
		s, ok := appendByteArray(p.json[:0], raw, v+1)
		p.json = s
		if !ok {
			return
		}
		text = s
	default:
		return
	}
	l.Text = bytes.TrimSuffix(text, []byte{'\n'})
	l.jsonAt, l.jsonEnd, l.jsonKind = int32(t), int32(te), JournaldJSON
	l.shift = int32(v + 1)
	l.stripped = !exact
}

// appendByteArray appends to dst the bytes of the JSON array of numbers
// 0..255 that begins at b[i] (after its "[") and reports whether it is
// one.
func appendByteArray(dst, b []byte, i int) ([]byte, bool) {
	for i < len(b) {
		n, j := 0, i
		for j < len(b) && b[j] >= '0' && b[j] <= '9' && j-i < 3 {
			n = n*10 + int(b[j]-'0')
			j++
		}
		if j == i || n > 255 || j >= len(b) {
			return dst, false
		}
		dst = append(dst, byte(n))
		switch b[j] {
		case ',':
			i = j + 1
		case ']':
			return dst, true
		default:
			return dst, false
		}
	}
	return dst, false
}

// unixMicros reads decimal microseconds since the Unix epoch.
func unixMicros(b []byte) (time.Time, bool) {
	if len(b) == 0 || len(b) > 18 {
		return time.Time{}, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return time.Time{}, false
		}
		n = n*10 + int64(c-'0')
	}
	return time.UnixMicro(n).UTC(), true
}
