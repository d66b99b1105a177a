package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/compare/check"
)

// TestCheckExitStatus checks that check's printed verdict and its exit
// status agree: 0 and a last line "PASS: …" when every rule holds, 1 and
// "FAIL: …" when one fails, 2 and nothing on stdout for bad input.
func TestCheckExitStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a dataset")
	}
	dir := t.TempDir()
	mustRunOutlast(t, "simulate", "--design", "prevention", "--seeds", "2", "--duration", "30m", "--out", filepath.Join(dir, "sim"))
	mustRunOutlast(t, "ingest", "-q", "--out", filepath.Join(dir, "ds"), filepath.Join(dir, "sim"))
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pass := write("pass.yaml", "rules:\n  - name: runs\n    require: {min_runs: 4}\n")
	fail := write("fail.yaml", "rules:\n  - name: runs\n    require: {min_runs: 5}\n  - name: cache\n    require: {min_end_hit_ratio: 0.01}\n")
	bad := write("bad.yaml", "rules:\n  - name: runs\n    require: {min_runs: -1}\n")
	ds := filepath.Join(dir, "ds")
	for _, tc := range []struct {
		args []string
		code int
		last string
	}{
		{[]string{"check", "--rules", pass, ds}, 0, "PASS: 1 of 1 rules passed, 0 failed"},
		{[]string{"check", "--rules", fail, ds}, 1, "FAIL: 1 of 2 rules passed, 1 failed"},
		{[]string{"check", "--require", "min_runs=5", ds}, 1, "FAIL: 0 of 1 rules passed, 1 failed"},
		{[]string{"check", "--rules", bad, ds}, 2, ""},
		{[]string{"check", "--rules", pass, filepath.Join(dir, "nope")}, 2, ""},
		{[]string{"check", "--rules", pass}, 2, ""},
	} {
		var stdout, stderr bytes.Buffer
		code := exitCode(run(&stdout, &stderr, tc.args), io.Discard)
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		last := lines[len(lines)-1]
		if code != tc.code || last != tc.last {
			t.Errorf("outlast %s: exit %d, last line %q; want %d, %q\n%s", strings.Join(tc.args[1:], " "), code, last, tc.code, tc.last, stdout.String())
		}
	}
}

// TestCheckHelpRulesParse checks that the rules file shown by "outlast
// check --help" is one that check accepts.
func TestCheckHelpRulesParse(t *testing.T) {
	_, block, ok := strings.Cut(checkHelp, "A rules file:\n\n")
	block, _, ok2 := strings.Cut(block, "\n\n")
	if !ok || !ok2 {
		t.Fatal("no rules file in the help text")
	}
	rules, err := check.Parse([]byte(strings.ReplaceAll(block, "\n  ", "\n")[2:]), "help")
	if err != nil {
		t.Fatalf("the help's rules file: %v\n%s", err, block)
	}
	if len(rules.Rules) != 3 {
		t.Errorf("the help's rules file has %d rules, want 3", len(rules.Rules))
	}
}
