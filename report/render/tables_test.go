package render

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/outlast-dev/outlast/internal/golden"
	"github.com/outlast-dev/outlast/report/document"
)

// TestWriteTablesGolden writes Table 2 of the sample and a table of edge
// cases (escaping in CSV and Markdown, markers, missing and negative-zero
// cells, ranges) and compares every file with testdata.
func TestWriteTablesGolden(t *testing.T) {
	dir := t.TempDir()
	d := &document.Doc{Sections: []document.Section{{ID: "s", Blocks: []document.Block{table2(), &document.Table{
		ID: "edge.cases", Caption: "Text with | pipes, *stars* and \"quotes\", commas.",
		Columns: []document.Column{{Name: "name"}, {Name: "value", Unit: "ms", Align: document.AlignCenter}, {Name: "neg"}},
		Rows: [][]document.Cell{
			{document.Text("a,b \"q\""), document.Num(1.23456, 3), document.Num(-0.0004, 2)},
			{document.Text("x|y_z"), document.Missing().Mark("†"), document.Num(math.Inf(-1), 1)},
			{document.Text("line\nbreak"), document.Range(0.121, 0.129, 2), document.Range(21, 23, 0)},
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
	d := &document.Doc{Sections: []document.Section{{ID: "s", Blocks: []document.Block{&document.Table{ID: "../escape", Columns: []document.Column{{Name: "a"}}}}}}}
	if err := WriteTables(dir, d); err == nil {
		t.Fatal("a table ID with a path was accepted")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("wrote %d entries for an invalid doc", len(ents))
	}
}
