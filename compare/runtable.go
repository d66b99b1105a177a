package compare

import (
	"math"

	"github.com/outlast-dev/outlast/stats"
)

// runTable builds the table of a per-run measure: a row per configuration
// in which some column has a run the measure counts.
func runTable(m Measure, res *Result, g grouping, show, varying []int, hidden func([]*runFacts) []string) *Table {
	t := &Table{Measure: m, Footnotes: []string{}}
	for _, cfg := range g.configs {
		row := &Row{Config: cfg.label(show), Key: []Field{}}
		for _, i := range varying {
			row.Key = append(row.Key, Field{Name: KeyFields[i], Value: cfg[i]})
		}
		sel := make([]*cell, len(res.Columns))
		hasRuns := false
		for j, c := range g.cells[cfg] {
			sel[j] = &cell{}
			for _, f := range c.runs {
				if m.counts(f) {
					sel[j].runs = append(sel[j].runs, f)
				}
			}
			left := len(c.runs) - len(sel[j].runs)
			hasRuns = hasRuns || len(sel[j].runs) > 0 || m.leftOut != "" && left > 0
		}
		if !hasRuns {
			continue
		}
		for j, c := range sel {
			out := &Cell{Column: res.Columns[j], Runs: len(c.runs), Footnotes: []int{}}
			summarize(m, c, out, res.Confidence)
			for _, v := range hidden(c.runs) {
				out.note(t, "runs of %s differ in %s, which the grouping hides", res.Columns[j], v)
			}
			left := len(g.cells[cfg][j].runs) - len(c.runs)
			if m.leftOut != "" && left > 0 {
				out.note(t, m.leftOut, left)
			}
			if len(c.runs) == 0 {
				switch {
				case len(g.cells[cfg][j].runs) == 0:
					out.note(t, "configuration not in %s", res.Columns[j])
				case m.leftOut != "":
				default:
					out.note(t, "%s has no %s", res.Columns[j], m.Counted)
				}
			} else if j > 0 && len(sel[0].runs) > 0 {
				out.Vs = compareCells(m, sel[0], c, res, t, out)
			}
			row.Cells = append(row.Cells, out)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// summarize fills a cell's summary: k/n, or the median and its interval.
func summarize(m Measure, c *cell, out *Cell, confidence float64) {
	nan := Float(math.NaN())
	out.Value, out.Lo, out.Hi, out.SE = nan, nan, nan, nan
	if len(c.runs) == 0 {
		return
	}
	vals := m.values(c.runs)
	if m.Kind == KindProportion {
		for _, v := range vals {
			if v == 1 {
				out.Count++
			}
		}
		out.Value = Float(float64(out.Count) / float64(len(vals)))
		lo, hi := stats.Wilson(out.Count, len(vals), confidence)
		out.Lo, out.Hi = Float(lo), Float(hi)
		return
	}
	for _, v := range vals {
		if math.IsInf(v, 1) {
			out.NotRecovered++
		}
	}
	ci := stats.NewMedianCI(vals, confidence)
	out.Value, out.valueInf = finiteOrNaN(ci.Median), math.IsInf(ci.Median, 1)
	if ci.OK {
		out.Lo, out.loInf = finiteOrNaN(ci.Lo), math.IsInf(ci.Lo, 1)
		out.Hi, out.hiInf = finiteOrNaN(ci.Hi), math.IsInf(ci.Hi, 1)
	}
}

// finiteOrNaN is v as a Float, NaN (null) when v is infinite: a value
// that is "not recovered" has no number.
func finiteOrNaN(v float64) Float {
	if math.IsInf(v, 0) {
		return Float(math.NaN())
	}
	return Float(v)
}
