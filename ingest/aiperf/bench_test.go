package aiperf

import (
	"bytes"
	"io"
	"os"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
)

// BenchmarkReader reads the 2026 fixture's records repeated to some 8 MB:
// the speed of the reader alone, in bytes of export per second.
func BenchmarkReader(b *testing.B) {
	one, err := os.ReadFile("../../fixtures/real/aiperf-2026/profile_export.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat(one, (8<<20)/len(one)+1)
	t0 := time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		lr, err := lineio.NewReader(bytes.NewReader(data), "profile_export.jsonl")
		if err != nil {
			b.Fatal(err)
		}
		rd := NewReader(lr, t0)
		for {
			_, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
