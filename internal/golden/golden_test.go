package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder captures a failure instead of failing the enclosing test.
type recorder struct {
	testing.TB
	msgs   []string
	failed bool
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.failed = true; r.msgs = append(r.msgs, f) }
func (r *recorder) Fatalf(f string, a ...any) { r.failed = true; r.msgs = append(r.msgs, f) }

func TestCheckMismatchWritesGotAndFails(t *testing.T) {
	if Updating() {
		t.Skip("-update")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden")
	os.WriteFile(path, []byte("a\nb\n"), 0o644)
	r := &recorder{TB: t}
	Check(r, path, []byte("a\nc\n"))
	if !r.failed {
		t.Fatal("a mismatch passed")
	}
	got, err := os.ReadFile(path + ".got")
	if err != nil || string(got) != "a\nc\n" {
		t.Fatalf(".got = %q, %v", got, err)
	}
	r = &recorder{TB: t}
	Check(r, path, []byte("a\nb\n"))
	if r.failed {
		t.Fatal("a match failed")
	}
	if _, err := os.Stat(path + ".got"); !os.IsNotExist(err) {
		t.Error("a match left the stale .got file")
	}
}

func TestCheckMissingGoldenFails(t *testing.T) {
	if Updating() {
		t.Skip("-update")
	}
	r := &recorder{TB: t}
	Check(r, filepath.Join(t.TempDir(), "none.golden"), []byte("x"))
	if !r.failed || !strings.Contains(r.msgs[0], "-update") {
		t.Fatalf("missing golden: failed=%v %q", r.failed, r.msgs)
	}
}

func TestGlobNoneFails(t *testing.T) {
	r := &recorder{TB: t}
	Glob(r, filepath.Join(t.TempDir(), "*.golden"))
	if !r.failed {
		t.Fatal("an empty glob passed")
	}
}
