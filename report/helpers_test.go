package report

import (
	"bytes"
	"math"
	"regexp"
	"testing"

	"github.com/outlast-dev/outlast/internal/jsonnum"
	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/report/render"
)

// same compares a summary value with an expected one, NaN matching NaN.
func same(got jsonnum.Float, want float64) bool {
	g := float64(got)
	if math.IsNaN(want) {
		return math.IsNaN(g)
	}
	return math.Abs(g-want) <= 1e-12*math.Max(1, math.Abs(want))
}

// near compares within 1e-9 relative: for fitted values.
func near(got jsonnum.Float, want float64) bool {
	return math.Abs(float64(got)-want) <= 1e-9*math.Max(1, math.Abs(want))
}

// buildFixture builds the report of fixtureRuns.
func buildFixture(t *testing.T, opt Options) (*document.Doc, *Summary) {
	t.Helper()
	doc, sum, err := Build(fixtureRuns(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return doc, sum
}

// pageBytes builds the report of src and returns its page and summary.json.
func pageBytes(t *testing.T, src Source, opt Options) (html, summary []byte) {
	t.Helper()
	doc, sum, err := BuildFrom(src, opt)
	if err != nil {
		t.Fatal(err)
	}
	var h bytes.Buffer
	if err := render.WriteHTML(&h, doc); err != nil {
		t.Fatal(err)
	}
	j, err := render.JSON(sum)
	if err != nil {
		t.Fatal(err)
	}
	return h.Bytes(), j
}

// find returns the item of items whose key is id.
func find[T any](t *testing.T, what string, items []T, key func(T) string, id string) T {
	t.Helper()
	for _, it := range items {
		if key(it) == id {
			return it
		}
	}
	var zero T
	t.Fatalf("no %s %q", what, id)
	return zero
}

func findTable(t *testing.T, d *document.Doc, id string) *document.Table {
	t.Helper()
	return find(t, "table", document.Tables(d), func(tab *document.Table) string { return tab.ID }, id)
}

func findFigure(t *testing.T, d *document.Doc, id string) document.Figure {
	t.Helper()
	return find(t, "figure", document.Figures(d), document.Figure.FigureID, id)
}

func findExperiment(t *testing.T, s *Summary, name string) SummaryExperiment {
	t.Helper()
	return find(t, "experiment", s.Experiments, func(e SummaryExperiment) string { return e.Experiment }, name)
}

// checkTableText compares the cells of tab as displayed, each followed by
// its marker, with want.
func checkTableText(t *testing.T, tab *document.Table, want [][]string) {
	t.Helper()
	if len(tab.Rows) != len(want) {
		t.Fatalf("table %s has %d rows, want %d", tab.ID, len(tab.Rows), len(want))
	}
	for i, row := range tab.Rows {
		for j, c := range row {
			if got := c.Display() + c.Marker(); got != want[i][j] {
				t.Errorf("table %s row %d col %d = %q, want %q", tab.ID, i, j, got, want[i][j])
			}
		}
	}
}

// withoutScripts returns an HTML page without the code of its inline
// scripts (the embedded ECharts among them), keeping the chart options,
// which are JSON data.
func withoutScripts(page []byte) []byte {
	return codeScript.ReplaceAll(page, []byte("<script></script>"))
}

var codeScript = regexp.MustCompile(`(?s)<script>.*?</script>`)

// pairRun is a healthy 60-minute run of a paired design, 8 sessions, its
// burst (or the twin's slot) at 900–1200 s.
func pairRun(name, experiment, arm string, seed int64) fakeRun {
	return fakeRun{Name: name, Experiment: experiment, Design: "paired", Arm: arm, Seed: seed,
		Sessions: 8, DropS: inf, RecoverS: inf, TriggerKind: "burst", TriggerStartS: 900, TriggerEndS: 1200,
		ControlStartS: math.NaN(), DurationS: 3600}
}
