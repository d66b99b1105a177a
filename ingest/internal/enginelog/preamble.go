package enginelog

import (
	"bytes"
	"errors"

	"github.com/outlast-dev/outlast/textpos"
)

// This file takes apart what stands in front of an engine's own line. A
// line as read may carry, outermost first:
//
//	colour      ANSI escape sequences anywhere in the line (stripped first)
//	wrappers    prefixes of the tools that collected the log (wrappers)
//	processes   "(Name pid=N ...)" prefixes of the engine's own processes
//
// and then the engine's header, which each reader parses from Line.Start.
// Both readers get every wrapper and colour form recognised here: this is
// the one place to add a new one.

// Line is one line of an engine log with its preamble taken apart.
type Line struct {
	Pos textpos.Pos
	// Raw is the line as read.
	Raw []byte
	// Text is Raw without its colour codes: Raw itself when it had none.
	// Offsets below are offsets in Text.
	Text []byte
	// Start is where the engine's own line begins, after the wrappers and
	// the process prefixes.
	Start int
	// procs holds the start and end of each process prefix's name in
	// Text, as offsets: a line is taken apart without storing a pointer
	// in the heap, which costs a write barrier while the GC runs.
	procs    []int32
	stripped bool
}

// Procs returns the number of process prefixes.
func (l *Line) Procs() int { return len(l.procs) / 2 }

// Proc returns the name of the i-th process prefix ("APIServer",
// "EngineCore_DP0"), counting from the outermost.
func (l *Line) Proc(i int) []byte { return l.Text[l.procs[2*i]:l.procs[2*i+1]] }

// Col returns the 1-based column in Raw of offset off in Text, for an
// error. It is 0 (no column) for a negative off and when colour codes were
// stripped: offsets in the stripped line do not match the raw one.
func (l *Line) Col(off int) int {
	if off < 0 || l.stripped {
		return 0
	}
	return off + 1
}

// Errorf returns an error at offset off of Text (see Col).
func (l *Line) Errorf(off int, format string, args ...any) *textpos.ParseError {
	e := textpos.Errorf(l.Pos, l.Raw, format, args...)
	e.Column = l.Col(off)
	return e
}

// FieldsErr returns err, found in the fields part of l that begins at
// offset at, as an error of the line named what ("vLLM stats line"): at
// the field's column when err is a *FieldError.
func (l *Line) FieldsErr(at int, err error, what string) *textpos.ParseError {
	off := -1
	var fe *FieldError
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

// Preamble takes lines apart, reusing its buffers from line to line.
type Preamble struct {
	clean []byte
	procs []int32
}

// Read takes raw apart, in the order its parts stand. The line's slices
// are valid until the next call.
func (p *Preamble) Read(raw []byte) Line {
	l := Line{Raw: raw}
	l.Text, l.stripped = p.strip(raw)
	l.Start, l.procs = p.processes(l.Text, unwrap(l.Text))
	return l
}

// strip returns raw without its colour codes, and whether it had any.
func (p *Preamble) strip(raw []byte) ([]byte, bool) {
	if bytes.IndexByte(raw, 0x1b) < 0 {
		return raw, false
	}
	p.clean = StripANSI(p.clean[:0], raw)
	return p.clean, true
}

// wrapper returns the length of its prefix at the start of b (with the
// blanks after it), 0 when b does not begin with it.
type wrapper func(b []byte) int

// wrappers are the prefixes that the tools collecting a log put in front
// of each line, outermost first; each is taken off at most once.
var wrappers = [...]wrapper{
	SkipContainerStamp, // docker logs -t, Kubernetes log files
}

// unwrap returns the offset in b after the wrappers.
func unwrap(b []byte) int {
	i := 0
	for _, w := range wrappers {
		i += w(b[i:])
	}
	return i
}

// processes returns the offset in b after the "(Name pid=N ...)" prefixes
// from offset i on, and where their names are (Line.procs). A parenthesis
// that does not close, or holds no " pid=", ends them: it is the engine's
// line, or not a line of the engine's.
func (p *Preamble) processes(b []byte, i int) (int, []int32) {
	if i >= len(b) || b[i] != '(' {
		return i, nil
	}
	p.procs = p.procs[:0]
	for i < len(b) && b[i] == '(' {
		end := bytes.IndexByte(b[i:], ')')
		if end < 0 {
			break
		}
		inner := b[i+1 : i+end]
		pid := bytes.Index(inner, []byte(" pid="))
		if pid < 0 {
			break
		}
		p.procs = append(p.procs, int32(i+1), int32(i+1+pid))
		i = SkipSpaces(b, i+end+1)
	}
	return i, p.procs
}

// StripANSI appends b without its ANSI escape sequences to dst.
func StripANSI(dst, b []byte) []byte {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != 0x1b {
			dst = append(dst, c)
			continue
		}
		if i+1 < len(b) && b[i+1] == '[' {
			// CSI: parameters and intermediates, then one final byte 0x40-0x7e.
			j := i + 2
			for j < len(b) && b[j] >= 0x20 && b[j] <= 0x3f {
				j++
			}
			i = j // the final byte (or the end)
			continue
		}
		// Other escapes: intermediates 0x20-0x2f, then one final byte
		// (ESC 7, ESC ( B, ...).
		j := i + 1
		for j < len(b) && b[j] >= 0x20 && b[j] <= 0x2f {
			j++
		}
		i = j
	}
	return dst
}

// SkipContainerStamp returns the offset after a leading Docker/Kubernetes
// RFC 3339 stamp ("2026-10-27T12:00:05.123456789Z "), or 0 if there is none.
func SkipContainerStamp(b []byte) int {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0
	}
	if _, ok := Two(b[0:2]); !ok {
		return 0
	}
	if _, ok := Two(b[2:4]); !ok {
		return 0
	}
	sp := bytes.IndexByte(b, ' ')
	if sp < 0 {
		return 0
	}
	return SkipSpaces(b, sp)
}
