package main

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/internal/slowtest"
)

// TestProgressPastItsCount draws a terminal bar for more steps than it was
// given, as reading a dataset that another ingest grows does: the bar is
// full, not a panic.
func TestProgressPastItsCount(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, label: "report ds", n: 2, tty: true, on: true}
	for i := 1; i <= 4; i++ {
		p.stepDone(i, "r")
	}
	if !strings.Contains(b.String(), "["+strings.Repeat("=", 30)+"] 4/2 r") {
		t.Errorf("bar %q", b.String())
	}
}

// TestReplayClearsItsBar runs replay with standard output and error on one
// terminal, as a user at a shell has them: the bar is cleared before the
// results are printed, so that no line of them starts after the bar's
// text.
func TestReplayClearsItsBar(t *testing.T) {
	slowtest.SkipUnderRace(t, "simulates and replays a run")
	dir := t.TempDir()
	sim, ds := filepath.Join(dir, "sim"), filepath.Join(dir, "ds")
	mustRunOutlast(t, "simulate", "-q", "--design", "paired", "--duration", "20m", "--burst", "none", "-o", sim)
	mustRunOutlast(t, "ingest", "-q", "-o", ds, sim)
	defer func(f func(io.Writer) bool) { isTerminal = f }(isTerminal)
	isTerminal = func(io.Writer) bool { return true }
	var term bytes.Buffer
	if err := run(&term, &term, []string{"replay", ds, "--run", "s501-burst", "--seeds", "2", "--pool", "2x", "--find-pool", "--target", "0.5", "--max-seeds", "8", "-o", filepath.Join(dir, "r")}); err != nil {
		t.Fatalf("%v\n%s", err, term.String())
	}
	// The bar never writes a newline: a line whose visible part (after its
	// last "\r\033[K") is a bar was ended by other output written after it.
	for _, line := range strings.Split(term.String(), "\n") {
		if i := strings.LastIndex(line, "\r\033[K"); i >= 0 && strings.HasPrefix(line[i+len("\r\033[K"):], "replay [") {
			t.Errorf("output printed after the bar on its line: %q", line[i:])
		}
	}
}

// TestExportToTerminalDrawsNoBar exports to standard output on the
// terminal the bar would be drawn on: the rows are written as the runs are
// read, so a bar would be drawn among them; there is none.
func TestExportToTerminalDrawsNoBar(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	mustRunOutlast(t, "ingest", "-q", "-o", ds, filepath.Join("..", "..", "fixtures", "real", "vllm-0.10"), filepath.Join("..", "..", "fixtures", "real", "sglang-2026"))
	defer func(f func(io.Writer) bool) { isTerminal = f }(isTerminal)
	isTerminal = func(io.Writer) bool { return true }
	var term bytes.Buffer
	if err := run(&term, &term, []string{"export", ds, "--table", "turns"}); err != nil {
		t.Fatalf("%v\n%s", err, term.String())
	}
	if strings.Contains(term.String(), "\033[K") {
		t.Errorf("a bar among the rows:\n%q", term.String())
	}
	// To a file, the bar is drawn.
	term.Reset()
	if err := run(&term, &term, []string{"export", ds, "--table", "turns", "-o", filepath.Join(dir, "t.csv")}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(term.String(), "export ds [") {
		t.Errorf("no bar when exporting to a file: %q", term.String())
	}
}
