package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteReplacesAndFollowsUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := WriteFile(path, []byte("a\n")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("b\n")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "b\n" {
		t.Errorf("content %q", got)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644 under umask 022", st.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("left %d files, want 1", len(ents))
	}
}

func TestFailedWriteLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	os.WriteFile(path, []byte("old"), 0o644)
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "old" {
		t.Errorf("path changed to %q", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left %d files, want 1", len(ents))
	}
}

// TestWriteThroughLinks checks that a symbolic link given as the path
// stays a link, its target replaced, and that a path that is no regular
// file (here a named pipe, as /dev/stdout or a shell's >(…) would be) is
// written in place, not renamed over, which would replace it with a file.
func TestWriteThroughLinks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.csv")
	if err := os.WriteFile(file, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, p := range [][2]string{{"to-file", file}, {"to-fifo", fifo}} {
		if err := os.Symlink(p[1], filepath.Join(dir, p[0])); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}

	if err := WriteFile(filepath.Join(dir, "to-file"), []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "new\n" {
		t.Errorf("the link's target holds %q (%v), want the new bytes", b, err)
	}
	for _, path := range []string{fifo, filepath.Join(dir, "to-fifo")} {
		got := make(chan string, 1)
		go func() {
			b, _ := os.ReadFile(fifo) // opening blocks until the writer opens
			got <- string(b)
		}()
		if err := WriteFile(path, []byte("piped\n")); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode().Type() != os.ModeNamedPipe {
			t.Fatalf("%s: the named pipe was replaced (%v, %v)", path, fi.Mode().Type(), err)
		}
		if b := <-got; b != "piped\n" {
			t.Errorf("%s: the pipe's reader got %q", path, b)
		}
	}
	for _, name := range []string{"to-file", "to-fifo"} {
		if fi, err := os.Lstat(filepath.Join(dir, name)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: the link was replaced (%v)", name, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Errorf("%d entries left in the directory, want 4: a temporary file stayed", len(entries))
	}
}
