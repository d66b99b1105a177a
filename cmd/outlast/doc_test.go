package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/internal/golden"
	"github.com/outlast-dev/outlast/internal/slowtest"
)

// docExample is one "$ outlast ..." block of a package doc: the command,
// its expected output, and the lines of the source it occupies.
type docExample struct {
	args         []string
	want         string
	cmdLine, end int // 0-based: the "$" line; one past the last output line
}

// parseDocExamples finds the "$ outlast" code blocks of a Go source file's
// comments: a "//\t$ outlast ARGS" line, then the output up to the end of
// the code block (a bare "//" line inside the block is an empty output
// line).
func parseDocExamples(lines []string) []docExample {
	var out []docExample
	for i := 0; i < len(lines); i++ {
		cmd, ok := strings.CutPrefix(lines[i], "//\t$ outlast ")
		if !ok {
			continue
		}
		ex := docExample{args: strings.Fields(cmd), cmdLine: i}
		var want []string
		j := i + 1
		for j < len(lines) {
			l := lines[j]
			if strings.HasPrefix(l, "//\t$ ") {
				break
			}
			if s, ok := strings.CutPrefix(l, "//\t"); ok {
				want = append(want, s)
				j++
				continue
			}
			if l == "//" && j+1 < len(lines) && strings.HasPrefix(lines[j+1], "//\t") && !strings.HasPrefix(lines[j+1], "//\t$ ") {
				want = append(want, "")
				j++
				continue
			}
			break
		}
		ex.end = j
		if len(want) > 0 {
			ex.want = strings.Join(want, "\n") + "\n"
		}
		out = append(out, ex)
		i = j - 1
	}
	return out
}

// makeCompareDocData simulates and ingests the datasets the compare
// examples use, in dir: v1 (pool 400,000), v2 (pool 200,000, same seeds),
// v3 (pool 400,000, seeds 601–608) and both (v2 and v3).
func makeCompareDocData(t *testing.T, dir string) {
	t.Helper()
	sims := []struct{ name, pool, seed string }{{"v1", "400000", "501"}, {"v2", "200000", "501"}, {"v3", "400000", "601"}}
	for _, s := range sims {
		simDir := filepath.Join(dir, "sim-"+s.name)
		mustRunOutlast(t, "simulate", "--design", "paired", "--seeds", "8", "--seed", s.seed, "--pool", s.pool, "--duration", "60m", "--out", simDir)
		mustRunOutlast(t, "ingest", "-q", "--out", filepath.Join(dir, s.name), simDir)
	}
	mustRunOutlast(t, "ingest", "-q", "--out", filepath.Join(dir, "both"), filepath.Join(dir, "sim-v2"), filepath.Join(dir, "sim-v3"))
}

// TestCompareDoc runs the examples of package compare's documentation, as
// benchstat's doc_test does, so that the documentation cannot drift from
// the behaviour. The source with every example's output as the command
// prints it is compared with compare/doc.go as a golden file: go test
// -update rewrites the outputs.
func TestCompareDoc(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates three datasets")
	}
	slowtest.SkipUnderRace(t, "simulates three datasets")
	src, err := filepath.Abs(filepath.Join("..", "..", "compare", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	examples := parseDocExamples(lines)
	if len(examples) < 3 {
		t.Fatalf("found %d examples in %s, want at least 3", len(examples), src)
	}
	dir := t.TempDir()
	makeCompareDocData(t, dir)
	t.Chdir(dir)
	var rewritten []string
	last := 0
	for _, ex := range examples {
		var stdout, stderr bytes.Buffer
		if err := run(&stdout, &stderr, ex.args); err != nil {
			t.Errorf("outlast %s: %v\n%s", strings.Join(ex.args, " "), err, stderr.String())
			continue
		}
		rewritten = append(rewritten, lines[last:ex.cmdLine+1]...)
		for _, l := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
			if l == "" {
				rewritten = append(rewritten, "//")
			} else {
				rewritten = append(rewritten, "//\t"+l)
			}
		}
		last = ex.end
	}
	rewritten = append(rewritten, lines[last:]...)
	golden.Check(t, src, []byte(strings.Join(rewritten, "\n")))
}
