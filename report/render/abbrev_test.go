package render

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/report/document"
)

// TestLeadAndCompactTable renders a Doc with a lead and a compact table
// whose run cells are abbreviated: the page shows the lead under the
// title, keeps the rows on one line (class compact) and shows each short
// name with its whole name on hover; the CSV and Markdown copies hold the
// whole names.
func TestLeadAndCompactTable(t *testing.T) {
	full := "recovery-s501-budgeter"
	doc := &document.Doc{
		Title: "t", Lead: []string{"How to read this page: a <test>."},
		Sections: []document.Section{{ID: "s", Title: "s", Blocks: []document.Block{&document.Table{
			ID: "runs", Compact: true, Columns: []document.Column{{Name: "Run"}, {Name: "Hit"}},
			Rows: [][]document.Cell{
				{document.Text(full).Abbrev("s501-budgeter"), document.Num(0.9, 2)},
				{document.Text("s501-burst").Abbrev("s501-burst"), document.Num(0.1, 2)},
			},
		}}}},
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, doc); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<p class="lead">How to read this page: a &lt;test&gt;.</p>`,
		`<table class="data compact">`,
		`<td class="al-l" title="recovery-s501-budgeter">s501-budgeter</td>`,
		`<td class="al-l">s501-burst</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	dir := t.TempDir()
	if err := writeTables(dir, doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"runs.csv", "runs.md"} {
		data, err := os.ReadFile(filepath.Join(dir, TablesDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), full) || strings.Contains(string(data), "| s501-budgeter") {
			t.Errorf("%s does not hold the whole name:\n%s", f, data)
		}
	}
}
