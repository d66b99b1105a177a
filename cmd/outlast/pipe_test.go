//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/outlast-dev/outlast/dataset"
)

// closedPipe returns a pipe's write end whose read end is closed, as the
// standard output of "outlast ... | head -0".
func closedPipe(t *testing.T) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() { w.Close() })
	return w
}

// TestClosedPipe checks outlast's output to a reader that went away
// ("outlast ingest ... | head -1"): a command that writes files finishes
// them, exit status 0, since its standard output is only its summary; a
// command whose standard output is its data stops as a killed one would
// (exit status 141, 128 + SIGPIPE); neither prints a broken-pipe error.
func TestClosedPipe(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	for _, tc := range []struct {
		args []string
		code int
		both bool // standard error is the closed pipe too ("2>&1 | head -0")
	}{
		{[]string{"ingest", "--out", ds, filepath.Join("..", "..", "fixtures", "real", "vllm-0.10"), filepath.Join("..", "..", "fixtures", "real", "sglang-2026")}, 0, false},
		{[]string{"report", ds, "--out", filepath.Join(dir, "report")}, 0, false},
		// With -q the findings' warnings are the summary, on standard error.
		{[]string{"report", "-q", ds, "--out", filepath.Join(dir, "report")}, 0, true},
		{[]string{"runs", ds}, 141, false},
		{[]string{"export", ds, "--table", "turns"}, 141, false},
		{[]string{"help"}, 0, false}, // the usage is no data
	} {
		cmd := outlastProc(t, tc.args...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = closedPipe(t), &stderr
		if tc.both {
			cmd.Stderr = cmd.Stdout
		}
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				code = 128 + int(ws.Signal())
			}
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || stderr.Len() > 0 {
			t.Errorf("outlast %q | (closed): exit %d, stderr %q; want exit %d and nothing", tc.args, code, stderr.String(), tc.code)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "report", "index.html")); err != nil {
		t.Errorf("the report whose findings went to a closed pipe: %v", err)
	}
	runs, err := dataset.Runs(ds)
	if err != nil || len(runs) != 2 {
		t.Errorf("the ingest whose summary went to a closed pipe left %v (%v), want its 2 runs", runs, err)
	}
}

// TestSummaryToAFullDisk checks that a command that writes files, whose
// summary could not be written for another reason than its reader going
// away (a full disk: /dev/full), says so with exit status 2 rather than
// ending as if the summary had been printed; its files are still written.
func TestSummaryToAFullDisk(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full here: %v", err)
	}
	defer full.Close()
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	for _, args := range [][]string{
		{"ingest", "--out", ds, filepath.Join("..", "..", "fixtures", "real", "vllm-0.10")},
		{"init", filepath.Join(dir, "run")},
	} {
		if args[0] == "init" {
			copyDir(t, filepath.Join("..", "..", "fixtures", "real", "vllm-0.10"), args[1], "gateway.jsonl")
		}
		cmd := outlastProc(t, args...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = full, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !bytes.Contains(stderr.Bytes(), []byte("writing the summary: ")) ||
			!bytes.Contains(stderr.Bytes(), []byte("no space left on device")) {
			t.Errorf("outlast %q > /dev/full: %v, stderr %q; want exit 2 saying the summary was not written", args, err, stderr.String())
		}
	}
	if runs, err := dataset.Runs(ds); err != nil || len(runs) != 1 {
		t.Errorf("the ingest whose summary could not be written left %v (%v), want its run", runs, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "run", "run.yaml")); err != nil {
		t.Errorf("init whose summary could not be written: %v", err)
	}
}

// copyDir copies the named files of directory from into a new directory
// to.
func copyDir(t *testing.T, from, to string, names ...string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(from, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
