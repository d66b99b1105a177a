package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/outlast-dev/outlast/internal/slowtest"
)

// TestMain lets the scripts run outlast in-process as a command.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"outlast": func() {
			keepWritingPastClosedPipe()
			os.Exit(exitCode(run(os.Stdout, os.Stderr, os.Args[1:]), os.Stderr))
		},
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script: each is a
// txtar archive of commands with their expected output and exit status.
// $FIXTURES is the repository's fixtures directory.
func TestScripts(t *testing.T) {
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("FIXTURES", fixtures)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"compress": cmdCompress,
			"truncate": cmdTruncate,
		},
		// [race] is true under the race detector: the scripts that
		// simulate whole experiments skip there (internal/slowtest).
		Condition: func(cond string) (bool, error) {
			if cond == "race" {
				return slowtest.Race, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// cmdCompress is the scripts' "compress gz|zst FILE": FILE becomes
// FILE.gz or FILE.zst, as a run's compressing writer leaves it.
func cmdCompress(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || args[0] != "gz" && args[0] != "zst" {
		ts.Fatalf("usage: compress gz|zst FILE")
	}
	path := ts.MkAbs(args[1])
	b, err := os.ReadFile(path)
	ts.Check(err)
	var buf bytes.Buffer
	var w io.WriteCloser
	if args[0] == "gz" {
		w = gzip.NewWriter(&buf)
	} else {
		w, err = zstd.NewWriter(&buf)
		ts.Check(err)
	}
	_, err = w.Write(b)
	ts.Check(err)
	ts.Check(w.Close())
	ts.Check(os.WriteFile(path+"."+args[0], buf.Bytes(), 0o644))
	ts.Check(os.Remove(path))
}

// cmdTruncate is the scripts' "truncate FILE PERCENT": FILE keeps the
// first PERCENT of its bytes, as a writer stopped mid-run leaves it.
func cmdTruncate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: truncate FILE PERCENT")
	}
	pct, err := strconv.Atoi(args[1])
	ts.Check(err)
	path := ts.MkAbs(args[0])
	fi, err := os.Stat(path)
	ts.Check(err)
	ts.Check(os.Truncate(path, fi.Size()*int64(pct)/100))
}
