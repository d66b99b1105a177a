package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitCodes checks that the exit status matches the outcome: 0 ok
// (help included), 2 bad input or usage; and that a strict ingest failure
// names the position on stderr.
func TestExitCodes(t *testing.T) {
	bad := t.TempDir()
	for _, f := range []string{"run.yaml", "gateway.jsonl"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "real", "vllm-0.8", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "gateway.jsonl" {
			b = append(b, "{\"ts\":1742479300,\"ev\":\"turn\"\n"...)
		}
		os.WriteFile(filepath.Join(bad, f), b, 0o644)
	}
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, 2, ""},
		{[]string{"help"}, 0, ""},
		{[]string{"ingest", "--help"}, 0, ""},
		{[]string{"nope"}, 2, `unknown command "nope"`},
		{[]string{"ingest", "--out", filepath.Join(t.TempDir(), "ds"), bad}, 2, "gateway.jsonl:50:"},
		{[]string{"runs", t.TempDir()}, 2, "not an outlast dataset"},
		{[]string{"runs", filepath.Join(t.TempDir(), "nowhere")}, 2, "nowhere does not exist"},
		{[]string{"ingest", "--out", filepath.Join(t.TempDir(), "ds"), filepath.Join("..", "..", "fixtures", "real", "vllm-0.8")}, 0, ""},
	} {
		var stdout, stderr bytes.Buffer
		code := exitCode(run(&stdout, &stderr, tc.args), &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("outlast %q: exit %d, stderr %q; want exit %d with %q", tc.args, code, stderr.String(), tc.code, tc.stderr)
		}
	}
}
