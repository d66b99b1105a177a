package render

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/outlast-dev/outlast/report/document"
)

// palette is the Okabe–Ito colour-blind-safe palette, yellow last because
// it is hard to see on white.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"}

// PaletteColor returns the i-th colour of the palette series are drawn in
// when they have none, cycling: builders use it to give one thing (an arm,
// a run) the same colour in every figure.
func PaletteColor(i int) string { return palette[i%len(palette)] }

const (
	bandColor   = "rgba(213,94,0,0.13)"
	defaultH    = 360
	gridCellH   = 250
	annotations = "\u200bannotations" // zero-width prefix: cannot clash with a real series name
)

// chartSpec is one chart ready for the HTML template.
type chartSpec struct {
	ID      string // DOM ID, from document.ChartID
	Title   string
	Caption string
	Height  int
	Tooltip string // "xy": the page installs a point tooltip formatter
	Option  string // JSON
	Points  int    // data points in Option, after downsampling
}

// echart is what buildChartIn needs of a go-echarts chart.
type echart interface {
	Accept(charts.ConfigurationVisitor)
	Validate()
	JSON() map[string]any
}

// frame holds the per-chart settings shared by every figure kind.
type frame struct {
	id, figure string
	height     int
	inGrid     bool
	// cols is the number of columns of the grid the chart is in, for the
	// width its legend has; 1 outside a grid.
	cols int
}

// buildChartData returns the chart of f; inGrid selects the
// small-multiple size (in a grid of two columns), and compact false keeps
// go-echarts' own {"value":...} data items, for tests to compare against.
func buildChartData(f document.Figure, inGrid, compact bool) (chartSpec, error) {
	cols := 1
	if inGrid {
		cols = 2
	}
	return buildChartIn(f, inGrid, cols, compact)
}

// buildChartIn is buildChartData in a grid of cols columns.
func buildChartIn(f document.Figure, inGrid bool, cols int, compact bool) (chartSpec, error) {
	fr := &frame{id: document.ChartID(f.FigureID()), figure: f.FigureID(), inGrid: inGrid, cols: max(cols, 1)}
	spec := chartSpec{ID: fr.id}
	v := newOptionVisitor(inGrid)
	v.compact = compact
	var c echart
	switch f := f.(type) {
	case *document.TimeSeries:
		fr.height = chartHeight(f.Height, inGrid)
		c, spec.Points = timeSeriesChart(f, fr, v)
		spec.Title, spec.Caption = f.Title, f.Caption
	case *document.Scatter:
		fr.height = chartHeight(f.Height, inGrid)
		c, spec.Points = scatterChart(f, fr, v)
		spec.Title, spec.Caption = f.Title, f.Caption
		spec.Tooltip = "xy"
	case *document.Bar:
		fr.height = chartHeight(f.Height, inGrid)
		c, spec.Points = barChart(f, fr, v)
		spec.Title, spec.Caption = f.Title, f.Caption
	default:
		return chartSpec{}, fmt.Errorf("report: unknown figure type %T", f)
	}
	spec.Height = fr.height
	if !hasData(f) {
		// An empty plot says nothing of why; the chart says it has no data.
		v.top["graphic"] = []any{map[string]any{"type": "text", "left": "center", "top": "middle", "silent": true,
			"style": map[string]any{"text": noDataText, "fill": "#666", "fontSize": 13}}}
		if spec.Caption != "" {
			spec.Caption += " "
		}
		spec.Caption += noDataCaption
	}
	c.Accept(v)
	c.Validate()
	opt := c.JSON()
	if v.err != nil {
		return chartSpec{}, fmt.Errorf("report: figure %q: %w", fr.figure, v.err)
	}
	b, err := json.Marshal(opt)
	if err != nil {
		return chartSpec{}, fmt.Errorf("report: figure %q: %w", fr.figure, err)
	}
	spec.Option = string(b)
	return spec, nil
}

// What a chart without data says, on the plot and below it.
const (
	noDataText    = "no data to draw"
	noDataCaption = "(No data to draw: none of the runs has a value of this measure.)"
)

// hasData reports whether f has a point to draw: a finite (x, y) of a
// series, group, data line or bar. Bounds, fits, bands and marks are not
// data.
func hasData(f document.Figure) bool {
	fin := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch f := f.(type) {
	case *document.TimeSeries:
		for _, s := range f.Series {
			for i := range s.X {
				if i < len(s.Y) && fin(s.X[i]) && fin(s.Y[i]) {
					return true
				}
			}
		}
	case *document.Scatter:
		for _, g := range f.Groups {
			for _, p := range g.Points {
				if fin(p[0]) && fin(p[1]) {
					return true
				}
			}
		}
		for _, l := range f.Lines {
			for i := range l.X {
				if l.Data && i < len(l.Y) && fin(l.X[i]) && fin(l.Y[i]) {
					return true
				}
			}
		}
	case *document.Bar:
		for _, s := range f.Series {
			for _, v := range s.Values {
				if fin(v) {
					return true
				}
			}
		}
	}
	return false
}

func chartHeight(h int, inGrid bool) int {
	switch {
	case h > 0:
		return h
	case inGrid:
		return gridCellH
	}
	return defaultH
}

// Legend layout: the page's content width (report.css: .page is 1120 px
// wide with 32 px padding each side), the gap between grid columns, and
// what one legend line and item take at the 12 px font.
const (
	pageContentW  = 1056
	gridGapW      = 20
	legendLineH   = 22
	legendIconW   = 25 + 5 + 10 // icon, its gap to the text, the gap to the next item
	legendCharW   = 7.0
	legendRightW  = 96 // beside the toolbox
	legendMarginW = 8
)

// legendRows estimates how many lines a plain legend of names takes in
// the chart's width: items wrap as ECharts wraps them.
func (fr *frame) legendRows(names []string) int {
	w := float64(pageContentW-gridGapW*(fr.cols-1)) / float64(fr.cols)
	w -= legendMarginW
	if fr.inGrid {
		w -= legendMarginW
	} else {
		w -= legendRightW
	}
	rows, used := 1, 0.0
	for _, n := range names {
		iw := legendIconW + legendCharW*float64(utf8.RuneCountInString(n))
		if used > 0 && used+iw > w {
			rows, used = rows+1, 0
		}
		used += iw
	}
	return rows
}

// globalOpts returns the settings every chart shares: a fixed ChartID, no
// animation (a screenshot would catch a half-drawn line), the palette, a
// legend and a toolbox instead of wheel zoom, which would hijack page
// scrolling. Small multiples share one purpose, so they get no toolbox.
// The legend shows every series: it wraps (no paging, which hid series
// behind "1/2"), and the plot is moved down and the chart made taller by
// the lines it takes.
func (fr *frame) globalOpts(legend []string, tooltip opts.Tooltip) []charts.GlobalOpts {
	lg := opts.Legend{Type: "plain", Top: "2", Left: "8", Right: "96", Data: legend}
	extra := legendLineH * (fr.legendRows(legend) - 1)
	fr.height += extra
	grid := opts.Grid{Left: "12", Right: "20", Top: strconv.Itoa(56 + extra), Bottom: "40", ContainLabel: opts.Bool(true)}
	tb := opts.Toolbox{Show: opts.Bool(false)}
	if fr.inGrid {
		lg.Right = "8"
		grid.Top = strconv.Itoa(48 + extra)
	} else {
		tb = opts.Toolbox{Show: opts.Bool(true), Right: "8", Top: "0", Feature: &opts.ToolBoxFeature{
			DataZoom: &opts.ToolBoxFeatureDataZoom{Show: opts.Bool(true), YAxisIndex: "none",
				Title: map[string]string{"zoom": "zoom", "back": "undo zoom"}},
			Restore:     &opts.ToolBoxFeatureRestore{Show: opts.Bool(true), Title: "reset"},
			SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Type: "png", Name: fr.figure, Title: "save PNG"},
		}}
	}
	return []charts.GlobalOpts{
		// WithInitializationOpts replaces the whole struct, so every field
		// is set here; an empty ChartID would be drawn from math/rand.
		// Only the option is used, so size and assets never reach the page.
		charts.WithInitializationOpts(opts.Initialization{
			ChartID: fr.id, Width: "100%", Height: strconv.Itoa(fr.height) + "px",
			Theme: "white", Renderer: "canvas", PageTitle: fr.figure, AssetsHost: "./",
		}),
		charts.WithAnimation(false),
		charts.WithColorsOpts(palette),
		charts.WithTitleOpts(opts.Title{Show: opts.Bool(false)}), // the page has the title
		charts.WithLegendOpts(lg),
		charts.WithTooltipOpts(tooltip),
		charts.WithToolboxOpts(tb),
		charts.WithGridOpts(grid),
	}
}

// xAxisOpts fixes the range to [lo, hi] when hi > lo; otherwise
// ECharts picks a range that starts at zero.
func xAxisOpts(name string, lo, hi float64) opts.XAxis {
	ax := opts.XAxis{
		Type: "value", Name: name, NameLocation: "middle", NameGap: 26,
		SplitLine: &opts.SplitLine{Show: opts.Bool(false)},
	}
	if hi > lo {
		ax.Min, ax.Max = xval(lo), xval(hi)
	}
	return ax
}

// yAxisOpts returns axis i of a chart; the visitor puts its name above
// the axis, aligned inwards, so that it never collides with tick labels
// of any width. The second axis is drawn on the right without a grid of
// its own: one grid is enough.
func yAxisOpts(a document.Axis, i int, v *optionVisitor) opts.YAxis {
	ax := opts.YAxis{Type: "value", Name: a.Label(), NameLocation: "end", NameGap: 12}
	if a.Log {
		ax.Type = "log"
	}
	if a.Max > a.Min {
		ax.Min, ax.Max = xval(a.Min), xval(a.Max)
	} else if a.Log {
		ax.Min, ax.Max = "dataMin", "dataMax"
	}
	align := "left"
	if i == 1 {
		ax.Position = "right"
		ax.SplitLine = &opts.SplitLine{Show: opts.Bool(false)}
		align = "right"
	}
	v.yAxis(i, map[string]any{"nameTextStyle": map[string]any{"align": align}})
	return ax
}

// lineOpts returns the options of a drawn line.
func lineOpts(color string, dash bool) []charts.SeriesOpts {
	ls := opts.LineStyle{Width: 1.6, Color: color}
	if dash {
		ls.Type = "dashed"
	}
	o := []charts.SeriesOpts{charts.WithLineStyleOpts(ls)}
	if color != "" {
		o = append(o, charts.WithItemStyleOpts(opts.ItemStyle{Color: color}))
	}
	return o
}
