//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/internal/benchgen"
)

// These tests run outlast as real processes (the test binary, which runs
// outlast when called by that name; see TestMain), so that a kill -9 is a
// real one and concurrent ingests hold real locks against each other.

// outlastProc returns the command running outlast with args.
func outlastProc(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Args[0] = "outlast"
	return cmd
}

// bigRun writes a generated run directory named big, large enough (64 MB
// of gateway log) that its ingest takes a while after the stage fills.
func bigRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "big")
	if _, err := benchgen.WriteRunDir(dir, "big", benchgen.Options{Bytes: 64e6, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// proc is an outlast process started in the background.
type proc struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	done   chan struct{} // closed when the process has exited
	err    error         // its exit, once done is closed
}

// startIngest starts "outlast ingest -q --out ds" on the run directories.
func startIngest(t *testing.T, ds string, runs ...string) *proc {
	t.Helper()
	p := &proc{cmd: outlastProc(t, append([]string{"ingest", "-q", "--out", ds}, runs...)...), done: make(chan struct{})}
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// waitMidway returns once the ingest p is mid-way: its stage in ds holds a
// turns file with rows in it (a row group flushed) and it has not exited.
func waitMidway(t *testing.T, p *proc, ds string) {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		parts, _ := filepath.Glob(filepath.Join(ds, dataset.StagePrefix+"*", "turns", "*", "*.parquet"))
		for _, f := range parts {
			if st, err := os.Stat(f); err == nil && st.Size() > 0 {
				return
			}
		}
		select {
		case <-p.done:
			t.Fatalf("the ingest ended (%v) before it was seen mid-way\n%s", p.err, &p.stderr)
		case <-deadline:
			t.Fatalf("the ingest wrote no rows in 2 minutes\n%s", &p.stderr)
		case <-time.After(time.Millisecond):
		}
	}
}

func stages(t *testing.T, ds string) []string {
	t.Helper()
	s, err := filepath.Glob(filepath.Join(ds, dataset.StagePrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestKilledIngestStageRemoved kills -9 an ingest mid-way, checks that it
// left its stage (with its owner: the killed pid), and that the next ingest
// into the dataset removes it, says so, and commits its own run.
func TestKilledIngestStageRemoved(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and ingests a 64 MB log")
	}
	big := bigRun(t)
	ds := filepath.Join(t.TempDir(), "ds")
	p := startIngest(t, ds, big)
	waitMidway(t, p, ds)
	pid := p.cmd.Process.Pid
	if err := p.cmd.Process.Kill(); err != nil { // SIGKILL: no defer, no clean-up runs
		t.Fatal(err)
	}
	<-p.done
	var ee *exec.ExitError
	if !errors.As(p.err, &ee) || ee.ExitCode() != -1 {
		t.Fatalf("the ingest was not killed: %v\n%s", p.err, &p.stderr)
	}
	left := stages(t, ds)
	if len(left) != 1 {
		t.Fatalf("a killed ingest left %v, want its one stage", left)
	}
	owner, err := os.ReadFile(filepath.Join(left[0], "owner"))
	if err != nil || !strings.Contains(string(owner), `"pid":`+strconv.Itoa(pid)+",") {
		t.Errorf("the stage's owner file is %q (%v), want pid %d", owner, err, pid)
	}

	next := outlastProc(t, "ingest", "--out", ds, filepath.Join("..", "..", "fixtures", "real", "vllm-0.8"))
	out, err := next.CombinedOutput()
	if err != nil {
		t.Fatalf("the next ingest: %v\n%s", err, out)
	}
	want := "removed " + left[0] + ", left by an ingest that did not finish (pid " + strconv.Itoa(pid) + " on "
	if !strings.Contains(string(out), want) {
		t.Errorf("the next ingest does not say it removed the stage (%q):\n%s", want, out)
	}
	if s := stages(t, ds); len(s) != 0 {
		t.Errorf("stages left after the next ingest: %v", s)
	}
	runs, err := dataset.Runs(ds)
	if err != nil || !reflect.DeepEqual(runs, []string{"vllm-0.8"}) {
		t.Errorf("runs %v (%v), want only the finished ingest's vllm-0.8", runs, err)
	}
}

// TestConcurrentIngestsBothSucceed starts a long ingest, and while it is
// mid-way runs other ingests into the same dataset, some of them at the
// same time as each other and one of a run the long one also writes:
// every ingest succeeds, no live stage is removed, and the dataset holds
// the runs of all of them.
func TestConcurrentIngestsBothSucceed(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and ingests a 64 MB log")
	}
	big := bigRun(t)
	fx := filepath.Join("..", "..", "fixtures", "real")
	ds := filepath.Join(t.TempDir(), "ds")
	long := startIngest(t, ds, big, filepath.Join(fx, "vllm-0.8"))
	waitMidway(t, long, ds)
	outs, errs := runConcurrently([]*exec.Cmd{
		outlastProc(t, "ingest", "--out", ds, filepath.Join(fx, "vllm-0.10"), filepath.Join(fx, "vllm-0.8")),
		outlastProc(t, "ingest", "--out", ds, filepath.Join(fx, "sglang-0.4")),
		outlastProc(t, "ingest", "--out", ds, filepath.Join(fx, "sglang-2026")),
	})
	for i, err := range errs {
		if err != nil || bytes.Contains(outs[i], []byte("removed")) {
			t.Errorf("concurrent ingest %d: %v\n%s", i, err, outs[i])
		}
	}
	select {
	case <-long.done:
		t.Log("the long ingest finished while the others ran; its stage was not tested against them to the end")
	default:
		if len(stages(t, ds)) != 1 {
			t.Errorf("while the long ingest runs, the stages are %v; want its own", stages(t, ds))
		}
	}
	<-long.done
	if long.err != nil {
		t.Fatalf("the long ingest: %v\n%s", long.err, &long.stderr)
	}
	runs, err := dataset.Runs(ds)
	want := []string{"big", "sglang-0.4", "sglang-2026", "vllm-0.10", "vllm-0.8"}
	if err != nil || !reflect.DeepEqual(runs, want) {
		t.Errorf("runs %v (%v), want %v", runs, err, want)
	}
	for _, r := range want {
		if _, err := dataset.ReadRun(ds, r); err != nil {
			t.Errorf("run %s: %v", r, err)
		}
	}
	if s := stages(t, ds); len(s) != 0 {
		t.Errorf("stages left: %v", s)
	}
}

// runConcurrently runs the commands at once and returns their combined
// outputs and errors.
func runConcurrently(cmds []*exec.Cmd) ([][]byte, []error) {
	outs := make([][]byte, len(cmds))
	errs := make([]error, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Go(func() { outs[i], errs[i] = c.CombinedOutput() })
	}
	wg.Wait()
	return outs, errs
}
