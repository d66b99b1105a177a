package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/schema"
)

// TestEachRunErrors: runs are read on every core in any order, yet of two
// unreadable runs the error always names the first by name; a readable
// dataset gives each run once.
func TestEachRunErrors(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	mustRunOutlast(t, "ingest", "-q", "--out", ds, filepath.Join("..", "..", "fixtures", "real"))
	seen := map[string]int{}
	if err := eachRun(ds, noProgress)(func(rd *schema.RunData) error { seen[rd.Run.Run]++; return nil }); err != nil {
		t.Fatal(err)
	}
	names, _ := dataset.Runs(ds)
	if len(seen) != len(names) {
		t.Errorf("read %v, want each of %v once", seen, names)
	}
	for _, run := range []string{names[1], names[3]} {
		p := filepath.Join(dataset.PartitionDir(ds, schema.TableTurns, run), dataset.FileName)
		if err := os.WriteFile(p, []byte("not parquet"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		err := eachRun(ds, noProgress)(func(*schema.RunData) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "run="+names[1]) {
			t.Fatalf("err = %v, want the error of %s", err, names[1])
		}
	}
}
