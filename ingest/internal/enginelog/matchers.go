package enginelog

import "bytes"

// This file holds the matchers of the wrappers that log collectors put
// in front of a line (wrappers.go lists them), but for the launchers'
// (launcher.go).

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

// tracingLevels are tracing's levels as its fmt layer prints them, right
// aligned in five columns.
var tracingLevels = [...][]byte{[]byte("TRACE "), []byte("DEBUG "), []byte(" INFO "), []byte(" WARN "), []byte("ERROR ")}

// matchTracing matches the head of a line of Rust's tracing-subscriber fmt
// layer in its default (full) format, "<RFC 3339> LEVEL target: ", the
// target a module path ("loggers.log", "dynamo_runtime::component").
// Dynamo's Python logging bridge (ai-dynamo/dynamo#6566) logs the records
// of the engine it runs this way, with the logger's module and function as
// the target: the engine's own header is gone, and the stamp, UTC, times
// the line.
func matchTracing(b []byte) (int, stampSpan) {
	n, zoned := rfc3339(b)
	if n == 0 || n >= len(b) || b[n] != ' ' {
		return 0, stampSpan{}
	}
	lv := 0
	for _, l := range tracingLevels {
		if bytes.HasPrefix(b[n+1:], l) {
			lv = len(l)
			break
		}
	}
	if lv == 0 {
		return 0, stampSpan{}
	}
	i := n + 1 + lv
	j := i
	for j < len(b) {
		c := b[j]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', j > i && (c >= '0' && c <= '9' || c == '.'):
			j++
			continue
		case c == ':' && j > i && j+1 < len(b) && b[j+1] == ':':
			j += 2
			continue
		}
		break
	}
	if j == i || !bytes.HasPrefix(b[j:], []byte(": ")) {
		return 0, stampSpan{}
	}
	return SkipSpaces(b, j+2), stampSpan{0, n, zoned}
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

// matchJournald matches journalctl's default (short) output and its
// short-precise, short-iso, short-full and short-unix forms, "Mon DD
// HH:MM:SS host ident[pid]: ", which syslog writes too: output_short and
// output_timestamp_realtime in systemd's src/shared/logs-show.c. The stamp
// is strftime's "%b %d %H:%M:%S", with ".%06d" in short-precise;
// "%Y-%m-%dT%H:%M:%S" with an offset in short-iso; format_timestamp's
// "Www YYYY-MM-DD HH:MM:SS ZONE" in short-full and with-unit (src/basic/
// time-util.c: an English weekday, the zone's abbreviation, "UTC" with
// --utc, left out when it does not fit); seconds since the epoch,
// "%10d.%06d", in short-unix. "%b" is the month's name in the locale of
// the one who ran journalctl (journalctl sets it from the environment:
// "авг" in Russian, "Okt" in German, "8月" in Chinese), so any short word
// takes its place (journalMonth), also the Japanese and Korean forms,
// which glibc pads to " 8月" with a leading space. The host is left out
// with --no-hostname,
// so it is optional; the day may be space-padded (syslog).
func matchJournald(b []byte) (int, stampSpan) {
	var n int
	var zoned bool
	if m := journalMonth(b); m > 0 && len(b) >= m+12 && b[m] == ' ' && (b[m+1] == ' ' || b[m+1] >= '0' && b[m+1] <= '3') && b[m+2] >= '0' && b[m+2] <= '9' && b[m+3] == ' ' {
		var st Stamp
		if !st.TimeOfDay(b[m+4:]) {
			return 0, stampSpan{}
		}
		n = m + 12
		if n < len(b) && b[n] == '.' {
			n += 1 + digits(b[n+1:])
		}
	} else if n = journalFull(b); n > 0 {
		// The zone, when there is one, stands before the host: its stamp
		// holds it, and times the line when it is UTC.
		if z := journalZone(b, n); z > n {
			if end := journalTail(b, z); end > 0 {
				return end, stampSpan{0, z, string(b[n+1:z]) == "UTC"}
			}
		}
	} else if n = journalUnix(b); n > 0 {
		zoned = true
	} else if n, zoned = rfc3339(b); n == 0 {
		return 0, stampSpan{}
	}
	end := journalTail(b, n)
	if end == 0 {
		return 0, stampSpan{}
	}
	return end, stampSpan{0, n, zoned}
}

// journalTail returns the offset after " host ident[pid]: ", or " ident[pid]:
// " without the host, at b[n:]; 0 if it is not there.
func journalTail(b []byte, n int) int {
	if n >= len(b) || b[n] != ' ' {
		return 0
	}
	i := n + 1
	host := bytes.IndexByte(b[i:], ' ')
	if host == 0 {
		return 0
	}
	open := bytes.IndexByte(b[i:], '[')
	if host > 0 && (open < 0 || host < open) {
		i += host + 1
		open = bytes.IndexByte(b[i:], '[')
	}
	if open <= 0 || bytes.IndexByte(b[i:i+open], ' ') >= 0 {
		return 0
	}
	i += open + 1
	d := digits(b[i:])
	if d == 0 || !bytes.HasPrefix(b[i+d:], []byte("]: ")) {
		return 0
	}
	return i + d + 3
}

var weekdays = [...]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}

// journalFull returns the length of format_timestamp's "Www YYYY-MM-DD
// HH:MM:SS(.uuuuuu)?" at the start of b, without its zone; 0 if b does not
// begin with one.
func journalFull(b []byte) int {
	var st Stamp
	if len(b) < 23 || b[3] != ' ' || b[14] != ' ' || !st.Date(b[4:]) || !st.TimeOfDay(b[15:]) {
		return 0
	}
	wd := false
	for _, w := range weekdays {
		wd = wd || string(b[:3]) == w
	}
	if !wd {
		return 0
	}
	n := 23
	if n < len(b) && b[n] == '.' {
		n += 1 + digits(b[n+1:])
	}
	return n
}

// journalZone returns the offset after the zone's abbreviation that
// follows a short-full stamp ending at n ("CEST", "UTC", "+03"), n if there
// is none.
func journalZone(b []byte, n int) int {
	if n+1 >= len(b) || b[n] != ' ' {
		return n
	}
	z := n + 1
	for z < len(b) && z-n <= 32 && (b[z] >= 'A' && b[z] <= 'Z' || b[z] >= 'a' && b[z] <= 'z' || b[z] >= '0' && b[z] <= '9' || b[z] == '+' || b[z] == '-') {
		z++
	}
	if z == n+1 {
		return n
	}
	return z
}

// journalUnix returns the length of short-unix's "%10d.%06d", seconds
// since the Unix epoch, at the start of b; 0 if b does not begin with one.
func journalUnix(b []byte) int {
	d := digits(b)
	if d < 9 || d > 12 || d >= len(b) || b[d] != '.' || digits(b[d+1:]) != 6 {
		return 0
	}
	return d + 7
}

// journalMonth returns the length of the month's name at the start of b,
// as strftime's "%b" writes it: an English abbreviation, or in another
// locale a word of up to 12 bytes that is ASCII letters, perhaps ending in
// "." ("janv."), or holds a byte of a UTF-8 character ("авг", "Mär",
// "8月", " 8월" with the space glibc pads Japanese and Korean months
// with); 0 if b does not begin with one.
func journalMonth(b []byte) int {
	if len(b) > 3 && b[3] == ' ' && isMonth(b[:3]) {
		return 3
	}
	if len(b) > 2 && b[0] == ' ' && b[1] >= '1' && b[1] <= '9' {
		// glibc's ja_JP and ko_KR pad a month of one digit with a space
		// (" 8月", " 8월"); only those, whose name is a number and a
		// UTF-8 character, take the space.
		if m := journalMonth(b[1:]); m > 0 && bytes.IndexFunc(b[1:1+m], func(r rune) bool { return r >= 0x80 }) >= 0 {
			return m + 1
		}
		return 0
	}
	n, letters, utf8 := 0, 0, false
	for n < len(b) && n <= 12 && b[n] != ' ' {
		switch c := b[n]; {
		case c >= 0x80:
			utf8 = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letters++
		case c == '.' && n > 0:
		case c >= '0' && c <= '9':
		default:
			return 0
		}
		n++
	}
	if n == 0 || n > 12 || n == len(b) || !utf8 && (letters == 0 || b[0] >= '0' && b[0] <= '9' || letters < n-1 || letters == n-1 && b[n-1] != '.') {
		return 0
	}
	return n
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

// matchPyLogging matches the header of the format of Python's logging
// cookbook, "%(asctime)s - %(name)s - %(levelname)s - %(message)s",
//
//	YYYY-MM-DD HH:MM:SS(,mmm)? - logger - LEVEL -
//
// in front of an engine's line: an application (a supervisor, a
// benchmark harness) that runs the engine as a child process and logs
// each line of its output as a record of its own. The logger is the
// application's; a line whose logger is vLLM's ("vllm", "vllm.…") is
// vLLM's own record in that format, its header (vllmlog's loggerHeader),
// unless another line's start follows it (a process prefix, a bracket,
// a level word and a digit: vLLM's header). The stamp has no zone.
func matchPyLogging(b []byte) (int, stampSpan) {
	var st Stamp
	if len(b) < 19 || !st.Date(b) || b[10] != ' ' || !st.TimeOfDay(b[11:]) {
		return 0, stampSpan{}
	}
	end := 19
	if end < len(b) && (b[end] == ',' || b[end] == '.') {
		n := digits(b[end+1:])
		if n == 0 {
			return 0, stampSpan{}
		}
		end += 1 + n
	}
	if !bytes.HasPrefix(b[end:], pySep) {
		return 0, stampSpan{}
	}
	name := end + len(pySep)
	j := name
	for j < len(b) && b[j] != ' ' {
		j++
	}
	if j == name || !bytes.HasPrefix(b[j:], pySep) {
		return 0, stampSpan{}
	}
	logger := b[name:j]
	j += len(pySep)
	lv := levelWord(b[j:])
	if lv == 0 || !bytes.HasPrefix(b[j+lv-1:], pySep) {
		return 0, stampSpan{}
	}
	n := j + lv - 1 + len(pySep)
	if (bytes.Equal(logger, vllmLogger) || bytes.HasPrefix(logger, vllmLoggerDot)) && !lineStart(b[n:]) {
		return 0, stampSpan{}
	}
	return n, stampSpan{0, end, false}
}

var (
	pySep         = []byte(" - ")
	vllmLogger    = []byte("vllm")
	vllmLoggerDot = []byte("vllm.")
)

// lineStart reports whether b begins like another line of an engine's:
// a process prefix, a bracketed stamp, or a level word and a digit (vLLM's
// header).
func lineStart(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	if b[0] == '(' || b[0] == '[' {
		return true
	}
	lv := levelWord(b)
	return lv > 0 && lv < len(b) && b[lv] >= '0' && b[lv] <= '9'
}
