package readertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/internal/golden"
)

// ReadFile returns the contents of the file at path, the parts of the path
// joined; the test fails at once when it cannot be read.
func ReadFile(t testing.TB, path ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(path...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FixtureFile returns the contents of file in the fixture run (FixturePath).
func FixtureFile(t testing.TB, run, file string) []byte {
	t.Helper()
	return ReadFile(t, FixturePath(run, file))
}

// Golden compares got with the golden file testdata/<name>.golden of the
// test's package (golden.Check).
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name+".golden"), got)
}

// GoldenWarnings compares text followed by the reader's warnings, as the
// load generators' golden files end, with testdata/<name>.golden.
func GoldenWarnings(t testing.TB, name, text string, warnings []string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(text)
	b.WriteString("\nwarnings\n")
	for _, w := range warnings {
		b.WriteString(w + "\n")
	}
	Golden(t, name, []byte(b.String()))
}
