package compare

import (
	"fmt"
	"strings"

	"github.com/outlast-dev/outlast/stats"
)

// finishTable applies Holm's correction to each column's p-values across
// the table's rows, decides significance and states the method.
func finishTable(t *Table, res *Result) {
	for j := 1; j < len(res.Columns); j++ {
		var ps []float64
		var ds []*Delta
		for _, r := range t.Rows {
			if j < len(r.Cells) && r.Cells[j].Vs != nil {
				ps = append(ps, float64(r.Cells[j].Vs.P))
				ds = append(ds, r.Cells[j].Vs)
			}
		}
		adj := ps
		if res.Holm {
			adj = stats.Holm(ps)
		}
		for k, d := range ds {
			d.PAdjusted = Float(adj[k])
			d.Significant = adj[k] <= res.Alpha
			d.Worse = d.Significant && t.Measure.worse(d)
		}
	}
	t.Method = method(t, res)
}

// testNames are the tests' descriptions in the method line, in the order
// it names them.
var testNames = []struct{ id, text string }{
	{TestFisher, "Fisher's exact test"}, {TestMcNemar, "exact McNemar on seed pairs"},
	{TestMannWhitney, "Mann-Whitney U"}, {TestSign, "sign test on seed pairs"},
	{TestZ, "z-test of the difference of the fits"},
}

// method states the tests t's rows used, the significance level and the
// multiple-testing correction.
func method(t *Table, res *Result) string {
	used := map[string]bool{}
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c.Vs != nil {
				used[c.Vs.Test] = true
			}
		}
	}
	var tests []string
	for _, tn := range testNames {
		if used[tn.id] {
			tests = append(tests, tn.text)
		}
	}
	s := "no test: no row has runs in two columns"
	if len(tests) > 0 {
		s = "test: " + strings.Join(tests, "; ")
	}
	s += fmt.Sprintf("; ~: not significant at α = %s", fmtFloat(res.Alpha))
	if b := t.Measure.Better; b != "" {
		s += fmt.Sprintf("; %s is better (worse: a significant regression)", b)
	}
	if n := len(testedRows(t)); res.Holm && n > 1 {
		s += fmt.Sprintf("; p Holm-adjusted across %d rows", n)
	}
	return s
}

// testedRows returns the rows of t that have a comparison in some column: the
// family Holm's correction adjusts over (per column).
func testedRows(t *Table) []*Row {
	var out []*Row
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c.Vs != nil {
				out = append(out, r)
				break
			}
		}
	}
	return out
}
