package guidellm

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/internal/benchgen"
)

// BenchmarkReader reads a generated 16 MB report (one benchmark of
// multi-turn conversations, texts of realistic length): the speed of the
// reader alone, in bytes of report per second.
func BenchmarkReader(b *testing.B) {
	var buf bytes.Buffer
	if _, err := benchgen.WriteGuideLLM(&buf, benchgen.Options{Bytes: 16 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := readAll(b, bytes.NewReader(data))
		if n == 0 {
			b.Fatal("no turns")
		}
	}
}

// readAll reads every turn of every benchmark in r and counts them.
func readAll(tb testing.TB, r io.Reader) int {
	rd, err := NewReader(r, "benchmarks.json", Options{})
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for {
		_, err := rd.NextBenchmark()
		if err == io.EOF {
			return n
		}
		if err != nil {
			tb.Fatal(err)
		}
		rd.SetT0(time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC))
		for {
			_, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				tb.Fatal(err)
			}
			n++
		}
	}
}
