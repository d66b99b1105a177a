package report

import (
	"math"
	"regexp"
	"testing"

	"github.com/outlast-dev/outlast/internal/jsonnum"
	"github.com/outlast-dev/outlast/report/model"
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

func findTable(t *testing.T, d *model.Doc, id string) *model.Table {
	t.Helper()
	for _, tab := range model.Tables(d) {
		if tab.ID == id {
			return tab
		}
	}
	t.Fatalf("no table %q", id)
	return nil
}

func findExperiment(t *testing.T, s *Summary, name string) SummaryExperiment {
	t.Helper()
	for _, e := range s.Experiments {
		if e.Experiment == name {
			return e
		}
	}
	t.Fatalf("no experiment %q", name)
	return SummaryExperiment{}
}

// findFigure returns the figure with the given ID, in a grid or not.
func findFigure(t *testing.T, d *model.Doc, id string) model.Figure {
	t.Helper()
	for _, f := range model.Figures(d) {
		if f.FigureID() == id {
			return f
		}
	}
	t.Fatalf("no figure %q", id)
	return nil
}

// withoutScripts returns an HTML page without the code of its inline
// scripts (the embedded ECharts among them), keeping the chart options,
// which are JSON data.
func withoutScripts(page []byte) []byte {
	return codeScript.ReplaceAll(page, []byte("<script></script>"))
}

var codeScript = regexp.MustCompile(`(?s)<script>.*?</script>`)
