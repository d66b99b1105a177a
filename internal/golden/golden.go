// Package golden compares test output with golden files, for every
// package's tests: one -update flag rewrites them, and a mismatch prints a
// unified diff and writes the output beside the golden file as NAME.got, so
// that it can be inspected or diffed with other tools.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/diff"
)

var update = flag.Bool("update", false, "rewrite the golden files with the tests' output")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Check compares got with the golden file at path. With -update it writes
// got to path (creating its directory) instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(path + ".got")
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		os.Remove(path + ".got")
		return
	}
	if err := os.WriteFile(path+".got", got, 0o644); err != nil {
		t.Log(err)
	}
	t.Errorf("output differs from %s (got written to %s.got; run go test -update to accept):\n%s",
		path, path, diff.Diff(path, want, "got", got))
}

// Glob returns the files matching pattern, failing the test when there are
// none: a golden test whose inputs went missing must not pass by testing
// nothing.
func Glob(t testing.TB, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no files match %s", pattern)
	}
	return files
}
