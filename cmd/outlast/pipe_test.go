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
