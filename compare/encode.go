package compare

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/internal/jsonnum"
)

// CSVHeader is the header of WriteCSV: one record per measure,
// configuration and column.
var CSVHeader = []string{
	"measure", "unit", "config", "column", "runs", "count", "value", "lo", "hi", "se", "not_recovered",
	"vs_base", "test", "paired", "n_base", "n_other", "pairs", "diff", "diff_lo", "diff_hi", "percent",
	"p", "p_adjusted", "significant", "notes",
}

// WriteCSV writes the comparison in long form, one record per measure,
// configuration and column, with every number of the text tables to
// jsonnum.SignificantDigits digits (empty when undefined) and the footnotes in
// "notes".
func (r *Result) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, t := range r.Tables {
		m := t.Measure
		for _, row := range t.Rows {
			for _, c := range row.Cells {
				var notes []string
				for _, n := range c.Footnotes {
					notes = append(notes, t.Footnotes[n-1])
				}
				rec := []string{
					m.ID, m.Unit, row.Config, c.Column, strconv.Itoa(c.Runs), strconv.Itoa(c.Count),
					csvFloat(c.Value, c.valueInf), csvFloat(c.Lo, c.loInf), csvFloat(c.Hi, c.hiInf), csvFloat(c.SE, false),
					strconv.Itoa(c.NotRecovered),
				}
				if d := c.Vs; d != nil {
					rec = append(rec, m.DeltaText(d), d.Test, strconv.FormatBool(d.Paired),
						strconv.Itoa(d.NBase), strconv.Itoa(d.NOther), strconv.Itoa(d.Pairs),
						csvFloat(d.Diff, false), csvFloat(d.DiffLo, false), csvFloat(d.DiffHi, false), csvFloat(d.Percent, false),
						csvFloat(d.P, false), csvFloat(d.PAdjusted, false), strconv.FormatBool(d.Significant))
				} else {
					rec = append(rec, make([]string, 13)...)
				}
				rec = append(rec, strings.Join(notes, "; "))
				if err := cw.Write(rec); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvFloat prints v to jsonnum.SignificantDigits digits in its shortest form,
// "inf" for n.r., and "" when undefined.
func csvFloat(v Float, inf bool) string {
	if inf {
		return "inf"
	}
	if v.IsNaN() {
		return ""
	}
	return strconv.FormatFloat(jsonnum.Round(float64(v)), 'g', -1, 64)
}

// WriteJSON writes the comparison as indented JSON: the Result with its
// tables, rows, cells and deltas (field names as in the struct tags;
// undefined numbers are null). Struct fields keep their declared order,
// so the bytes depend only on the result.
func (r *Result) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
