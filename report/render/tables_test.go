package render

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/outlast-dev/outlast/internal/golden"
	"github.com/outlast-dev/outlast/report/model"
)

// TestWriteTablesGolden writes Table 2 of the sample and a table of edge
// cases (escaping in CSV and Markdown, markers, missing and negative-zero
// cells, ranges) and compares every file with testdata.
func TestWriteTablesGolden(t *testing.T) {
	dir := t.TempDir()
	d := &model.Doc{Sections: []model.Section{{ID: "s", Blocks: []model.Block{table2(), &model.Table{
		ID: "edge.cases", Caption: "Text with | pipes, *stars* and \"quotes\", commas.",
		Columns: []model.Column{{Name: "name"}, {Name: "value", Unit: "ms", Align: model.AlignCenter}, {Name: "neg"}},
		Rows: [][]model.Cell{
			{model.Text("a,b \"q\""), model.Num(1.23456, 3), model.Num(-0.0004, 2)},
			{model.Text("x|y_z"), model.Missing().Mark("†"), model.Num(math.Inf(-1), 1)},
			{model.Text("line\nbreak"), model.Range(0.121, 0.129, 2), model.Range(21, 23, 0)},
		},
	}}}}}
	if err := WriteTables(dir, d); err != nil {
		t.Fatal(err)
	}
	names := []string{"table2.csv", "table2.md", "edge.cases.csv", "edge.cases.md"}
	for _, name := range names {
		got, err := os.ReadFile(filepath.Join(dir, "tables", name))
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", name), got)
	}
	// Only the final files remain: temporary files were renamed away.
	ents, _ := os.ReadDir(filepath.Join(dir, "tables"))
	if len(ents) != len(names) {
		t.Errorf("tables dir holds %d entries, want %d", len(ents), len(names))
	}
}

func TestWriteTablesRejectsInvalidDoc(t *testing.T) {
	dir := t.TempDir()
	d := &model.Doc{Sections: []model.Section{{ID: "s", Blocks: []model.Block{&model.Table{ID: "../escape", Columns: []model.Column{{Name: "a"}}}}}}}
	if err := WriteTables(dir, d); err == nil {
		t.Fatal("a table ID with a path was accepted")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("wrote %d entries for an invalid doc", len(ents))
	}
}
