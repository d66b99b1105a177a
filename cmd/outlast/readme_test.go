package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/outlast-dev/outlast/internal/golden"
	"github.com/outlast-dev/outlast/internal/slowtest"
)

// A README block the test runs or checks is marked by an HTML comment on
// the line before its opening fence (GitHub shows neither comment nor
// marker):
//
//	<!-- run -->                   a ```sh block: each line an outlast
//	                               command (after "# " a comment, a
//	                               trailing "\" joins the next line),
//	                               run in turn; each must succeed
//	<!-- output of: outlast ARGS -->  the block is ARGS' standard output
//	                               ("… 2>&1": then its standard error),
//	                               exit status 0 ("! outlast …": not 0)
//	<!-- output of the run above -->  the block is the standard output of
//	                               the last command of the run block
//	                               before it (a command too long for a
//	                               marker's line)
//
// "(long)" after "run" or "output of" ("<!-- output of (long): … -->")
// leaves the block to make test-all (slowtest.Long). Commands run in
// document order in one directory, where fixtures/ is the repository's,
// so a README command reads as it runs from a clone's root.
const (
	markRun    = "<!-- run"
	markOutput = "<!-- output of"
	markAbove  = "<!-- output of the run above -->"
)

// readmeBlock is a marked block of the README: its marker, the command
// whose output it shows (output blocks), the lines it holds, and where.
type readmeBlock struct {
	run         bool     // a run block, not an output block
	long        bool     // only in make test-all
	above       bool     // an output block of the run block before it
	cmd         string   // output blocks: the command
	lines       []string // the block's lines, between its fences
	first, last int      // 0-based: the first line inside the fences; the closing fence
}

// parseReadme finds the marked blocks of the README's lines.
func parseReadme(lines []string) ([]readmeBlock, error) {
	var blocks []readmeBlock
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		var b readmeBlock
		switch {
		case l == markAbove:
			if len(blocks) == 0 || !blocks[len(blocks)-1].run {
				return nil, fmt.Errorf("README.md:%d: %s follows no run block", i+1, markAbove)
			}
			b.above, b.long = true, blocks[len(blocks)-1].long
		case strings.HasPrefix(l, markRun) && strings.HasSuffix(l, "-->"):
			b.run = true
			rest := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, markRun), "-->"))
			b.long = rest == "(long)"
			if rest != "" && !b.long {
				return nil, fmt.Errorf("README.md:%d: want <!-- run --> or <!-- run (long) -->", i+1)
			}
		case strings.HasPrefix(l, markOutput) && strings.HasSuffix(l, "-->"):
			rest := strings.TrimSpace(strings.TrimPrefix(l, markOutput))
			if r, ok := strings.CutPrefix(rest, "(long)"); ok {
				b.long, rest = true, strings.TrimSpace(r)
			}
			cmd, ok := strings.CutPrefix(rest, ":")
			if !ok {
				return nil, fmt.Errorf("README.md:%d: want <!-- output of: outlast ARGS -->", i+1)
			}
			b.cmd = strings.TrimSpace(strings.TrimSuffix(cmd, "-->"))
		default:
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			return nil, fmt.Errorf("README.md:%d: a marker not followed by a fenced block", i+1)
		}
		b.first = i + 2
		end := b.first
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("README.md:%d: a block that does not end", i+2)
		}
		b.lines, b.last = lines[b.first:end], end
		blocks = append(blocks, b)
		i = end
	}
	return blocks, nil
}

// commands returns the commands of a run block: one a line, comments
// after "# " dropped, a trailing "\" joining the next line.
func (b readmeBlock) commands() []string {
	var cmds []string
	var cur string
	for _, l := range b.lines {
		if i := strings.Index(l, " # "); i >= 0 {
			l = l[:i]
		}
		l = strings.TrimSpace(l)
		if more, ok := strings.CutSuffix(l, "\\"); ok {
			cur += more + " "
			continue
		}
		if cur += l; strings.TrimSpace(cur) != "" {
			cmds = append(cmds, strings.Join(strings.Fields(cur), " "))
		}
		cur = ""
	}
	return cmds
}

// runReadmeCommand runs one README command in-process: "outlast ARGS",
// "! outlast ARGS" (must fail), "… 2>&1" (standard error after standard
// output). It returns what the block shows.
func runReadmeCommand(t *testing.T, cmd string) string {
	t.Helper()
	fail := false
	if c, ok := strings.CutPrefix(cmd, "! "); ok {
		fail, cmd = true, c
	}
	both := false
	if c, ok := strings.CutSuffix(cmd, " 2>&1"); ok {
		both, cmd = true, c
	}
	args := strings.Fields(cmd)
	if len(args) == 0 || args[0] != "outlast" {
		t.Fatalf("README command %q: only outlast commands are run", cmd)
	}
	stdout, stderr, code := runOutlast(args[1:]...)
	if (code != 0) != fail {
		t.Fatalf("README command %q: exit status %d\n%s%s", cmd, code, stdout, stderr)
	}
	if both {
		return stdout + stderr
	}
	return stdout
}

// TestReadme runs the README's marked blocks, so that every output it
// shows is the build's: the source with each output block as its command
// prints it is compared with README.md as a golden file (go test -update
// rewrites the outputs). The README also keeps its size: at most 200
// lines, none over 200 characters.
func TestReadme(t *testing.T) {
	slowtest.SkipUnderRace(t, "simulates an experiment")
	src, err := filepath.Abs(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if n := len(lines) - 1; n > 200 {
		t.Errorf("README.md has %d lines, more than 200: details belong in docs/", n)
	}
	blocks, err := parseReadme(lines)
	if err != nil {
		t.Fatal(err)
	}
	checkWidths(t, lines)
	if len(blocks) < 2 {
		t.Fatalf("%d marked blocks in README.md; want the example's at least", len(blocks))
	}
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(fixtures, filepath.Join(dir, "fixtures")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var out []string
	last := 0
	lastRun := "" // the standard output of the last run block's last command
	for _, b := range blocks {
		if b.long && !slowtest.All() {
			t.Logf("README.md:%d: a (long) block: make test-all checks it", b.first)
			continue
		}
		if b.run {
			for _, c := range b.commands() {
				lastRun = runReadmeCommand(t, c)
			}
			continue
		}
		shown := lastRun
		if !b.above {
			shown = runReadmeCommand(t, b.cmd)
		}
		got := strings.Split(strings.TrimSuffix(shown, "\n"), "\n")
		out = append(out, lines[last:b.first]...)
		out = append(out, got...)
		last = b.last
	}
	out = append(out, lines[last:]...)
	golden.Check(t, src, []byte(strings.Join(out, "\n")))
}

// checkWidths fails the test for a line of the README longer than 200
// characters, prose or block: an output too wide for the README is too
// wide for a terminal, and is fixed where it is printed.
func checkWidths(t *testing.T, lines []string) {
	t.Helper()
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > 200 {
			t.Errorf("README.md:%d: %d characters, more than 200", i+1, n)
		}
	}
}

// TestParseReadme checks the markers: a run block's commands, an output
// block's command and lines, (long), and a marker without its block.
func TestParseReadme(t *testing.T) {
	readme := "text\n<!-- run -->\n```sh\noutlast a --x 1   # why\noutlast b \\\n    --y 2\n```\n" +
		"<!-- output of (long): outlast c 2>&1 -->\n```\nline 1\nline 2\n```\n"
	blocks, err := parseReadme(strings.Split(readme, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 {
		t.Fatalf("%d blocks, want 2", len(blocks))
	}
	if got := blocks[0].commands(); !slices.Equal(got, []string{"outlast a --x 1", "outlast b --y 2"}) || !blocks[0].run || blocks[0].long {
		t.Errorf("run block: %+v, commands %q", blocks[0], got)
	}
	if b := blocks[1]; b.run || !b.long || b.cmd != "outlast c 2>&1" || !slices.Equal(b.lines, []string{"line 1", "line 2"}) || b.first != 9 || b.last != 11 {
		t.Errorf("output block: %+v", b)
	}
	if _, err := parseReadme([]string{"<!-- output of: outlast x -->", "no fence"}); err == nil {
		t.Error("a marker without its block: no error")
	}
	if _, err := parseReadme([]string{"<!-- output of outlast x -->", "```", "```"}); err == nil {
		t.Error("an output marker without its colon: no error")
	}
	above, err := parseReadme(strings.Split("<!-- run (long) -->\n```sh\noutlast a\n```\n<!-- output of the run above -->\n```\nout\n```\n", "\n"))
	if err != nil || len(above) != 2 || !above[1].above || above[1].run || !above[1].long || !slices.Equal(above[1].lines, []string{"out"}) {
		t.Errorf("an output block of the run above: %+v, %v", above, err)
	}
	if _, err := parseReadme([]string{"<!-- output of the run above -->", "```", "```"}); err == nil {
		t.Error("an output block of the run above with no run block before it: no error")
	}
}

// TestPerformanceDocSize keeps docs/performance.md to what is measured
// now (the method, the latest table, what bounds each stage, how cost
// grows): at most 300 lines; the measurements' history is in git.
func TestPerformanceDocSize(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "performance.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > 300 {
		t.Errorf("docs/performance.md has %d lines, more than 300", n)
	}
}
