// Package report renders an outlast report: a document model of sections
// holding tables, notes and figures, written as one self-contained offline
// HTML file (WriteHTML), as CSV and Markdown tables (WriteTables) and as
// deterministic JSON (WriteJSON).
//
// Build turns a dataset's runs into the report of the paper's measures: an
// overview, a section per experiment chosen by its design (paired,
// recovery, calibration, drain, mix-shift, prevention, flush, observe), a
// regime map and provenance, with every number also in a Summary
// (summary.json). Write puts index.html, summary.json and tables/ in a
// directory.
//
// Figures are built with go-echarts v2 (charts and opts), completed by a
// ConfigurationVisitor where go-echarts has no field, and only their
// option objects are used: each is embedded in the page as JSON data and
// drawn by the inlined Apache ECharts, so reports open offline under a
// CSP that forbids any request.
//
// Every output is a pure function of its input: there is no wall clock, no
// map-order output and chart IDs are derived from figure IDs, so rendering
// the same Doc twice gives identical bytes.
package report

// Doc is a complete report.
type Doc struct {
	Title    string
	Subtitle string
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

// Block is one element of a section: a *Table, a *Note, a *Grid or a
// Figure (*TimeSeries, *Scatter, *Bar). The set is closed so that every
// renderer handles every kind.
type Block interface {
	isBlock()
}

// Figure is a chart: *TimeSeries, *Scatter or *Bar.
type Figure interface {
	Block
	// FigureID returns the figure's ID, from which the chart ID is derived.
	FigureID() string
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

// Grid lays out small-multiple figures, Columns per row.
type Grid struct {
	Caption string
	// Columns is the number of figures per row; values below 1 mean 2.
	Columns int
	Figures []Figure
}

func (*Table) isBlock() {}
func (*Note) isBlock()  {}
func (*Grid) isBlock()  {}

// Axis describes a value axis.
type Axis struct {
	Name string
	Unit string
	// Min and Max fix the range when Max > Min; otherwise it is automatic.
	Min, Max float64
	// Log selects a logarithmic scale.
	Log bool
}

// label returns the axis title with its unit, e.g. "latency (s)".
func (a Axis) label() string {
	if a.Unit == "" {
		return a.Name
	}
	if a.Name == "" {
		return a.Unit
	}
	return a.Name + " (" + a.Unit + ")"
}

// Style is how a time series is drawn.
type Style int

// Series styles.
const (
	// StyleLine joins points with straight lines.
	StyleLine Style = iota
	// StyleStep holds each value until the next point (per-window metrics).
	StyleStep
	// StyleArea is a line with the area below it filled.
	StyleArea
)

// TimeSeries is a line chart over a numeric x axis, usually minutes since
// the start of a run, with shaded bands (triggers such as bursts) and
// vertical marks (e.g. control start).
type TimeSeries struct {
	ID      string
	Title   string
	Caption string
	// XName is the x-axis title; empty means "time (min)".
	XName string
	// XMin and XMax fix the x range when XMax > XMin.
	XMin, XMax float64
	// YAxes has one or two axes; the second is drawn on the right. Empty
	// means one unnamed automatic axis.
	YAxes  []Axis
	Series []Series
	Bands  []Band
	Marks  []Mark
	// Height is the chart height in CSS pixels; 0 picks a default.
	Height int
}

// Series is one line of a TimeSeries. X must be finite and non-decreasing;
// a NaN or infinite Y is a gap in the line.
type Series struct {
	Name string
	X, Y []float64
	// Axis indexes TimeSeries.YAxes.
	Axis  int
	Style Style
	// Color is a CSS colour; empty picks the next palette colour.
	Color string
	Dash  bool
}

// Band is a shaded x interval, e.g. an injected burst.
type Band struct {
	From, To float64
	Label    string
}

// Mark is a vertical line at an x value, e.g. the start of control.
type Mark struct {
	At    float64
	Label string
}

// Scatter is a scatter plot of groups of points with optional lines
// (fitted lines, bounds) drawn over them.
type Scatter struct {
	ID      string
	Title   string
	Caption string
	XAxis   Axis
	YAxis   Axis
	Groups  []ScatterGroup
	Lines   []Line
	Height  int
}

// ScatterGroup is one legend entry of a Scatter. Labels, if not empty, has
// one label per point and is shown in the tooltip. Points with a
// non-finite coordinate are dropped.
type ScatterGroup struct {
	Name   string
	Points [][2]float64
	Labels []string
	Color  string
}

// Line is a polyline drawn on a Scatter; a non-finite Y is a gap.
type Line struct {
	Name  string
	X, Y  []float64
	Color string
	Dash  bool
}

// Bar is a grouped bar chart: one bar per category and series.
type Bar struct {
	ID         string
	Title      string
	Caption    string
	XName      string
	Categories []string
	YAxis      Axis
	Series     []BarSeries
	Height     int
}

// BarSeries is one legend entry of a Bar; Values has one value per
// category, NaN meaning no bar.
type BarSeries struct {
	Name   string
	Values []float64
	Color  string
}

func (*TimeSeries) isBlock() {}
func (*Scatter) isBlock()    {}
func (*Bar) isBlock()        {}

// FigureID returns f.ID.
func (f *TimeSeries) FigureID() string { return f.ID }

// FigureID returns f.ID.
func (f *Scatter) FigureID() string { return f.ID }

// FigureID returns f.ID.
func (f *Bar) FigureID() string { return f.ID }
