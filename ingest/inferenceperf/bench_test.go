package inferenceperf

import (
	"bytes"
	"io"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
)

// BenchmarkReader reads the fixture's records repeated to some 16 MB, as
// inference-perf writes them (json.dumps indent=2): the speed of the reader
// alone, clock anchoring included, in bytes of export per second.
func BenchmarkReader(b *testing.B) {
	one := readertest.FixtureFile(b, "inference-perf-0.6.1", "per_request_lifecycle_metrics.json")
	readertest.BenchRead(b, repeatList(one, 16<<20), func(r io.Reader) (int, error) {
		return readertest.Drain(NewReader(r, "per_request_lifecycle_metrics.json", Options{T0: t0}))
	})
}

// repeatList repeats the elements of the JSON list list until the result
// has at least size bytes.
func repeatList(list []byte, size int) []byte {
	body := bytes.TrimSpace(list)
	body = bytes.TrimSpace(body[1 : len(body)-1])
	var out bytes.Buffer
	out.WriteString("[\n  ")
	for out.Len() < size {
		if out.Len() > 4 {
			out.WriteString(",\n  ")
		}
		out.Write(body)
	}
	out.WriteString("\n]\n")
	return out.Bytes()
}
