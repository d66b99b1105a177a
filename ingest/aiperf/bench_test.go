package aiperf

import (
	"bytes"
	"io"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/readertest"
)

// BenchmarkReader reads the 2026 fixture's records repeated to some 8 MB:
// the speed of the reader alone, in bytes of export per second.
func BenchmarkReader(b *testing.B) {
	one := readertest.FixtureFile(b, "aiperf-2026", "profile_export.jsonl")
	readertest.BenchRead(b, bytes.Repeat(one, (8<<20)/len(one)+1), func(r io.Reader) (int, error) {
		lr, err := lineio.NewReader(r, "profile_export.jsonl")
		if err != nil {
			return 0, err
		}
		rd := NewReader(lr, t0)
		defer rd.Close()
		return readertest.Drain(rd)
	})
}
