// Package promtest runs Debian's prometheus package, the server and
// promtool, for the tests that check outlast's Prometheus rules with the
// real thing: promtool's rule checks and unit tests, and a server holding
// backfilled runs that answers queries over its HTTP API. Locally a
// missing tool skips the test; under CI=true it fails it, since .ci/run
// installs the package.
package promtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tool returns the path of a tool of the prometheus package ("promtool",
// "prometheus"), or skips t without it (fails it under CI=true).
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s is missing (%v): .ci/run installs Debian's prometheus package", name, err)
		}
		t.Skipf("%s is missing (Debian's prometheus package: apt-get install prometheus): the rules are not checked by Prometheus itself", name)
	}
	return p
}

// Promtool runs promtool with args and returns its combined output and
// error.
func Promtool(t testing.TB, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command(Tool(t, "promtool"), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

// CheckRules fails t unless "promtool check rules" accepts every file.
func CheckRules(t testing.TB, files ...string) {
	t.Helper()
	out, err := Promtool(t, append([]string{"check", "rules"}, files...)...)
	if err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
}

// TestRules runs "promtool test rules" on the test files and returns its
// output and whether every test passed.
func TestRules(t testing.TB, files ...string) (string, bool) {
	t.Helper()
	out, err := Promtool(t, append([]string{"test", "rules"}, files...)...)
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("promtool test rules: %v", err)
		}
		return string(out), false
	}
	return string(out), true
}

// CreateBlocksFromOpenMetrics writes TSDB blocks of the samples of an
// OpenMetrics file into dataDir.
func CreateBlocksFromOpenMetrics(t testing.TB, omFile, dataDir string) {
	t.Helper()
	out, err := Promtool(t, "tsdb", "create-blocks-from", "openmetrics", omFile, dataDir)
	if err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, tail(out))
	}
}

// CreateBlocksFromRules evaluates the recording rules of ruleFiles over
// [start, end] (Unix seconds) against the server at url, every interval
// (unless a group sets its own), and moves the blocks it writes into
// dataDir. The server must restart to read them.
func CreateBlocksFromRules(t testing.TB, url string, start, end int64, interval, dataDir string, ruleFiles ...string) {
	t.Helper()
	outDir := filepath.Join(t.TempDir(), "rule-blocks")
	out, err := Promtool(t, append([]string{"tsdb", "create-blocks-from", "rules",
		"--url=" + url, fmt.Sprintf("--start=%d", start), fmt.Sprintf("--end=%d", end),
		"--eval-interval=" + interval, "--output-dir=" + outDir}, ruleFiles...)...)
	if err != nil {
		t.Fatalf("promtool tsdb create-blocks-from rules: %v\n%s", err, tail(out))
	}
	ents, err := os.ReadDir(outDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || e.Name() == "wal" || e.Name() == "chunks_head" {
			continue
		}
		if err := os.Rename(filepath.Join(outDir, e.Name()), filepath.Join(dataDir, e.Name())); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n == 0 {
		t.Fatalf("promtool tsdb create-blocks-from rules wrote no block:\n%s", tail(out))
	}
}

// tail is the end of a long output.
func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
