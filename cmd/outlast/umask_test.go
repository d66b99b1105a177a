//go:build unix

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputsFollowUmask runs every command that writes files under umask
// 002 and checks that what they write follows it, as files made by
// os.Create and directories by os.Mkdir do: files 0664, directories 0775
// (a fixed 0600 or 0644, or 0755, would show). The umask is the process's,
// so this test does not run in parallel with others.
func TestOutputsFollowUmask(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates, ingests, reports and compares")
	}
	old := syscall.Umask(0o002)
	defer syscall.Umask(old)
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	fx := filepath.Join("..", "..", "fixtures", "real")
	mustRunOutlast(t, "simulate", "-q", "--design", "paired", "--duration", "10m", "--out", p("sim"))
	mustRunOutlast(t, "ingest", "-q", "--out", p("ds"), p("sim"), filepath.Join(fx, "vllm-0.10"))
	// A bad line, so that the lenient ingest writes a rejects file too.
	bad := p("bad")
	for _, f := range []string{"run.yaml", "gateway.jsonl"} {
		b, err := os.ReadFile(filepath.Join(fx, "vllm-0.8", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "gateway.jsonl" {
			b = append(b, "{\"ts\":1742479300,\"ev\":\"turn\"\n"...)
		}
		if err := os.MkdirAll(bad, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bad, f), b, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	mustRunOutlast(t, "ingest", "-q", "--lenient", "--out", p("ds"), bad)
	if _, err := os.Stat(filepath.Join(p("ds"), "_rejects", "vllm-0.8.jsonl")); err != nil {
		t.Fatalf("no rejects file: %v", err)
	}
	mustRunOutlast(t, "export", p("ds"), "--table", "turns", "--out", p("turns.csv"))
	mustRunOutlast(t, "export", p("ds"), "--table", "engine", "--format", "arrow", "--out", p("engine.arrow"))
	mustRunOutlast(t, "compare", "--ignore", "pool", "--out", p("cmp.txt"), "a="+p("ds"), "b="+p("ds"))
	mustRunOutlast(t, "compare", "--format", "html", "--out", p("cmp.html"), "a="+p("ds"), "b="+p("ds"))
	mustRunOutlast(t, "report", "-q", p("ds"), "--out", p("report"))
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o664)
		if d.IsDir() {
			want = 0o775
		}
		rel, _ := filepath.Rel(dir, path)
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s: mode %04o, want %04o under umask 002", rel, got, want)
		}
		if strings.Contains(rel, ".tmp") || strings.Contains(rel, ".staging-") {
			t.Errorf("%s: a temporary file was left behind", rel)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 40 {
		t.Errorf("walked %d outputs; the commands wrote fewer than expected", n)
	}
}
