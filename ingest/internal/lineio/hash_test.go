package lineio

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAsyncHash reads files large enough to be hashed on their own
// goroutine: the lines as ever, the hash that of the stored bytes whether
// they were all read or not, and Close ends the goroutine whatever was
// read (the race detector and a leak would tell otherwise).
func TestAsyncHash(t *testing.T) {
	defer func(n int64) { asyncHashMin = n }(asyncHashMin)
	asyncHashMin = 1
	var text strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&text, "line %d %s\n", i, strings.Repeat("x", i%97))
	}
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write([]byte(text.String()))
	gw.Close()
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		data []byte
	}{{"big.log", []byte(text.String())}, {"big.log.gz", gz.Bytes()}} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("%x", sha256.Sum256(tc.data))
		for _, lines := range []int{-1, 0, 10} { // all, none, some
			r, err := Open(path, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := r.hashed.(*asyncHasher); !ok {
				t.Fatalf("%s: not hashed on its own goroutine", tc.name)
			}
			n := 0
			for (lines < 0 || n < lines) && r.Next() {
				n++
			}
			if lines < 0 && n != 50000 {
				t.Errorf("%s: %d lines, want 50000", tc.name, n)
			}
			sum, err := r.SHA256()
			if err != nil {
				t.Fatal(err)
			}
			if sum != want {
				t.Errorf("%s, %d lines read: sha256 %s, want %s", tc.name, n, sum, want)
			}
			r.Close()
		}
		// Closed without asking for the hash.
		r, err := Open(path, tc.name)
		if err != nil {
			t.Fatal(err)
		}
		r.Next()
		r.Close()
		select {
		case <-r.hashed.(*asyncHasher).done:
		default:
			t.Errorf("%s: the hashing goroutine outlived Close", tc.name)
		}
	}
}
