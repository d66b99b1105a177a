package lineio

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestNextChunkMatchesNext cuts inputs into chunks of many sizes and checks
// that the chunks hold whole lines, that the line numbers are those Next
// gives, and that Truncated agrees.
func TestNextChunkMatchesNext(t *testing.T) {
	inputs := []string{
		"", "a\n", "a", "a\nbb\n\nccc\n", "a\nbb\n\nccc", "x\r\ny\r\n",
		strings.Repeat("0123456789\n", 100) + "tail",
	}
	for _, in := range inputs {
		var want []string
		lr, _ := NewReader(strings.NewReader(in), "f")
		for lr.Next() {
			want = append(want, fmt.Sprintf("%d:%s", lr.Pos().Line, lr.Bytes()))
		}
		wantTrunc := lr.Truncated()
		for _, size := range []int{1, 2, 5, 64, 4096} {
			lr, _ := NewReader(strings.NewReader(in), "f")
			var got []string
			var buf []byte
			for {
				chunk, first, err := lr.NextChunk(buf, size)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if chunk[len(chunk)-1] != '\n' && !lr.Truncated() {
					t.Fatalf("%q size %d: chunk %q ends mid-line", in, size, chunk)
				}
				lines := bytes.Split(bytes.TrimSuffix(chunk, []byte("\n")), []byte("\n"))
				for i, l := range lines {
					got = append(got, fmt.Sprintf("%d:%s", first+i, bytes.TrimSuffix(l, []byte("\r"))))
				}
				buf = chunk
			}
			if strings.Join(got, "|") != strings.Join(want, "|") || lr.Truncated() != wantTrunc {
				t.Errorf("%q size %d: got %q (truncated %v), want %q (%v)", in, size, got, lr.Truncated(), want, wantTrunc)
			}
			if lr.Err() != nil {
				t.Errorf("Err = %v", lr.Err())
			}
		}
	}
}
