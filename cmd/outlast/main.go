// Command outlast turns the logs of LLM-serving experiments into evidence:
// it ingests run directories into a Parquet dataset, simulates experiments in
// the same formats, and reports the paper's measures. Run "outlast help".
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"syscall"
)

// version is outlast's version, recorded in every dataset file. It is a
// constant, not the build time, so outputs stay reproducible.
const version = "0.1.0"

// command is one subcommand: run(stdout, stderr, args) error.
type command struct {
	summary string
	run     func(stdout, stderr io.Writer, args []string) error
}

// commands is filled by each subcommand's file in an init function.
var commands = map[string]command{}

// exitError carries the exit status an error should produce: 1 for a
// finding (a failed rule of outlast check), 2 for bad input or usage.
type exitError struct {
	code int
	err  error
	// usage marks an error in how outlast was called: dispatch ends its
	// message with where to read how to call the command.
	usage bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// errHelp ends a command after its help was printed, with exit status 0.
var errHelp = &exitError{code: 0, err: errors.New("")}

// usageErrorf is an error in how outlast was called (exit status 2); dispatch
// adds the hint "(see outlast COMMAND --help)".
func usageErrorf(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...), usage: true}
}

// inputError marks err as bad input (exit status 2).
func inputError(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: 2, err: err}
}

// findingError marks err as a finding (exit status 1).
func findingError(err error) error { return &exitError{code: 1, err: err} }

func main() {
	keepWritingPastClosedPipe()
	stop, err := startProfile()
	if err == nil {
		err = run(os.Stdout, os.Stderr, os.Args[1:])
		stop()
	}
	os.Exit(exitCode(err, os.Stderr))
}

// exitBrokenPipe is the exit status of a command whose reader went away,
// 128 + SIGPIPE: what a shell reports of a process SIGPIPE killed.
const exitBrokenPipe = 128 + 13

// summaryError is err, the error writing a command's summary (to standard
// output, or report -q's warnings to standard error), unless the reader
// went away: the files the command wrote are complete, and a summary
// nobody reads is no failure.
func summaryError(err error) error {
	if errors.Is(err, syscall.EPIPE) {
		return nil
	}
	return err
}

// writesFiles wraps the run function of a command whose work is the files
// it writes (ingest, init, simulate, replay), which prints its summary
// without checking each line: the first error writing standard output is
// its error once it has finished, unless the reader went away
// (summaryError). Without this, "outlast ingest ... > /dev/full" would
// end with status 0 and no word of the summary it lost.
func writesFiles(run func(stdout, stderr io.Writer, args []string) error) func(stdout, stderr io.Writer, args []string) error {
	return func(stdout, stderr io.Writer, args []string) error {
		w := &stickyWriter{w: stdout}
		if err := run(w, stderr, args); err != nil {
			return err
		}
		if err := summaryError(w.err); err != nil {
			return fmt.Errorf("writing the summary: %w", err)
		}
		return nil
	}
}

// stickyWriter is w, remembering the first error writing to it.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

// exitCode prints err (if any) and maps it to the process exit status.
// A write to a closed pipe ends the command silently, as SIGPIPE would:
// "outlast runs ds | head -1" is no error to report.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, syscall.EPIPE) {
		return exitBrokenPipe
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err.Error() != "" {
			fmt.Fprintf(stderr, "outlast: %v\n", ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "outlast: %v\n", err)
	return 2
}

// run dispatches to a subcommand. "outlast help" and "outlast --help"
// print the usage on stdout (exit status 0); "outlast" alone prints it on
// stderr, as the diagnostic of a call that does nothing (exit status 2).
// "outlast --version" is "outlast version".
func run(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		usage(stderr)
		return &exitError{code: 2, err: errors.New("")}
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 && args[1] != "help" {
			if _, ok := commands[args[1]]; !ok {
				return unknownCommand(args[1])
			}
			return dispatch(stdout, stderr, args[1], []string{"--help"})
		}
		usage(stdout)
		return nil
	}
	if args[0] == "--version" || args[0] == "-version" {
		return dispatch(stdout, stderr, "version", args[1:])
	}
	if _, ok := commands[args[0]]; !ok {
		return unknownCommand(args[0])
	}
	return dispatch(stdout, stderr, args[0], args[1:])
}

// dispatch runs the command name. The message of a usage error is made to
// begin with the command's name and to end with its help, so that every
// usage error says where it happened and where to look.
func dispatch(stdout, stderr io.Writer, name string, args []string) error {
	err := commands[name].run(stdout, stderr, args)
	var ee *exitError
	if errors.As(err, &ee) && ee.usage {
		msg := ee.err.Error()
		if !strings.HasPrefix(msg, name+":") && !strings.HasPrefix(msg, name+" ") {
			msg = name + ": " + msg
		}
		return &exitError{code: ee.code, err: fmt.Errorf("%s (see outlast %s --help)", msg, name), usage: true}
	}
	return err
}

// unknownCommand is the usage error of a command name outlast lacks: one
// line naming the commands there are.
func unknownCommand(name string) error {
	return &exitError{code: 2, usage: true, err: fmt.Errorf("unknown command %q: the commands are %s (see outlast help)",
		name, strings.Join(commandNames(), ", "))}
}

// commandNames returns the names of the commands, sorted.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func usage(w io.Writer) {
	fmt.Fprint(w, `outlast turns the logs of LLM-serving experiments into evidence.

Usage: outlast <command> [flags] [args]

Commands:
`)
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, strings.TrimPrefix(`

Examples (from simulated runs to their report):
  outlast simulate --design paired --seeds 3 --out runs/paired
  outlast ingest --out ds runs/paired
  outlast runs ds
  outlast report ds --out report

Run "outlast <command> --help" for a command's flags and examples, and
"outlast --version" for the version and the commit it was built from.
Every command takes -h/--help, -q/--quiet and --progress; ingest,
simulate, report, replay, export, compare and check name what they write
with -o/--out.
Exit status: 0 ok, 1 a finding (a rule of "outlast check" failed), 2 bad input or usage.
`, "\n"))
}
