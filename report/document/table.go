package document

// Table is a table of the report. Its ID is also the file stem of the CSV
// and Markdown copies the renderer writes.
type Table struct {
	// ID must be unique among the tables of a Doc and may hold only ASCII
	// letters, digits, '-', '_' and '.', not starting with '.'.
	ID      string
	Caption string
	Columns []Column
	// Rows hold one Cell per column.
	Rows  [][]Cell
	Notes []string
	// Sortable lets a reader of the HTML page sort the rows by any column
	// and filter them by text, in place; the other renderers ignore it.
	Sortable bool
	// Compact keeps each row of the page on one line: cells do not wrap,
	// and a table wider than the page scrolls sideways.
	Compact bool
}

// Align is the horizontal alignment of a column.
type Align int

// Alignments. AlignAuto right-aligns columns whose cells are all numbers
// or missing, and left-aligns the others.
const (
	AlignAuto Align = iota
	AlignLeft
	AlignRight
	AlignCenter
)

// Column describes a table column.
type Column struct {
	// Group is an optional heading spanning adjacent columns with the same
	// Group, e.g. "Burst" over "Hit" and "Sessions".
	Group string
	Name  string
	Unit  string
	Align Align
}

// Header returns the column's flat title: group, name and unit, as used in
// CSV and Markdown, which have no spanning headings.
func (c Column) Header() string {
	h := c.Name
	if c.Group != "" {
		h = c.Group + ": " + h
	}
	if c.Unit != "" {
		h += " (" + c.Unit + ")"
	}
	return h
}

// ColumnAlign returns the alignment of column j, AlignAuto resolved.
func (t *Table) ColumnAlign(j int) Align {
	a := t.Columns[j].Align
	if a != AlignAuto {
		return a
	}
	num := false
	for _, row := range t.Rows {
		if j >= len(row) {
			continue
		}
		switch c := row[j]; {
		case c.kind == cellNum || c.numLike:
			num = true
		case c.kind == cellText:
			return AlignLeft
		}
	}
	if num {
		return AlignRight
	}
	return AlignLeft
}

// HasMarkers reports whether any cell of column j carries a marker.
func (t *Table) HasMarkers(j int) bool {
	for _, row := range t.Rows {
		if j < len(row) && row[j].marker != "" {
			return true
		}
	}
	return false
}
