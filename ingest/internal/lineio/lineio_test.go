package lineio

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func readAll(t *testing.T, r *Reader) (lines []string) {
	t.Helper()
	for r.Next() {
		lines = append(lines, fmt.Sprintf("%d:%s", r.Pos().Line, r.Bytes()))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

func TestLines(t *testing.T) {
	long := strings.Repeat("x", 1<<20) // longer than the read buffer
	for _, tc := range []struct {
		name, in  string
		want      []string
		truncated bool
	}{
		{"plain", "a\nb\n", []string{"1:a", "2:b"}, false},
		{"crlf", "a\r\nb\r\n", []string{"1:a", "2:b"}, false},
		{"no final newline", "a\nb", []string{"1:a", "2:b"}, true},
		{"empty lines kept", "\n\nc\n", []string{"1:", "2:", "3:c"}, false},
		{"empty input", "", nil, false},
		{"long line", long + "\nz\n", []string{"1:" + long, "2:z"}, false},
		{"long last line cut", "a\n" + long, []string{"1:a", "2:" + long}, true},
		{"long lines in a row", long + "\n" + long + "\r\n", []string{"1:" + long, "2:" + long}, false},
		{"byte order mark skipped", "\xef\xbb\xbfa\nb\n", []string{"1:a", "2:b"}, false},
		{"only a byte order mark", "\xef\xbb\xbf", nil, false},
		{"a mark later is kept", "a\n\xef\xbb\xbfb\n", []string{"1:a", "2:\xef\xbb\xbfb"}, false},
		{"a part of a mark is kept", "\xef\xbbx\n", []string{"1:\xef\xbbx"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(tc.in), "f.log")
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, r)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("lines = %.80q, want %.80q", got, tc.want)
			}
			if r.Truncated() != tc.truncated {
				t.Errorf("Truncated = %v, want %v", r.Truncated(), tc.truncated)
			}
		})
	}
}

func TestCompressedAndHashOfStoredBytes(t *testing.T) {
	const text = "one\ntwo\n"
	var gz, zs bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write([]byte(text))
	gw.Close()
	zw, _ := zstd.NewWriter(&zs)
	zw.Write([]byte(text))
	zw.Close()
	for _, tc := range []struct {
		name string
		data []byte
	}{{"x.log", []byte(text)}, {"x.log.gz", gz.Bytes()}, {"x.log.zst", zs.Bytes()}} {
		r, err := NewReader(bytes.NewReader(tc.data), tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, r); strings.Join(got, "|") != "1:one|2:two" {
			t.Errorf("%s: lines %q", tc.name, got)
		}
		sum, err := r.SHA256()
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%x", sha256.Sum256(tc.data)); sum != want {
			t.Errorf("%s: sha256 %s, want the stored bytes' %s", tc.name, sum, want)
		}
	}
}

func TestBrokenGzipIsAnError(t *testing.T) {
	if _, err := NewReader(strings.NewReader("not gzip"), "x.gz"); err == nil {
		t.Error("NewReader accepted a .gz that is not gzip")
	}
}

// TestOpenHead checks the reader that only looks at a file's head: it
// reads the same lines as Open, through a small buffer, and refuses to
// give a hash of bytes it did not hash.
func TestOpenHead(t *testing.T) {
	long := strings.Repeat("y", 40<<10) // longer than the head buffer
	path := filepath.Join(t.TempDir(), "m.prom")
	if err := os.WriteFile(path, []byte("a\n"+long+"\nb"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := OpenHead(path, "m.prom")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, want := strings.Join(readAll(t, r), "|"), "1:a|2:"+long+"|3:b"; got != want {
		t.Errorf("lines = %.40q, want %.40q", got, want)
	}
	if _, err := r.SHA256(); err == nil {
		t.Error("SHA256 of a head reader gave a hash")
	}
}

// TestReadAfterClose checks that a closed reader, whose buffer went back
// to the pool for another input, reads nothing more and says why.
func TestReadAfterClose(t *testing.T) {
	r, err := NewReader(strings.NewReader("a\nb\n"), "f.log")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() {
		t.Fatal("no first line")
	}
	r.Close()
	if r.Next() {
		t.Error("Next read a line after Close")
	}
	if !errors.Is(r.Err(), os.ErrClosed) {
		t.Errorf("Err = %v, want os.ErrClosed", r.Err())
	}
	if _, _, err := r.NextChunk(nil, 16); !errors.Is(err, os.ErrClosed) {
		t.Errorf("NextChunk after Close: %v, want os.ErrClosed", err)
	}
	if n, err := r.Read(make([]byte, 4)); n != 0 || !errors.Is(err, os.ErrClosed) {
		t.Errorf("Read after Close = %d, %v, want 0, os.ErrClosed", n, err)
	}
}

// TestCutStream cuts gzip and zstd streams (zstd in blocks, as its
// command-line tool writes a large file): the lines before the cut are
// read, and CutErr places the cut at the line it fell in, or the one after
// the last whole line. An uncut stream has no CutErr.
func TestCutStream(t *testing.T) {
	var text bytes.Buffer
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&text, "line %05d %x\n", i, sha256.Sum256([]byte{byte(i), byte(i >> 8)}))
	}
	compress := map[string]func([]byte) []byte{
		".gz": func(b []byte) []byte {
			var buf bytes.Buffer
			w, _ := gzip.NewWriterLevel(&buf, gzip.NoCompression) // bytes in, bytes out: the cut lands where it is asked
			w.Write(b)
			w.Close()
			return buf.Bytes()
		},
		".zst": func(b []byte) []byte {
			var buf bytes.Buffer
			w, _ := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(1<<17))
			w.Write(b)
			w.Close()
			return buf.Bytes()
		},
	}
	for ext, c := range compress {
		whole := c(text.Bytes())
		r, err := NewReader(bytes.NewReader(whole), "f"+ext)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(readAll(t, r)); n != 20000 || r.CutErr() != nil || r.StreamCut() {
			t.Errorf("%s whole: %d lines, CutErr %v", ext, n, r.CutErr())
		}
		r, err = NewReader(bytes.NewReader(whole[:len(whole)*3/4]), "f"+ext)
		if err != nil {
			t.Fatal(err)
		}
		lines := readAll(t, r)
		err = r.CutErr()
		if len(lines) == 0 || len(lines) >= 20000 || !errors.Is(err, ErrStreamCut) {
			t.Fatalf("%s cut: %d lines, CutErr %v", ext, len(lines), err)
		}
		last := lines[len(lines)-1]
		want := len(lines) + 1
		if r.Truncated() {
			want = len(lines) // the cut line is the last one read
		}
		if !strings.HasPrefix(err.Error(), fmt.Sprintf("f%s:%d: ", ext, want)) {
			t.Errorf("%s cut after %q (truncated %t): CutErr %q, want it at line %d", ext, last, r.Truncated(), err, want)
		}
	}
}
