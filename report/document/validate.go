package document

import (
	"errors"
	"fmt"
	"math"
)

// Validate checks d for everything the renderers rely on: unique and
// well-formed section, table and chart IDs, rows as wide as their tables,
// series with matching X/Y lengths, finite non-decreasing time axes and
// valid axis indexes, and list links to existing sections. It reports all
// problems found.
func Validate(d *Doc) error {
	if d == nil {
		return errors.New("report: nil Doc")
	}
	v := validator{
		sections: map[string]bool{},
		tables:   map[string]bool{},
		charts:   map[string]string{},
	}
	for i := range d.Sections {
		s := &d.Sections[i]
		where := fmt.Sprintf("section %d (%q)", i, s.ID)
		if !validSectionID(s.ID) {
			v.errf("%s: ID must be non-empty ASCII letters, digits, '-' or '_'", where)
		} else if v.sections[s.ID] {
			v.errf("%s: duplicate section ID", where)
		}
		v.sections[s.ID] = true
		for j, b := range s.Blocks {
			v.block(fmt.Sprintf("%s block %d", where, j), b)
		}
	}
	for _, l := range v.links {
		if !v.sections[l.to] {
			v.errf("%s: link to %q, which is no section", l.where, l.to)
		}
	}
	return errors.Join(v.errs...)
}

type validator struct {
	errs     []error
	sections map[string]bool
	tables   map[string]bool
	charts   map[string]string // chart ID -> figure ID
	links    []link            // checked once every section is known
}

// link is a list item's link to a section.
type link struct{ where, to string }

func (v *validator) errf(format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf("report: "+format, args...))
}

func (v *validator) block(where string, b Block) {
	switch b := b.(type) {
	case *Table:
		if b == nil {
			v.errf("%s: nil table", where)
			return
		}
		v.table(where, b)
	case *Note:
		if b == nil {
			v.errf("%s: nil note", where)
		}
	case *List:
		if b == nil {
			v.errf("%s: nil list", where)
			return
		}
		for k, it := range b.Items {
			if it.Link != "" {
				v.links = append(v.links, link{fmt.Sprintf("%s item %d", where, k), it.Link})
			}
		}
	case *Grid:
		if b == nil {
			v.errf("%s: nil grid", where)
			return
		}
		for k, f := range b.Figures {
			v.block(fmt.Sprintf("%s figure %d", where, k), f)
		}
	case Figure:
		v.figure(where, b)
	default:
		v.errf("%s: nil or unknown block %T", where, b)
	}
}

func (v *validator) table(where string, t *Table) {
	where += fmt.Sprintf(" table %q", t.ID)
	if !validTableID(t.ID) {
		v.errf("%s: ID must be ASCII letters, digits, '-', '_' or '.', not starting with '.'", where)
	} else if v.tables[t.ID] {
		v.errf("%s: duplicate table ID", where)
	}
	v.tables[t.ID] = true
	if len(t.Columns) == 0 {
		v.errf("%s: no columns", where)
	}
	for i, row := range t.Rows {
		if len(row) != len(t.Columns) {
			v.errf("%s: row %d has %d cells, want %d", where, i, len(row), len(t.Columns))
		}
	}
}

func (v *validator) figure(where string, f Figure) {
	if isNilFigure(f) {
		v.errf("%s: nil figure %T", where, f)
		return
	}
	id := f.FigureID()
	where += fmt.Sprintf(" figure %q", id)
	if id == "" {
		v.errf("%s: empty figure ID", where)
	} else {
		cid := ChartID(id)
		if prev, ok := v.charts[cid]; ok {
			v.errf("%s: chart ID %s already used by figure %q", where, cid, prev)
		}
		v.charts[cid] = id
	}
	switch f := f.(type) {
	case *TimeSeries:
		v.timeSeries(where, f)
	case *Scatter:
		if err := checkAxis(f.XAxis); err != nil {
			v.errf("%s: x axis: %v", where, err)
		}
		if err := checkAxis(f.YAxis); err != nil {
			v.errf("%s: y axis: %v", where, err)
		}
		for _, g := range f.Groups {
			if len(g.Labels) != 0 && len(g.Labels) != len(g.Points) {
				v.errf("%s: group %q has %d labels for %d points", where, g.Name, len(g.Labels), len(g.Points))
			}
		}
		for _, l := range f.Lines {
			if len(l.X) != len(l.Y) {
				v.errf("%s: line %q has %d x and %d y values", where, l.Name, len(l.X), len(l.Y))
			}
			for _, x := range l.X {
				if !finite(x) {
					v.errf("%s: line %q has a non-finite x", where, l.Name)
					break
				}
			}
		}
		v.bands(where, f.Bands)
	case *Bar:
		if err := checkAxis(f.YAxis); err != nil {
			v.errf("%s: y axis: %v", where, err)
		}
		for _, s := range f.Series {
			if len(s.Values) != len(f.Categories) {
				v.errf("%s: series %q has %d values for %d categories", where, s.Name, len(s.Values), len(f.Categories))
			}
		}
	}
}

func (v *validator) timeSeries(where string, f *TimeSeries) {
	if len(f.YAxes) > 2 {
		v.errf("%s: %d y axes, at most 2", where, len(f.YAxes))
	}
	for i, a := range f.YAxes {
		if err := checkAxis(a); err != nil {
			v.errf("%s: y axis %d: %v", where, i, err)
		}
	}
	if !finite(f.XMin) || !finite(f.XMax) {
		v.errf("%s: non-finite XMin/XMax", where)
	}
	naxes := max(len(f.YAxes), 1)
	for _, s := range f.Series {
		if len(s.X) != len(s.Y) {
			v.errf("%s: series %q has %d x and %d y values", where, s.Name, len(s.X), len(s.Y))
		}
		if s.Axis < 0 || s.Axis >= naxes {
			v.errf("%s: series %q uses y axis %d of %d", where, s.Name, s.Axis, naxes)
		}
		for i, x := range s.X {
			if !finite(x) {
				v.errf("%s: series %q: x[%d] is not finite", where, s.Name, i)
				break
			}
			if i > 0 && x < s.X[i-1] {
				v.errf("%s: series %q: x decreases at index %d", where, s.Name, i)
				break
			}
		}
	}
	v.bands(where, f.Bands)
	for _, m := range f.Marks {
		if !finite(m.At) {
			v.errf("%s: mark %q is not finite", where, m.Label)
		}
	}
}

func (v *validator) bands(where string, bands []Band) {
	for _, b := range bands {
		if !finite(b.From) || !finite(b.To) || b.To < b.From {
			v.errf("%s: band %q: want finite From <= To", where, b.Label)
		}
	}
}

func checkAxis(a Axis) error {
	if !finite(a.Min) || !finite(a.Max) {
		return errors.New("non-finite Min/Max")
	}
	if a.Log && a.Max > a.Min && a.Min <= 0 {
		return errors.New("log axis with Min <= 0")
	}
	return nil
}

// isNilFigure reports whether f is a typed nil pointer.
func isNilFigure(f Figure) bool {
	switch f := f.(type) {
	case *TimeSeries:
		return f == nil
	case *Scatter:
		return f == nil
	case *Bar:
		return f == nil
	}
	return f == nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
