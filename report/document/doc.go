// Package document is the document model of an outlast report: a Doc of
// numbered sections holding tables, notes and figures, with the cells,
// axes and series they are made of, and Validate, which checks everything
// the renderers rely on. It computes nothing and writes nothing: package
// report builds a Doc from a dataset, package compare/page from a
// comparison, and package report/render turns any valid Doc into HTML,
// CSV and Markdown.
//
// The set of blocks is closed (*Table, *Note, *List, *Grid and the figures
// *TimeSeries, *Scatter and *Bar), so that every renderer handles every
// kind. Values that cannot be had are NaN in figures (a gap) and Missing
// cells in tables, never 0.
package document

// Doc is a complete report.
type Doc struct {
	Title    string
	Subtitle string
	// Lead is plain text under the title, one paragraph per element: what
	// the page holds and how to read it, before anything else.
	Lead []string
	// Provenance lists facts about the inputs (dataset hash, commit, date
	// from SOURCE_DATE_EPOCH, ...), shown in order under the title.
	Provenance []KV
	Sections   []Section
}

// KV is one provenance row.
type KV struct {
	Key, Value string
}

// Section is a numbered part of the report with an entry in the table of
// contents.
type Section struct {
	// ID is the HTML anchor; it must be unique in the Doc and may hold
	// only ASCII letters, digits, '-' and '_'.
	ID    string
	Title string
	// Intro is plain text, one paragraph per element.
	Intro  []string
	Blocks []Block
}

// Block is one element of a section: a *Table, a *Note, a *List, a *Grid
// or a Figure (*TimeSeries, *Scatter, *Bar).
type Block interface {
	isBlock()
}

// NoteKind selects how a Note is styled.
type NoteKind int

// Note kinds.
const (
	NoteInfo NoteKind = iota
	NoteWarning
)

// Note is a short highlighted paragraph, e.g. a caveat about missing data.
type Note struct {
	Kind NoteKind
	Text string
}

// List is a list of short statements, such as a report's findings.
type List struct {
	Items []ListItem
}

// ListItem is one statement of a List: Label, when set, is shown first and
// links to the section whose ID is Link (when set); Warning marks a
// statement that changes how the numbers read.
type ListItem struct {
	Label   string
	Link    string
	Text    string
	Warning bool
}

// Grid lays out small-multiple figures, Columns per row.
type Grid struct {
	Caption string
	// Columns is the number of figures per row; values below 1 mean 2.
	Columns int
	Figures []Figure
}

func (*Table) isBlock() {}
func (*Note) isBlock()  {}
func (*List) isBlock()  {}
func (*Grid) isBlock()  {}

// Tables returns the tables of d in document order.
func Tables(d *Doc) []*Table {
	var ts []*Table
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			if t, ok := b.(*Table); ok && t != nil {
				ts = append(ts, t)
			}
		}
	}
	return ts
}

// Figures returns the figures of d in document order, those of grids
// included.
func Figures(d *Doc) []Figure {
	var fs []Figure
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			switch b := b.(type) {
			case *Grid:
				fs = append(fs, b.Figures...)
			case Figure:
				fs = append(fs, b)
			}
		}
	}
	return fs
}
