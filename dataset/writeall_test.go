package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// TestWriteAllSameAsAdd checks that a table written from memory in one
// call gives the file that adding its rows one by one gives, over several
// batches and with pages cut inside them.
func TestWriteAllSameAsAdd(t *testing.T) {
	rows := make([]schema.EngineSample, 2*writeBatch+5)
	for i := range rows {
		rows[i] = schema.EngineSample{TS: float64(i) / 7, Source: schema.SourceLog, Kind: schema.LineDecode, Line: int64(i + 1)}
		if i%3 == 0 {
			v := float64(i % 97)
			rows[i].Running = &v
		}
	}
	spec := &fileSpec{table: schema.TableEngine, created: "test", pageBuffer: 16 << 10}
	write := func(name string, all bool) []byte {
		path := filepath.Join(t.TempDir(), name)
		w, err := newRowWriter[schema.EngineSample](path, name, spec, "r", false)
		if err != nil {
			t.Fatal(err)
		}
		if all {
			err = w.writeAll(rows)
		} else {
			for _, r := range rows {
				if err = w.add(r); err != nil {
					break
				}
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := w.close(nil); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if a, b := write("all.parquet", true), write("add.parquet", false); !bytes.Equal(a, b) {
		t.Errorf("writeAll wrote %d bytes, add %d, not the same", len(a), len(b))
	}
}
