package enginelog

import (
	"bytes"
	"time"
)

// The Buildkite agent, with its ansi-timestamps (the default of agent v3),
// writes in front of each line of a job's output an APC escape holding the
// time in milliseconds since the Unix epoch, "\x1b_bk;t=%d\x07"
// (BKTimestamp and the job runner's prefixer in buildkite/agent, whose web
// log renders it as a time column), and writes one again inside a line
// written slowly:
//
//	\x1b_bk;t=1760594924123\x07(EngineCore_DP0 pid=23579) INFO 10-15 23:08:44 [backends.py:247] ...
//
// The raw log of a job (its download, `bk job log`) keeps them. Such a
// line is read as the line behind the escape, with the Launcher wrapper,
// whose stamp is the escape's time; an escape elsewhere in the line is
// stripped with the other escape sequences (StripANSI).

var bkStamp = []byte("\x1b_bk;t=")

// buildkite reads l.Raw, which begins with "\x1b_bk;t=", as a line of a
// Buildkite job's raw log: l.Text is what follows the escape and the
// stamp its time. A line whose escape does not end in BEL after its
// digits is left as it is (StripANSI takes it out).
func (p *Preamble) buildkite(l *Line) {
	raw := l.Raw
	t := len(bkStamp)
	te := t + digits(raw[t:])
	if te == t || te >= len(raw) || raw[te] != 0x07 {
		return
	}
	l.Text = raw[te+1:]
	l.jsonAt, l.jsonEnd, l.jsonKind = int32(t), int32(te), Launcher
	l.shift = int32(te + 1)
}

// unixMillis reads decimal milliseconds since the Unix epoch.
func unixMillis(b []byte) (time.Time, bool) {
	if len(b) == 0 || len(b) > 15 || bytes.IndexFunc(b, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return time.Time{}, false
	}
	n, _ := ParseUint(b)
	return time.UnixMilli(n).UTC(), true
}
