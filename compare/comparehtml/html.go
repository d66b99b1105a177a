// Package comparehtml renders a comparison as one offline HTML file with
// the report package: the comparison's tables, then the figures of each
// column's own report side by side, one row per figure and one column per
// dataset.
package comparehtml

import (
	"fmt"
	"io"
	"strings"

	"github.com/outlast-dev/outlast/compare"
	"github.com/outlast-dev/outlast/report"
)

// MaxFigures caps how many figures are set side by side, so that a large
// dataset still gives a file a browser opens quickly.
const MaxFigures = 24

// Write writes the comparison res of columns as one self-contained HTML
// file. The figures come from report.Build over each column's runs,
// matched by figure ID (the same experiment and seed in each column); the
// output depends only on its inputs.
func Write(w io.Writer, res *compare.Result, columns []compare.Column) error {
	d := Doc(res, columns)
	return report.WriteHTML(w, d)
}

// Doc builds the report document of a comparison.
func Doc(res *compare.Result, columns []compare.Column) *report.Doc {
	d := &report.Doc{
		Title:    "outlast compare: " + strings.Join(res.Columns, " vs "),
		Subtitle: fmt.Sprintf("baseline %s; α = %g; intervals at %g%%", res.Columns[0], res.Alpha, 100*res.Confidence),
	}
	for _, f := range res.Common {
		d.Provenance = append(d.Provenance, report.KV{Key: f.Name, Value: f.Value})
	}
	if len(res.Ignored) > 0 {
		d.Provenance = append(d.Provenance, report.KV{Key: "not matched on", Value: strings.Join(res.Ignored, ", ")})
	}
	sec := report.Section{ID: "comparison", Title: "Comparison",
		Intro: []string{"Each other column shows its change from the baseline, or ~ when it is not significant, with (p=… n=…)."}}
	for i, t := range res.Tables {
		sec.Blocks = append(sec.Blocks, table(fmt.Sprintf("cmp-%d-%s", i+1, t.Measure.ID), res, t))
	}
	for _, w := range res.Warnings {
		sec.Blocks = append(sec.Blocks, &report.Note{Kind: report.NoteWarning, Text: w})
	}
	d.Sections = append(d.Sections, sec)
	if figs := sideBySide(res, columns); len(figs.Blocks) > 0 {
		d.Sections = append(d.Sections, figs)
	}
	return d
}

// table converts one comparison table: the configuration, then per column
// its value and, after the baseline, "vs base".
func table(id string, res *compare.Result, t *compare.Table) *report.Table {
	m := t.Measure
	rt := &report.Table{ID: id, Caption: m.Title, Columns: []report.Column{{Name: "configuration", Align: report.AlignLeft}}}
	for j, label := range res.Columns {
		rt.Columns = append(rt.Columns, report.Column{Group: label, Name: m.Unit, Align: report.AlignRight})
		if j > 0 {
			rt.Columns = append(rt.Columns, report.Column{Group: label, Name: "vs base", Align: report.AlignRight})
		}
	}
	for _, row := range t.Rows {
		cells := []report.Cell{report.Text(row.Config)}
		for j, c := range row.Cells {
			cell := report.Text(m.CellText(c))
			if len(c.Footnotes) > 0 {
				cell = cell.Mark(footnoteList(c.Footnotes))
			}
			cells = append(cells, cell)
			if j > 0 {
				if c.Vs == nil {
					cells = append(cells, report.Missing())
				} else {
					cells = append(cells, report.Text(m.DeltaText(c.Vs)))
				}
			}
		}
		rt.Rows = append(rt.Rows, cells)
	}
	rt.Notes = append(rt.Notes, t.Method)
	for i, f := range t.Footnotes {
		rt.Notes = append(rt.Notes, fmt.Sprintf("[%d] %s", i+1, f))
	}
	return rt
}

func footnoteList(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// sideBySide builds each column's report and lays out the figures that
// the baseline's report has, with the same figure from every other column
// beside it.
func sideBySide(res *compare.Result, columns []compare.Column) report.Section {
	sec := report.Section{ID: "figures", Title: "Figures side by side",
		Intro: []string{"Each row is one figure of the per-dataset report, one panel per column: " + strings.Join(res.Columns, ", ") + "."}}
	byColumn := make([]map[string]report.Figure, len(columns))
	var order []string
	for j, col := range columns {
		byColumn[j] = map[string]report.Figure{}
		if len(col.Runs) == 0 {
			continue
		}
		doc, _, err := report.Build(col.Runs, report.Options{Dataset: col.Label})
		if err != nil {
			sec.Blocks = append(sec.Blocks, &report.Note{Kind: report.NoteWarning, Text: fmt.Sprintf("%s: no figures: %v", col.Label, err)})
			continue
		}
		for _, f := range figures(doc) {
			byColumn[j][f.FigureID()] = f
			if j == 0 {
				order = append(order, f.FigureID())
			}
		}
	}
	if len(order) > MaxFigures {
		sec.Blocks = append(sec.Blocks, &report.Note{Kind: report.NoteInfo,
			Text: fmt.Sprintf("The first %d of %d figures are shown.", MaxFigures, len(order))})
		order = order[:MaxFigures]
	}
	for _, id := range order {
		g := &report.Grid{Columns: len(columns)}
		for j, col := range columns {
			if f, ok := byColumn[j][id]; ok {
				g.Figures = append(g.Figures, relabel(f, fmt.Sprintf("col%d-", j+1), col.Label))
			}
		}
		if len(g.Figures) > 0 {
			sec.Blocks = append(sec.Blocks, g)
		}
	}
	return sec
}

// figures lists a document's figures in order, those of grids included.
func figures(d *report.Doc) []report.Figure {
	var out []report.Figure
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			switch b := b.(type) {
			case *report.Grid:
				out = append(out, b.Figures...)
			case report.Figure:
				out = append(out, b)
			}
		}
	}
	return out
}

// relabel returns a copy of f with its ID prefixed (IDs must be unique in
// a document) and its title led by the column's label.
func relabel(f report.Figure, prefix, label string) report.Figure {
	switch f := f.(type) {
	case *report.TimeSeries:
		c := *f
		c.ID, c.Title = prefix+c.ID, label+": "+c.Title
		return &c
	case *report.Scatter:
		c := *f
		c.ID, c.Title = prefix+c.ID, label+": "+c.Title
		return &c
	case *report.Bar:
		c := *f
		c.ID, c.Title = prefix+c.ID, label+": "+c.Title
		return &c
	}
	return f
}
