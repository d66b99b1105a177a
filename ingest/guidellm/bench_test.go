package guidellm

import (
	"bytes"
	"io"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
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
	readertest.BenchRead(b, buf.Bytes(), func(r io.Reader) (int, error) {
		rd, err := NewReader(r, "benchmarks.json", Options{})
		if err != nil {
			return 0, err
		}
		n := 0
		err = eachBenchmark(rd, t0, func(*Benchmark) error {
			k, err := readertest.Drain(rd)
			n += k
			return err
		})
		return n, err
	})
}
