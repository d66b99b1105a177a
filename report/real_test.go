package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/schema"
)

// realFixtures ingests the bundled real-format runs in fixtures/real.
func realFixtures(t *testing.T) []*schema.RunData {
	t.Helper()
	root := filepath.Join("..", "fixtures", "real")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var runs []*schema.RunData
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		res, err := rundir.Read(filepath.Join(root, e.Name()), rundir.Options{Version: "test"})
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		runs = append(runs, res.Data)
	}
	if len(runs) == 0 {
		t.Fatal("no runs in fixtures/real")
	}
	return runs
}

// TestSummaryGolden compares summary.json of the bundled real-format runs
// with testdata/summary.golden.json: any change in what the report says
// about real logs shows up here. Run with -update after a deliberate
// change, and review the diff.
func TestSummaryGolden(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "")
	_, sum, err := Build(realFixtures(t), Options{Title: "golden", Dataset: "fixtures/real", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := MarshalJSONBytes(sum)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("testdata", "summary.golden.json"), got)
}
