package render_test

import (
	"fmt"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/report/render"
)

// A table is built from cells of the document model; every renderer shows
// them the same way: numbers with fixed decimals, a marker beside the
// value, a dash for a missing value.
func ExampleTableMarkdown() {
	t := &document.Table{
		ID:      "table2",
		Caption: "Hit ratio over the last 10 minutes.",
		Columns: []document.Column{{Name: "Seed"}, {Group: "Burst", Name: "Hit"}, {Group: "Burst", Name: "Sessions"}},
		Rows: [][]document.Cell{
			{document.Int(501), document.Num(0.1234, 2).Mark("∗"), document.Num(109, 0)},
			{document.Int(502), document.Num(0.95, 2), document.Missing()},
		},
		Notes: []string{"∗ persistently degraded."},
	}
	fmt.Print(string(render.TableMarkdown(t)))
	csv, _ := render.TableCSV(t)
	fmt.Print(string(csv))
	// Output:
	// **table2.** Hit ratio over the last 10 minutes.
	//
	// | Seed | Burst: Hit | Burst: Sessions |
	// |---:|---:|---:|
	// | 501 | 0.12 ∗ | 109 |
	// | 502 | 0.95 | – |
	//
	// - ∗ persistently degraded.
	// Seed,Burst: Hit,Burst: Hit marker,Burst: Sessions
	// 501,0.12,∗,109
	// 502,0.95,,
}
