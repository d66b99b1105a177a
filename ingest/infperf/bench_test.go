package infperf

import (
	"bytes"
	"io"
	"os"
	"testing"
	"time"
)

// BenchmarkReader reads the fixture's records repeated to some 16 MB, as
// inference-perf writes them (json.dumps indent=2): the speed of the reader
// alone, clock anchoring included, in bytes of export per second.
func BenchmarkReader(b *testing.B) {
	one, err := os.ReadFile("../../fixtures/real/inference-perf-0.6.1/per_request_lifecycle_metrics.json")
	if err != nil {
		b.Fatal(err)
	}
	data := repeatList(one, 16<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd := NewReader(bytes.NewReader(data), "per_request_lifecycle_metrics.json", Options{T0: time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC)})
		n := 0
		for {
			_, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n == 0 {
			b.Fatal("no turns")
		}
	}
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
