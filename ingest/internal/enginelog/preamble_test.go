package enginelog

import (
	"fmt"
	"testing"

	"github.com/outlast-dev/outlast/textpos"
)

func TestStripANSIAndContainerStamp(t *testing.T) {
	in := "\x1b[32mINFO\x1b[0m \x1b[90m05-19 14:03:12\x1b[0m msg\x1b(B"
	if got := string(StripANSI(nil, []byte(in))); got != "INFO 05-19 14:03:12 msg" {
		t.Errorf("StripANSI = %q", got)
	}
	line := []byte("2026-10-27T12:00:05.123456789Z   (APIServer pid=1) INFO")
	if i := SkipContainerStamp(line); string(line[i:]) != "(APIServer pid=1) INFO" {
		t.Errorf("SkipContainerStamp left %q", line[i:])
	}
	for _, s := range []string{"INFO 05-19 14:03:12 [x.py:1] m", "[2026-07-20 10:15:03] Prefill batch", "short"} {
		if i := SkipContainerStamp([]byte(s)); i != 0 {
			t.Errorf("SkipContainerStamp(%q) = %d, want 0", s, i)
		}
	}
}

// TestPreamble takes lines apart: what is left for the engine's header,
// the process names, and whether offsets still give columns.
func TestPreamble(t *testing.T) {
	for _, tc := range []struct {
		line, rest, procs string
		cols              bool
	}{
		{"INFO 05-19 14:03:12 [x.py:1] m", "INFO 05-19 14:03:12 [x.py:1] m", "[]", true},
		{"(APIServer pid=1) INFO x", "INFO x", "[APIServer]", true},
		{"(Worker pid=312) (Worker_TP0 pid=312)   INFO x", "INFO x", "[Worker Worker_TP0]", true},
		{"(SGLangEngine pid=7, ip=10.0.0.1) [2026-07-20 10:15:03] x", "[2026-07-20 10:15:03] x", "[SGLangEngine]", true},
		{"2026-10-27T12:03:03.001158525Z (EngineCore pid=2) INFO x", "INFO x", "[EngineCore]", true},
		{"\x1b[0;36m(APIServer pid=1)\x1b[0;0m \x1b[32mINFO\x1b[0m x", "INFO x", "[APIServer]", false},
		// A parenthesis that is not a process prefix ends the prefixes.
		{"(VllmWorker rank=1) INFO x", "(VllmWorker rank=1) INFO x", "[]", true},
		{"(APIServer pid=1) (unclosed INFO x", "(unclosed INFO x", "[APIServer]", true},
		{"", "", "[]", true},
	} {
		var p Preamble
		l := p.Read([]byte(tc.line))
		var names [][]byte
		for i := range l.Procs() {
			names = append(names, l.Proc(i))
		}
		procs := fmt.Sprintf("%s", names)
		if string(l.Text[l.Start:]) != tc.rest || procs != tc.procs || (l.Col(0) != 0) != tc.cols {
			t.Errorf("%q: rest %q, procs %s, column of offset 0 %d; want %q, %s, columns %v",
				tc.line, l.Text[l.Start:], procs, l.Col(0), tc.rest, tc.procs, tc.cols)
		}
	}
}

// TestLineErrors places errors: at a column of the raw line, or without one
// when colour codes were stripped or the place is unknown.
func TestLineErrors(t *testing.T) {
	pos := textpos.Pos{File: "engine.log", Line: 7}
	for _, tc := range []struct {
		raw  string
		off  int
		want string
	}{
		{"INFO x: 1y", 8, "engine.log:7:9: bad"},
		{"INFO x: 1y", -1, "engine.log:7: bad"},
		{"\x1b[32mINFO\x1b[0m x: 1y", 8, "engine.log:7: bad"},
	} {
		l := ReadLine([]byte(tc.raw))
		l.Pos = pos
		if got := l.Errorf(tc.off, "bad").Error(); got != tc.want {
			t.Errorf("%q at %d: %s, want %s", tc.raw, tc.off, got, tc.want)
		}
	}
	l := ReadLine([]byte("INFO Running: 1, Waiting: x"))
	l.Pos = pos
	fe := &FieldError{Off: 7, Err: fmt.Errorf("Waiting: malformed")}
	if got := l.FieldsErr(5, fe, "stats line").Error(); got != "engine.log:7:13: stats line: Waiting: malformed" {
		t.Errorf("FieldsErr = %s", got)
	}
	if got := l.FieldsErr(5, fmt.Errorf("odd"), "stats line").Error(); got != "engine.log:7: stats line: odd" {
		t.Errorf("FieldsErr without a field = %s", got)
	}
}
