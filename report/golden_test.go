package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/internal/golden"
	"github.com/outlast-dev/outlast/report/render"
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
		if !e.IsDir() || !rundir.IsRunDir(filepath.Join(root, e.Name())) {
			continue // prom-exports holds a run's metrics in other forms
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
// and of the hand-built dataset with testdata: any change in what the
// report says shows up here. Run with -update after a deliberate change,
// and review the diff.
func TestSummaryGolden(t *testing.T) {
	for _, tc := range []struct {
		golden, dataset string
		runs            func(*testing.T) []*schema.RunData
	}{
		{"summary.golden.json", "fixtures/real", realFixtures},
		{"summary.handbuilt.golden.json", "fixture", func(*testing.T) []*schema.RunData { return fixtureRuns() }},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			t.Setenv("SOURCE_DATE_EPOCH", "")
			_, sum, err := Build(tc.runs(t), Options{Title: "golden", Dataset: tc.dataset, Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			got, err := render.JSON(sum)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tc.golden), got)
		})
	}
}
