package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// version is outlast's version, recorded in every dataset file. It is a
// constant, not the build time, so outputs stay reproducible.
const version = "0.1.0"

// errHelp ends a command after its help was printed, with exit status 0.
var errHelp = &exitError{code: 0, err: errors.New("")}

// parseFlags parses args. --help prints the command's help to stdout and
// returns errHelp; any other flag error is a usage error (exit status 2).
// Flags may follow positional arguments ("ingest DIR --out ds").
func parseFlags(fs *flag.FlagSet, stdout io.Writer, args []string) error {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return errHelp
		}
		if err != nil {
			return usageErrorf("%s: %v (see outlast %s --help)", fs.Name(), err, fs.Name())
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return fs.Parse(append([]string{"--"}, pos...))
}

// progress draws a one-line bar on stderr when stderr is a terminal, and
// nothing otherwise (CI logs and pipes stay clean).
type progress struct {
	w     io.Writer
	label string
	n     int
	tty   bool
}

func newProgress(w io.Writer, label string, n int) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	return &progress{w: w, label: label, n: n, tty: tty}
}

func (p *progress) step(i int, what string) {
	if !p.tty || p.n < 2 {
		return
	}
	const width = 30
	filled := width * i / p.n
	fmt.Fprintf(p.w, "\r\033[K%s [%s%s] %d/%d %s", p.label,
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled), i, p.n, what)
}

// stepBytes shows i of the n steps done, and bytes of total bytes.
func (p *progress) stepBytes(i int, bytes, total int64) {
	p.step(i, fmt.Sprintf("%.1f/%.1f MB", float64(bytes)/1e6, float64(total)/1e6))
}

func (p *progress) clear() {
	if p.tty && p.n >= 2 {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func (p *progress) done() { p.clear() }
