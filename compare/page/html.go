// Package page renders a comparison as one offline HTML file with
// the report's document model and renderer: the comparison's tables, then
// the figures of each column's own report side by side, one row per figure
// and one column per dataset. Where the figures come from is the caller's
// choice (a FigureSource, document.Figures in outlast compare), so that this
// package depends on the model and renderer only.
package page

import (
	"fmt"
	"io"
	"strings"

	"github.com/outlast-dev/outlast/compare"
	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/report/render"
)

// MaxFigures caps how many figures are set side by side, so that a large
// dataset still gives a file a browser opens quickly.
const MaxFigures = 24

// FigureSource returns the figures of one column's own report in document
// order; an error is shown in their place.
type FigureSource func(col compare.Column) ([]document.Figure, error)

// Write writes the comparison res of columns as one self-contained HTML
// file. The figures come from figures over each column's runs, matched by
// figure ID (the same experiment and seed in each column); nil figures
// leaves them out. The output depends only on its inputs.
func Write(w io.Writer, res *compare.Result, columns []compare.Column, figures FigureSource) error {
	return render.WriteHTML(w, Doc(res, columns, figures))
}

// Doc builds the report document of a comparison.
func Doc(res *compare.Result, columns []compare.Column, figures FigureSource) *document.Doc {
	d := &document.Doc{
		Title:    "outlast compare: " + strings.Join(res.Columns, " vs "),
		Subtitle: fmt.Sprintf("baseline %s; α = %g; intervals at %g%%", res.Columns[0], res.Alpha, 100*res.Confidence),
	}
	for _, f := range res.Common {
		d.Provenance = append(d.Provenance, document.KV{Key: f.Name, Value: f.Value})
	}
	if len(res.Ignored) > 0 {
		d.Provenance = append(d.Provenance, document.KV{Key: "not matched on", Value: strings.Join(res.Ignored, ", ")})
	}
	sec := document.Section{ID: "comparison", Title: "Comparison",
		Intro: []string{"Each other column shows its change from the baseline, or ~ when it is not significant, with (p=… n=…)."}}
	for i, t := range res.Tables {
		sec.Blocks = append(sec.Blocks, table(fmt.Sprintf("cmp-%d-%s", i+1, t.Measure.ID), res, t))
	}
	for _, w := range res.Warnings {
		sec.Blocks = append(sec.Blocks, &document.Note{Kind: document.NoteWarning, Text: w})
	}
	d.Sections = append(d.Sections, sec)
	if figs := sideBySide(res, columns, figures); len(figs.Blocks) > 0 {
		d.Sections = append(d.Sections, figs)
	}
	return d
}

// table converts one comparison table: the configuration, then per column
// its value and, after the baseline, "vs base".
func table(id string, res *compare.Result, t *compare.Table) *document.Table {
	m := t.Measure
	rt := &document.Table{ID: id, Caption: m.Title, Columns: []document.Column{{Name: "configuration", Align: document.AlignLeft}}}
	for j, label := range res.Columns {
		rt.Columns = append(rt.Columns, document.Column{Group: label, Name: m.Unit, Align: document.AlignRight})
		if j > 0 {
			rt.Columns = append(rt.Columns, document.Column{Group: label, Name: "vs base", Align: document.AlignRight})
		}
	}
	for _, row := range t.Rows {
		cells := []document.Cell{document.Text(row.Config)}
		for j, c := range row.Cells {
			cell := document.Text(m.CellText(c))
			if len(c.Footnotes) > 0 {
				cell = cell.Mark(footnoteList(c.Footnotes))
			}
			cells = append(cells, cell)
			if j > 0 {
				if c.Vs == nil {
					cells = append(cells, document.Missing())
				} else {
					cells = append(cells, document.Text(m.DeltaText(c.Vs)))
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

// sideBySide lays out the figures of the baseline's report, with the same
// figure from every other column's report beside it.
func sideBySide(res *compare.Result, columns []compare.Column, figures FigureSource) document.Section {
	sec := document.Section{ID: "figures", Title: "Figures side by side",
		Intro: []string{"Each row is one figure of the per-dataset report, one panel per column: " + strings.Join(res.Columns, ", ") + "; the panels of a row share their value scales."}}
	byColumn := make([]map[string]document.Figure, len(columns))
	var order []string
	for j, col := range columns {
		byColumn[j] = map[string]document.Figure{}
		if len(col.Runs) == 0 || figures == nil {
			continue
		}
		figs, err := figures(col)
		if err != nil {
			sec.Blocks = append(sec.Blocks, &document.Note{Kind: document.NoteWarning, Text: fmt.Sprintf("%s: no figures: %v", col.Label, err)})
			continue
		}
		for _, f := range figs {
			byColumn[j][f.FigureID()] = f
			if j == 0 {
				order = append(order, f.FigureID())
			}
		}
	}
	if len(order) > MaxFigures {
		sec.Blocks = append(sec.Blocks, &document.Note{Kind: document.NoteInfo,
			Text: fmt.Sprintf("The first %d of %d figures are shown.", MaxFigures, len(order))})
		order = order[:MaxFigures]
	}
	for _, id := range order {
		g := &document.Grid{Columns: len(columns)}
		for j, col := range columns {
			if f, ok := byColumn[j][id]; ok {
				g.Figures = append(g.Figures, relabel(f, fmt.Sprintf("col%d-", j+1), col.Label))
			}
		}
		shareScales(g.Figures)
		if len(g.Figures) > 0 {
			sec.Blocks = append(sec.Blocks, g)
		}
	}
	return sec
}

// relabel returns a copy of f with its ID prefixed (IDs must be unique in
// a document) and its title led by the column's label.
func relabel(f document.Figure, prefix, label string) document.Figure {
	switch f := f.(type) {
	case *document.TimeSeries:
		c := *f
		c.ID, c.Title = prefix+c.ID, label+": "+c.Title
		return &c
	case *document.Scatter:
		c := *f
		c.ID, c.Title = prefix+c.ID, label+": "+c.Title
		return &c
	case *document.Bar:
		c := *f
		c.ID, c.Title = prefix+c.ID, label+": "+c.Title
		return &c
	}
	return f
}
