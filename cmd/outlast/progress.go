package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/term"
)

// progress shows how far a command of several steps has got, on stderr:
// a one-line bar redrawn in place on a terminal, one plain line per step
// elsewhere with --progress always, nothing otherwise (so CI logs and
// pipes stay clean by default).
type progress struct {
	w     io.Writer
	label string
	n     int
	tty   bool
	on    bool
}

// newProgress returns the progress of n steps on w in mode auto, always or
// never (the values of --progress).
func newProgress(w io.Writer, label string, n int, mode string) *progress {
	tty := isTerminal(w)
	on := n >= 2 && (mode == "always" || mode == "auto" && tty)
	return &progress{w: w, label: label, n: n, tty: tty, on: on}
}

// isTerminal reports whether w is a terminal; a test replaces it.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (p *progress) step(i int, what string) {
	if !p.on {
		return
	}
	if !p.tty {
		fmt.Fprintf(p.w, "%s %d/%d %s\n", p.label, i+1, p.n, what)
		return
	}
	const width = 30
	// min: a dataset another ingest writes to while it is read can give
	// more runs than were counted at the start.
	filled := min(width*i/p.n, width)
	fmt.Fprintf(p.w, "\r\033[K%s [%s%s] %d/%d %s", p.label,
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled), i, p.n, what)
}

// stepBytes shows that done of the n steps are done, the last what, and
// bytes of their total: a campaign's run directories and their inputs.
func (p *progress) stepBytes(done int, what string, bytes, total int64) {
	if !p.on {
		return
	}
	mb := fmt.Sprintf("%.1f/%.1f MB", float64(bytes)/1e6, float64(total)/1e6)
	if !p.tty {
		fmt.Fprintf(p.w, "%s %d/%d %s (%s)\n", p.label, done, p.n, filepath.Base(what), mb)
		return
	}
	p.step(done, mb)
}

// stepDone shows that done of the n steps are done, the last what.
func (p *progress) stepDone(done int, what string) {
	if p.on && !p.tty {
		fmt.Fprintf(p.w, "%s %d/%d %s\n", p.label, done, p.n, what)
		return
	}
	p.step(done, what)
}

// clear erases the bar, so that a line printed next starts clean.
func (p *progress) clear() {
	if p.on && p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func (p *progress) done() { p.clear() }
