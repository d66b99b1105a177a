package enginelog

import (
	"bytes"
	"errors"
	"time"

	"github.com/outlast-dev/outlast/textpos"
)

// This file takes apart what stands in front of an engine's own line. A
// line as read may carry, outermost first:
//
//	colour      ANSI escape sequences anywhere in the line, and colour
//	            codes whose ESC byte was lost (colour.go), stripped first
//	wrappers    prefixes of the tools that collected the log (wrappers.go)
//	processes   "(Name pid=N ...)" prefixes of the engine's own processes,
//	            or of Ray's actors
//
// and then the engine's header, which each reader parses from Line.Start.
// Blanks, tabs and carriage returns at the end of a line are not part of
// it: a terminal copy pads lines with spaces, a CRLF file ends them in
// "\r".

// Line is one line of an engine log with its preamble taken apart.
type Line struct {
	Pos textpos.Pos
	// Raw is the line as read.
	Raw []byte
	// Text is Raw without its colour codes and trailing blanks: a slice of
	// Raw when it had no colour codes. Offsets below are offsets in Text.
	Text []byte
	// Start is where the engine's own line begins, after the wrappers and
	// the process prefixes.
	Start int
	// procs holds the start and end of each process prefix's name in
	// Text, as offsets: a line is taken apart without storing a pointer
	// in the heap, which costs a write barrier while the GC runs.
	procs    []int32
	stripped bool
	wrappers WrapperSet
	// The first wrapper stamp: Text[stampAt:stampEnd], and whether it
	// carries its zone.
	stampAt, stampEnd int32
	stampZoned        bool
	// The stamp of a line of JSON (DockerJSON's "time", JournaldJSON's
	// "__REALTIME_TIMESTAMP") or of the escape in front of a line of a
	// Buildkite log (Launcher's, buildkite.go): Raw[jsonAt:jsonEnd], and
	// which it is.
	jsonAt, jsonEnd int32
	jsonKind        Wrapper
	// shift is where Text begins in Raw, for Col.
	shift int32
}

// Procs returns the number of process prefixes.
func (l *Line) Procs() int { return len(l.procs) / 2 }

// Proc returns the name of the i-th process prefix ("APIServer",
// "EngineCore_DP0"), counting from the outermost.
func (l *Line) Proc(i int) []byte { return l.Text[l.procs[2*i]:l.procs[2*i+1]] }

// Wrappers returns the wrappers in front of the line, Ray's among them
// when a process prefix is not one of the engine's own (OwnProcess).
func (l *Line) Wrappers() WrapperSet { return l.wrappers }

// WrapperStamp returns the stamp of the outermost wrapper that has one,
// as written; nil if none has.
func (l *Line) WrapperStamp() []byte {
	if l.jsonEnd > 0 {
		return l.Raw[l.jsonAt:l.jsonEnd] // the outermost
	}
	if l.stampEnd == 0 {
		return nil
	}
	return l.Text[l.stampAt:l.stampEnd]
}

// WrapperTime returns the instant of the wrapper stamp when it carries its
// zone (an RFC 3339 stamp with "Z" or an offset); false for none and for
// wall-clock stamps, whose zone is the collecting machine's and unknown.
// Readers use it only for a line without a stamp of the engine's own: the
// two clocks often disagree (a UTC container stamp in front of an engine
// printing local time).
func (l *Line) WrapperTime() (time.Time, bool) {
	switch {
	case l.jsonEnd > 0 && l.jsonKind == JournaldJSON:
		return unixMicros(l.WrapperStamp())
	case l.jsonEnd > 0 && l.jsonKind == Launcher:
		return unixMillis(l.WrapperStamp())
	case !l.stampZoned && l.jsonEnd == 0:
		return time.Time{}, false
	}
	return parseZoned(string(l.WrapperStamp()))
}

// Col returns the 1-based column in Raw of offset off in Text, for an
// error: off shifted to where Text begins in Raw (inside a line of JSON,
// its string). It is 0 (no column) for a negative off, when colour codes
// were stripped, and when a JSON string had escapes before its end:
// offsets in such a line do not match the raw one.
func (l *Line) Col(off int) int {
	if off < 0 || l.stripped {
		return 0
	}
	return off + int(l.shift) + 1
}

// Errorf returns an error at offset off of Text (see Col).
func (l *Line) Errorf(off int, format string, args ...any) *textpos.ParseError {
	e := textpos.Errorf(l.Pos, l.Raw, format, args...)
	e.Column = l.Col(off)
	return e
}

// FieldsErr returns err, found in the fields part of l that begins at
// offset at, as an error of the line named what ("vLLM stats line"): at
// the field's column when err is a *textpos.Reason (Fields' errors).
func (l *Line) FieldsErr(at int, err error, what string) *textpos.ParseError {
	off := -1
	var fe *textpos.Reason
	if errors.As(err, &fe) {
		off = at + fe.Off
	}
	return l.Errorf(off, "%s: %v", what, err)
}

// ReadLine takes raw apart with a Preamble of its own, for a line now and
// then, such as a reader's Match.
func ReadLine(raw []byte) *Line {
	l := new(Preamble).Read(raw)
	return &l
}

// Match reports whether raw looks like a line of an engine, for a
// reader's Match: parseHeader finds a header of the engine's where the
// preamble ends (at l.Start; the line is looked at again without its
// colour remnants), elsewhere a line of the engine's further on.
func Match[H any](raw []byte, parseHeader func(l *Line, i int) (H, bool), elsewhere func(l *Line) bool) bool {
	var p Preamble
	l := p.Read(raw)
	header := func() bool {
		_, ok := parseHeader(&l, l.Start)
		return ok
	}
	return header() || p.Uncolour(&l) && header() || elsewhere(&l)
}

// Preamble takes lines apart, reusing its buffers from line to line.
type Preamble struct {
	clean, clean2 []byte
	json          []byte // a Docker json-file line's text, decoded
	procs         []int32
}

// Read takes raw apart, in the order its parts stand. The line's slices
// are valid until the next call.
//
// Colour codes whose ESC byte was lost are looked for only where they
// stand in front of the engine's line (where a prefix or the header
// begins, "[1;36m(APIServer pid=1)"): a line is scanned for them all
// through only by Uncolour, which the readers call for a line whose header
// they cannot find, so that the common line costs nothing more.
func (p *Preamble) Read(raw []byte) Line {
	l := Line{Raw: raw}
	l.Text = raw
	switch {
	case bytes.HasPrefix(raw, dockerJSONLog), bytes.HasPrefix(raw, dockerJSONLogSpaced):
		p.dockerJSON(&l)
	case bytes.HasPrefix(raw, journalCursor), bytes.HasPrefix(raw, journalCursorSpaced):
		p.journaldJSON(&l, 0)
	case len(raw) > 0 && raw[0] == recordSep && (bytes.HasPrefix(raw[1:], journalCursor) || bytes.HasPrefix(raw[1:], journalCursorSpaced)):
		p.journaldJSON(&l, 1)
	case bytes.HasPrefix(raw, bkStamp):
		p.buildkite(&l)
	}
	if bytes.IndexByte(l.Text, 0x1b) >= 0 {
		p.clean = StripANSI(p.clean[:0], l.Text)
		l.Text, l.stripped = p.clean, true
	}
	l.Text = cutRayRepeat(trimEnd(l.Text))
	if b := l.Text; len(b) > 1 && b[0] == '[' && b[1] >= '0' && b[1] <= '9' && !launcherLikely(b) && !remnantAt(b) {
		if l.jsonEnd > 0 {
			l.wrappers.add(l.jsonKind)
		}
		return l // SGLang's own header, most of its lines: nothing in front
	}
	p.parts(&l)
	if remnantAt(l.Text[l.Start:]) {
		p.Uncolour(&l)
	}
	return l
}

// parts finds the wrappers and process prefixes of l.
func (p *Preamble) parts(l *Line) {
	l.wrappers, l.stampAt, l.stampEnd, l.stampZoned = 0, 0, 0, false
	if l.jsonEnd > 0 {
		l.wrappers.add(l.jsonKind)
	}
	l.Start = unwrap(l)
	l.Start, l.procs = p.processes(l, l.Start)
}

// Uncolour strips the colour codes whose ESC byte was lost from all of
// l.Text and takes the line apart again, reporting whether it had any.
func (p *Preamble) Uncolour(l *Line) bool {
	at := firstRemnant(l.Text)
	if at < 0 {
		return false
	}
	p.clean2 = stripRemnants(p.clean2[:0], l.Text, at)
	l.Text, l.stripped = p.clean2, true
	p.parts(l)
	return true
}

// trimEnd returns b without the blanks, tabs and carriage returns at its
// end.
func trimEnd(b []byte) []byte {
	n := len(b)
	for n > 0 && (b[n-1] == ' ' || b[n-1] == '\t' || b[n-1] == '\r') {
		n--
	}
	return b[:n]
}

// Ray's log deduplication (python/ray/_private/ray_logging: "lines of
// the same pattern ... are buffered for up to five seconds and printed in
// batch") ends the line it prints for several processes' alike lines with
// " [repeated Nx across cluster]", the first such line also with
// " (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 ...)". The
// line is one process's, as it printed it.
var (
	rayRepeat    = []byte(" [repeated ")
	rayRepeatEnd = []byte("x across cluster]")
	rayDedupNote = []byte(" (Ray deduplicates logs by default.")
	rayNoteEnd   = []byte("for more options.)")
)

// cutRayRepeat returns b without Ray's deduplication suffix, if it ends
// with one.
func cutRayRepeat(b []byte) []byte {
	if n := len(b); n == 0 || b[n-1] != ']' && b[n-1] != ')' {
		return b // most lines: one comparison
	}
	if bytes.HasSuffix(b, rayNoteEnd) {
		i := bytes.LastIndex(b, rayDedupNote)
		if i < 0 {
			return b
		}
		b = b[:i]
	}
	if !bytes.HasSuffix(b, rayRepeatEnd) {
		return b
	}
	i := bytes.LastIndex(b, rayRepeat)
	if i < 0 || digits(b[i+len(rayRepeat):]) != len(b)-i-len(rayRepeat)-len(rayRepeatEnd) {
		return b
	}
	return trimEnd(b[:i])
}

// processes returns the offset in l.Text after the "(Name pid=N ...)"
// prefixes from offset i on, and where their names are (Line.procs); a
// name that is not one of the engine's own, or none ("(pid=N, ip=A)"),
// or a node's ", ip=A" after the pid, marks the line as Ray's. A
// parenthesis that does not close, or holds no " pid=", ends them: it is
// the engine's line, or not a line of the engine's.
func (p *Preamble) processes(l *Line, i int) (int, []int32) {
	b := l.Text
	if i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i += cutRemnant(b[i:])
	}
	if i >= len(b) || b[i] != '(' {
		return i, nil
	}
	p.procs = p.procs[:0]
	for i < len(b) && b[i] == '(' {
		n, name := procPrefix(b[i:])
		if n == 0 {
			break
		}
		p.procs = append(p.procs, int32(i+1), int32(i+name))
		if !OwnProcess(b[i+1:i+name]) || bytes.Contains(b[i+name:i+n], rayIP) {
			l.wrappers.add(Ray)
		}
		i = SkipSpaces(b, i+n)
	}
	return i, p.procs
}

// procPrefix returns the length of a "(Name pid=N ...)" prefix at the
// start of b, the parentheses balanced (Ray Data names its actors
// "MapWorker(MapBatches(...))"), or of Ray's nameless "(pid=N ...)", and
// the offset where its name ends (its " pid=" begins); 0 when b does not
// begin with one.
func procPrefix(b []byte) (n, name int) {
	if len(b) == 0 || b[0] != '(' {
		return 0, 0
	}
	end := bytes.IndexByte(b, ')')
	if end < 0 {
		return 0, 0
	}
	if bytes.IndexByte(b[1:end], '(') >= 0 {
		// Nested: find the parenthesis that closes the first.
		depth := 0
		for i, c := range b {
			if c == '(' {
				depth++
			} else if c == ')' {
				if depth--; depth == 0 {
					end = i
					break
				}
			}
		}
		if depth != 0 {
			return 0, 0
		}
	}
	if bytes.HasPrefix(b[1:end], rayNameless) {
		return end + 1, 1 // Ray's task or worker without a name: "(pid=N, ip=A)"
	}
	pid := bytes.Index(b[1:end], []byte(" pid="))
	if pid < 0 {
		return 0, 0
	}
	return end + 1, pid + 1
}

// rayIP follows the pid in a prefix of Ray's for a worker on another
// node; the engines' own prefixes ("(APIServer pid=N)") never carry it,
// whatever the name in front (an actor may be named like an engine's
// process).
var rayIP = []byte(", ip=")

// rayNameless begins the prefix Ray forwards the output of a worker that
// runs no named actor or task with: "(pid=N)", "(pid=N, ip=A)"
// (print_worker_logs in python/ray/_private/worker.py prints
// "(<actor or task name> pid=N, ip=A)", the name and its blank left out
// when there is none, ", ip=A" when the worker is on another node).
var rayNameless = []byte("pid=")

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
