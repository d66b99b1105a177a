package enginelog

import (
	"bytes"
	"math/bits"
	"strings"
	"time"
)

// This file recognises the wrappers: what the tools that collected a log
// put in front of each of the engine's lines. Both readers get every
// wrapper recognised here; this is the one place to add a new one.

// Wrapper is a kind of wrapper.
type Wrapper uint8

// The wrappers, in the order WrapperSet.String names them. The names are
// those of the real-lines corpus (fixtures/real-lines/README.md).
const (
	// LogExport is a cloud console's export, "<epoch ms>\t<RFC 3339>\t".
	LogExport Wrapper = iota
	// CRI is a Kubernetes node's container log file (the CRI logging
	// format of kubelet), "<RFC 3339> stdout|stderr F|P ".
	CRI
	// Journald is journalctl's (or syslog's) "Mon DD HH:MM:SS host
	// ident[pid]: ", also with an ISO 8601 stamp (journalctl -o short-iso).
	Journald
	// Container is the RFC 3339 stamp of `docker logs -t` and `kubectl
	// logs --timestamps`, "2025-10-15T00:00:48.753199366Z ".
	Container
	// KubectlPrefix is `kubectl logs --prefix`'s "[pod/NAME/CONTAINER] ".
	KubectlPrefix
	// Pipe is a log viewer's "YYYY-MM-DD HH:MM:SS.mmm | ".
	Pipe
	// Compose is docker compose's "service-1  | " (v1: "name_1  | ").
	Compose
	// Slurm is `srun --label`'s task number, "0: ".
	Slurm
	// Launcher is a launcher's or supervisor's own "[YYYY-MM-DD HH:MM:SS]
	// " stamp, with or without a level word after it.
	Launcher
	// Ray is Ray's "(Actor pid=N[, ip=A])" in front of an actor's output,
	// told from the engine's own process prefixes by name (OwnProcess).
	Ray
	numWrappers
)

var wrapperNames = [numWrappers]string{
	"logexport-tsv", "cri", "journald", "container-rfc3339", "kubectl-prefix", "timestamp-pipe", "docker-compose", "slurm-label", "launcher", "ray",
}

// String returns the wrapper's name.
func (w Wrapper) String() string { return wrapperNames[w] }

// WrapperSet is a set of wrappers.
type WrapperSet uint16

// Has reports whether w is in s.
func (s WrapperSet) Has(w Wrapper) bool { return s&(1<<w) != 0 }

func (s *WrapperSet) add(w Wrapper) { *s |= 1 << w }

// String returns the names of the wrappers in s joined by "+", in the
// order of the constants; "" for none.
func (s WrapperSet) String() string {
	var names []string
	for w := range numWrappers {
		if s.Has(w) {
			names = append(names, w.String())
		}
	}
	return strings.Join(names, "+")
}

// stampSpan is where a wrapper's stamp stands, relative to where the
// wrapper begins, and whether it carries its zone (an instant, not a
// wall-clock time).
type stampSpan struct {
	at, end int
	zoned   bool
}

// matcher returns the length of its wrapper at the start of b, with the
// blanks after it, and the wrapper's stamp; 0 when b does not begin with
// it.
type matcher func(b []byte) (int, stampSpan)

// matchers are the wrappers tried at each step of unwrapping, each with
// the bytes it can begin with.
var matchers = [...]struct {
	kind  Wrapper
	m     matcher
	first string
}{
	{LogExport, matchLogExport, digitBytes},
	{Journald, matchJournald, digitBytes + "JFMASOND"},
	{Container, matchContainer, digitBytes}, // also CRI
	{KubectlPrefix, matchKubectlPrefix, "["},
	{Pipe, matchPipe, digitBytes},
	{Compose, matchCompose, digitBytes + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"},
	{Slurm, matchSlurm, digitBytes + " "},
	{Launcher, matchLauncher, "["},
}

const digitBytes = "0123456789"

// launcherBit is the Launcher matcher's bit in candidates.
var launcherBit = func() uint16 {
	for k, m := range matchers {
		if m.kind == Launcher {
			return 1 << k
		}
	}
	return 0
}()

// candidates are, for each byte, the matchers (as bits of their index)
// that a wrapper beginning with it may be: most lines begin with a byte
// that begins none ("(APIServer pid=1)"), and are not looked at again.
var candidates = func() (c [256]uint16) {
	for k, m := range matchers {
		for i := range len(m.first) {
			c[m.first[i]] |= 1 << k
		}
	}
	return c
}()

// unwrap takes the wrappers off the front of l.Text, in any order and
// nesting, each kind at most once, and returns the offset after them.
func unwrap(l *Line) int {
	b, i := l.Text, 0
	for i < len(b) {
		cand := candidates[b[i]]
		if b[i] == '[' && i+1 < len(b) {
			// "[2026-..." can be a launcher's stamp, "[pod/..." kubectl's;
			// SGLang's own "[2026-07-20 10:15:03 TP0] " and "[2026-07-20
			// 10:15:03] Decode" are neither, told without a call.
			if b[i+1] < '0' || b[i+1] > '9' {
				cand &^= launcherBit
			} else if !launcherLikely(b[i:]) {
				break
			} else {
				cand &= launcherBit
			}
		}
		n := 0
		for ; cand != 0 && n == 0; cand &= cand - 1 {
			k := bits.TrailingZeros16(cand)
			if l.wrappers.Has(matchers[k].kind) {
				continue
			}
			var st stampSpan
			if n, st = matchers[k].m(b[i:]); n == 0 {
				continue
			}
			kind := matchers[k].kind
			if kind == Container && isCRI(b[i+st.end:i+n]) {
				kind = CRI
			}
			l.wrappers.add(kind)
			if st.end > 0 && l.stampEnd == 0 {
				l.stampAt, l.stampEnd, l.stampZoned = int32(i+st.at), int32(i+st.end), st.zoned
			}
		}
		if n == 0 {
			break
		}
		i += n
	}
	return i
}

// matchLogExport matches "<epoch ms>\t<RFC 3339>\t".
func matchLogExport(b []byte) (int, stampSpan) {
	d := digits(b)
	if d < 10 || d > 19 || d >= len(b) || b[d] != '\t' {
		return 0, stampSpan{}
	}
	n, zoned := rfc3339(b[d+1:])
	if n == 0 || d+1+n >= len(b) || b[d+1+n] != '\t' {
		return 0, stampSpan{}
	}
	return d + n + 2, stampSpan{d + 1, d + 1 + n, zoned}
}

// matchContainer matches "<RFC 3339> ", and the CRI format's "<RFC 3339>
// stdout|stderr F|P " (isCRI tells them apart).
func matchContainer(b []byte) (int, stampSpan) {
	n, zoned := rfc3339(b)
	if n == 0 || n >= len(b) || b[n] != ' ' {
		return 0, stampSpan{}
	}
	end := n + 1
	if isCRI(b[n:]) {
		end = n + len(" stdout F ")
	}
	return SkipSpaces(b, end), stampSpan{0, n, zoned}
}

// isCRI reports whether b, what follows an RFC 3339 stamp, begins with
// the CRI format's " stdout F " (stream, then F for a full line or P for a
// partial one).
func isCRI(b []byte) bool {
	if len(b) < len(" stdout F ") || b[0] != ' ' || b[7] != ' ' || b[9] != ' ' {
		return false
	}
	s := b[1:7]
	return (string(s) == "stdout" || string(s) == "stderr") && (b[8] == 'F' || b[8] == 'P')
}

var months = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// matchJournald matches "Mon DD HH:MM:SS host ident[pid]: " (the day
// may be space-padded, the time may have a fraction) and the same with
// an ISO 8601 stamp.
func matchJournald(b []byte) (int, stampSpan) {
	var n int
	var zoned bool
	if len(b) >= 15 && b[3] == ' ' && b[6] == ' ' && isMonth(b[:3]) && (b[4] == ' ' || b[4] >= '0' && b[4] <= '3') && b[5] >= '0' && b[5] <= '9' {
		var st Stamp
		if !st.TimeOfDay(b[7:]) {
			return 0, stampSpan{}
		}
		n = 15
		if n < len(b) && b[n] == '.' {
			n += 1 + digits(b[n+1:])
		}
	} else if n, zoned = rfc3339(b); n == 0 {
		return 0, stampSpan{}
	}
	// " host ident[pid]: "
	if n >= len(b) || b[n] != ' ' {
		return 0, stampSpan{}
	}
	host := bytes.IndexByte(b[n+1:], ' ')
	if host <= 0 {
		return 0, stampSpan{}
	}
	i := n + 1 + host + 1
	open := bytes.IndexByte(b[i:], '[')
	if open <= 0 || bytes.IndexByte(b[i:i+open], ' ') >= 0 {
		return 0, stampSpan{}
	}
	i += open + 1
	d := digits(b[i:])
	if d == 0 || !bytes.HasPrefix(b[i+d:], []byte("]: ")) {
		return 0, stampSpan{}
	}
	return i + d + 3, stampSpan{0, n, zoned}
}

func isMonth(b []byte) bool {
	for _, m := range months {
		if string(b) == m {
			return true
		}
	}
	return false
}

// matchKubectlPrefix matches "[pod/NAME/CONTAINER] " (also another kind
// of object than a pod: "[deployment/NAME/CONTAINER] ").
func matchKubectlPrefix(b []byte) (int, stampSpan) {
	if len(b) < 8 || b[0] != '[' || b[1] < 'a' || b[1] > 'z' {
		return 0, stampSpan{}
	}
	end := bytes.IndexByte(b, ']')
	if end < 0 || end+1 >= len(b) || b[end+1] != ' ' {
		return 0, stampSpan{}
	}
	inner := b[1:end]
	if bytes.Count(inner, []byte("/")) != 2 || bytes.IndexByte(inner, ' ') >= 0 {
		return 0, stampSpan{}
	}
	return end + 2, stampSpan{}
}

// matchPipe matches "YYYY-MM-DD HH:MM:SS(.mmm)? | ".
func matchPipe(b []byte) (int, stampSpan) {
	var st Stamp
	if len(b) < 22 || !st.Date(b) || b[10] != ' ' || !st.TimeOfDay(b[11:]) {
		return 0, stampSpan{}
	}
	n := 19
	if b[n] == '.' {
		n += 1 + digits(b[n+1:])
	}
	if !bytes.HasPrefix(b[n:], []byte(" | ")) {
		return 0, stampSpan{}
	}
	return n + 3, stampSpan{0, n, false}
}

// matchCompose matches "name<spaces>| ": a service or container name,
// padded to the longest, then "| ".
func matchCompose(b []byte) (int, stampSpan) {
	i := 0
	for i < len(b) && (b[i] >= 'a' && b[i] <= 'z' || b[i] >= 'A' && b[i] <= 'Z' || b[i] >= '0' && b[i] <= '9' || i > 0 && (b[i] == '-' || b[i] == '_' || b[i] == '.')) {
		i++
	}
	if i == 0 || i >= len(b) || b[i] != ' ' {
		return 0, stampSpan{}
	}
	j := SkipSpaces(b, i)
	if j >= len(b) || b[j] != '|' || j+1 < len(b) && b[j+1] != ' ' {
		return 0, stampSpan{}
	}
	return min(j+2, len(b)), stampSpan{}
}

// matchSlurm matches srun --label's "N: ", right-aligned with spaces
// when there are ten tasks or more.
func matchSlurm(b []byte) (int, stampSpan) {
	i := SkipSpaces(b, 0)
	d := digits(b[i:])
	if d == 0 || d > 6 || !bytes.HasPrefix(b[i+d:], []byte(": ")) {
		return 0, stampSpan{}
	}
	return i + d + 2, stampSpan{}
}

// levelWord returns the length of one of Python logging's level names, as
// launchers and vLLM print them, and its space at the start of b; 0 if b
// does not begin with one.
func levelWord(b []byte) int {
	if len(b) < 5 {
		return 0
	}
	var w string
	switch b[0] {
	case 'I':
		w = "INFO "
	case 'D':
		w = "DEBUG "
	case 'W':
		if w = "WARNING "; b[4] == ' ' {
			w = "WARN "
		}
	case 'E':
		w = "ERROR "
	case 'C':
		w = "CRITICAL "
	default:
		return 0
	}
	// The second letter first: "Decode batch" after SGLang's stamp is
	// turned down without a comparison of strings.
	if b[1] != w[1] || len(b) < len(w) || string(b[:len(w)]) != w {
		return 0
	}
	return len(w)
}

// matchLauncher matches a launcher's "[YYYY-MM-DD HH:MM:SS(,mmm)?] ". The
// same stamp, alone, is SGLang's own header, so it is a wrapper only when
// a level word, a process prefix, another bracketed stamp or a vLLM header
// follows; a level word followed by another line's start is the
// launcher's and is taken with it.
func matchLauncher(b []byte) (int, stampSpan) {
	if len(b) < 23 || b[0] != '[' {
		return 0, stampSpan{}
	}
	end := 20
	if b[end] == ',' || b[end] == '.' {
		end += 1 + digits(b[end+1:])
	}
	if end >= len(b) || b[end] != ']' {
		return 0, stampSpan{}
	}
	i := SkipSpaces(b, end+1)
	if i == end+1 || i >= len(b) {
		return 0, stampSpan{}
	}
	switch b[i] {
	case '(', '[', 'I', 'D', 'W', 'E', 'C': // a line's start, a level word
	default:
		return 0, stampSpan{}
	}
	// What follows first, the stamp after: SGLang's own "[date time]
	// Decode batch, ..." is turned down without parsing its stamp.
	n := 0
	if startsLine(b[i:]) {
		n = i
	} else if lw := levelWord(b[i:]); lw > 0 {
		var st Stamp
		rest := b[SkipSpaces(b, i+lw):]
		switch {
		case startsLine(rest) || levelWord(rest) > 0:
			n = len(b) - len(rest)
		case len(rest) >= 14 && st.MonthDay(rest) && rest[5] == ' ' && st.TimeOfDay(rest[6:]):
			n = i // the level word begins vLLM's header
		}
	}
	var st Stamp
	if n == 0 || !st.Date(b[1:]) || b[11] != ' ' || !st.TimeOfDay(b[12:]) {
		return 0, stampSpan{}
	}
	return n, stampSpan{1, end, false}
}

// launcherLikely reports whether b, which begins with "[" and a digit,
// may begin with a launcher's stamp: "]" (or a fraction) after the time
// and then what matchLauncher looks for.
func launcherLikely(b []byte) bool {
	if len(b) < 23 || b[20] != ']' && b[20] != ',' && b[20] != '.' {
		return false
	}
	if b[20] != ']' {
		return true // a fraction: matchLauncher finds the ']'
	}
	c := b[22]
	return c == '(' || c == '[' || levelWord(b[22:]) > 0
}

// startsLine reports whether b begins with what begins another line: a
// process prefix or a bracketed date.
func startsLine(b []byte) bool {
	var st Stamp
	n, _ := procPrefix(b)
	return n > 0 || len(b) > 11 && b[0] == '[' && st.Date(b[1:])
}

// rfc3339 returns the length of an RFC 3339 date-time at the start of b,
// "2006-01-02T15:04:05" with an optional fraction of any length and an
// optional zone ("Z", "+02:00", "+0200"), and whether it has a zone; 0
// when b does not begin with one.
func rfc3339(b []byte) (int, bool) {
	var st Stamp
	if len(b) < 19 || !st.Date(b) || b[10] != 'T' || !st.TimeOfDay(b[11:]) {
		return 0, false
	}
	n := 19
	if n < len(b) && b[n] == '.' {
		d := digits(b[n+1:])
		if d == 0 {
			return 0, false
		}
		n += 1 + d
	}
	switch {
	case n < len(b) && b[n] == 'Z':
		return n + 1, true
	case n+5 < len(b) && (b[n] == '+' || b[n] == '-') && digits(b[n+1:n+3]) == 2 && b[n+3] == ':' && digits(b[n+4:n+6]) == 2:
		return n + 6, true
	case n+4 < len(b) && (b[n] == '+' || b[n] == '-') && digits(b[n+1:n+5]) == 4:
		return n + 5, true
	}
	return n, false
}

// digits returns the number of ASCII digits at the start of b.
func digits(b []byte) int {
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	return n
}

// parseZoned parses a zoned RFC 3339 stamp as rfc3339 accepts it.
func parseZoned(s string) (time.Time, bool) {
	for _, layout := range [...]string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999-0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// OwnProcess reports whether name, of a "(name pid=N)" prefix, is one an
// engine gives its own processes: vLLM's decorate_logs
// (vllm/utils/system_utils.py) prefixes each process's output with its
// multiprocessing name, "APIServer", "ApiServer_0" (--api-server-count),
// "EngineCore", "EngineCore_DP0", "Worker_TP0", "VllmWorker rank=1" (V1
// until 2025), "VllmWorkerProcess" (V0), "DPCoordinator". Any other name
// in front of a line is Ray's: its actors' output is forwarded as
// "(ActorName pid=N, ip=A)" (vLLM's "_AsyncLLMEngine" and
// "RayWorkerWrapper", SGLang's "SGLangEngine", frameworks' own actors).
func OwnProcess(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	var own string
	switch name[0] {
	case 'A':
		if own = "APIServer"; len(name) > 1 && name[1] == 'p' {
			own = "ApiServer"
		}
	case 'E':
		own = "EngineCore"
	case 'W':
		own = "Worker"
	case 'V':
		return bytes.HasPrefix(name, []byte("VllmWorker"))
	case 'D':
		own = "DPCoordinator"
	default:
		return false
	}
	if len(name) < len(own) || string(name[:len(own)]) != own {
		return false
	}
	return len(name) == len(own) || name[len(own)] == '_' || name[len(own)] == ' '
}
