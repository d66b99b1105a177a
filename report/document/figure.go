package document

import "math"

// Figure is a chart: *TimeSeries, *Scatter or *Bar.
type Figure interface {
	Block
	// FigureID returns the figure's ID, from which the chart ID is derived
	// (ChartID).
	FigureID() string
}

// Axis describes a value axis.
type Axis struct {
	Name string
	Unit string
	// Min and Max fix the range when Max > Min; otherwise it is automatic.
	Min, Max float64
	// Log selects a logarithmic scale.
	Log bool
}

// Label returns the axis title with its unit, e.g. "latency (s)".
func (a Axis) Label() string {
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

// XExtent returns the range of all x values of f, bands and marks
// included; lo > hi when f has none.
func (f *TimeSeries) XExtent() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	see := func(v float64) { lo, hi = min(lo, v), max(hi, v) }
	for _, s := range f.Series {
		if len(s.X) > 0 {
			see(s.X[0]) // X is non-decreasing
			see(s.X[len(s.X)-1])
		}
	}
	for _, b := range f.Bands {
		see(b.From)
		see(b.To)
	}
	for _, m := range f.Marks {
		see(m.At)
	}
	return lo, hi
}

// Scatter is a scatter plot of groups of points with optional lines
// (fitted lines, bounds) drawn over them and shaded x intervals (a bound
// known only within a range) behind them.
type Scatter struct {
	ID      string
	Title   string
	Caption string
	XAxis   Axis
	YAxis   Axis
	Groups  []ScatterGroup
	Lines   []Line
	Bands   []Band
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

// Line is a polyline drawn on a Scatter; a non-finite Y is a gap. A line
// is a reference (a bound, a fit) unless Data says it is data (an arm's
// distribution): a chart whose only lines are references has no data.
type Line struct {
	Name  string
	X, Y  []float64
	Color string
	Dash  bool
	Data  bool
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
