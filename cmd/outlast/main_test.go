package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
