package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Every chart is built with go-echarts (charts.NewLine, NewScatter and
// NewBar with opts types), but only its option object is used: the page
// embeds each option as JSON data read with JSON.parse (assets/runtime.js)
// instead of go-echarts' generated <script>, so the page keeps its own
// template, CSP and inline ECharts. go-echarts' gaps are handled here:
//   - its own serializer drops encoder errors, so one NaN empties a chart:
//     non-finite values become "-" (ECharts' missing value) before
//     AddSeries, and the option goes through json.Marshal, whose error is
//     returned;
//   - an unset ChartID is random: it is always set to ChartID(figure);
//   - it has no fields for useUTC, textStyle, tooltip confine, toolbox
//     itemSize, axis nameTextStyle or series silent, z and progressive,
//     and emits null for some unset fields: optionVisitor adds the former
//     and drops the latter;
//   - it writes each point as {"value":[x,y]}: optionVisitor writes
//     [x,y], which ECharts reads the same way, in about two thirds of
//     the bytes.
//
// encoding/json sorts map keys and go-echarts' structs have a fixed field
// order, so the option bytes depend only on the figure.

// palette is the Okabe–Ito colour-blind-safe palette, yellow last because
// it is hard to see on white.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"}

const (
	bandColor   = "rgba(213,94,0,0.13)"
	defaultH    = 360
	gridCellH   = 250
	annotations = "\u200bannotations" // zero-width prefix: cannot clash with a real series name
)

// chartSpec is one chart ready for the HTML template.
type chartSpec struct {
	ID      string // DOM ID, from ChartID
	Title   string
	Caption string
	Height  int
	Tooltip string // "xy": the page installs a point tooltip formatter
	Option  string // JSON
	Points  int    // data points in Option, after downsampling
}

// echart is what buildChart needs of a go-echarts chart.
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
}

// buildChart returns the chart of f; inGrid selects the small-multiple size.
func buildChart(f Figure, inGrid bool) (chartSpec, error) {
	return buildChartData(f, inGrid, true)
}

// buildChartData is buildChart; compact false keeps go-echarts' own
// {"value":...} data items, for tests to compare against.
func buildChartData(f Figure, inGrid, compact bool) (chartSpec, error) {
	fr := frame{id: ChartID(f.FigureID()), figure: f.FigureID(), inGrid: inGrid}
	spec := chartSpec{ID: fr.id}
	v := newOptionVisitor(inGrid)
	v.compact = compact
	var c echart
	switch f := f.(type) {
	case *TimeSeries:
		fr.height = chartHeight(f.Height, inGrid)
		c, spec.Points = timeSeriesChart(f, fr, v)
		spec.Title, spec.Caption = f.Title, f.Caption
	case *Scatter:
		fr.height = chartHeight(f.Height, inGrid)
		c, spec.Points = scatterChart(f, fr, v)
		spec.Title, spec.Caption = f.Title, f.Caption
		spec.Tooltip = "xy"
	case *Bar:
		fr.height = chartHeight(f.Height, inGrid)
		c, spec.Points = barChart(f, fr, v)
		spec.Title, spec.Caption = f.Title, f.Caption
	default:
		return chartSpec{}, fmt.Errorf("report: unknown figure type %T", f)
	}
	spec.Height = fr.height
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

func chartHeight(h int, inGrid bool) int {
	switch {
	case h > 0:
		return h
	case inGrid:
		return gridCellH
	}
	return defaultH
}

// globalOpts returns the settings every chart shares: a fixed ChartID, no
// animation (a screenshot would catch a half-drawn line), the palette, a
// legend and a toolbox instead of wheel zoom, which would hijack page
// scrolling. Small multiples share one purpose, so they get no toolbox.
func (fr frame) globalOpts(legend []string, tooltip opts.Tooltip) []charts.GlobalOpts {
	lg := opts.Legend{Type: "scroll", Top: "2", Left: "8", Right: "96", Data: legend}
	grid := opts.Grid{Left: "12", Right: "20", Top: "56", Bottom: "40", ContainLabel: opts.Bool(true)}
	tb := opts.Toolbox{Show: opts.Bool(false)}
	if fr.inGrid {
		lg.Right = "8"
		grid.Top = "48"
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
		ax.Min, ax.Max = lo, hi
	}
	return ax
}

// niceRange widens [lo, hi] to multiples of a power of ten between a
// hundredth and a tenth of its span, so that a time axis ends at 90 rather than at
// ECharts' next nice tick (100) or at the raw maximum (89.99955).
func niceRange(lo, hi float64) (float64, float64) {
	span := hi - lo
	if !(span > 0) || !finite(span) {
		return lo, hi
	}
	step := math.Pow(10, math.Floor(math.Log10(span))-1)
	nlo, nhi := math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	// Round off binary noise such as 0.30000000000000004.
	r := func(v float64) float64 { v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64); return v }
	return r(nlo), r(nhi)
}

// xExtent returns the range of all x values of f, bands and marks included.
func (f *TimeSeries) xExtent() (lo, hi float64) {
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

// yAxisOpts returns axis i of a chart; the visitor puts its name above
// the axis, aligned inwards, so that it never collides with tick labels
// of any width. The second axis is drawn on the right without a grid of
// its own: one grid is enough.
func yAxisOpts(a Axis, i int, v *optionVisitor) opts.YAxis {
	ax := opts.YAxis{Type: "value", Name: a.label(), NameLocation: "end", NameGap: 12}
	if a.Log {
		ax.Type = "log"
	}
	if a.Max > a.Min {
		ax.Min, ax.Max = a.Min, a.Max
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

func timeSeriesChart(f *TimeSeries, fr frame, v *optionVisitor) (echart, int) {
	names := make([]string, 0, len(f.Series))
	sizes := make([]int, len(f.Series))
	for i, s := range f.Series {
		names = append(names, s.Name)
		sizes[i] = len(s.X)
	}
	alloc := allocate(sizes, MaxChartPoints)
	xname := f.XName
	if xname == "" {
		xname = "time (min)"
	}
	xlo, xhi := f.XMin, f.XMax
	if !(xhi > xlo) {
		xlo, xhi = niceRange(f.xExtent())
	}
	axes := f.YAxes
	if len(axes) == 0 {
		axes = []Axis{{}}
	}
	c := charts.NewLine()
	c.SetGlobalOptions(fr.globalOpts(names, opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"})...)
	c.SetGlobalOptions(
		charts.WithXAxisOpts(xAxisOpts(xname, xlo, xhi)),
		charts.WithYAxisOpts(yAxisOpts(axes[0], 0, v)),
	)
	for i, a := range axes[1:] {
		c.ExtendYAxis(yAxisOpts(a, i+1, v))
	}
	total := 0
	for i, s := range f.Series {
		x, y := Downsample(s.X, s.Y, alloc[i])
		total += len(x)
		data := make([]opts.LineData, len(x))
		for k := range x {
			data[k] = opts.LineData{Value: []any{x[k], yval(y[k])}} // x exact: positions on a time axis
		}
		lc := opts.LineChart{
			YAxisIndex: s.Axis, ShowSymbol: opts.Bool(len(x) <= 60), SymbolSize: 4,
			ConnectNulls: opts.Bool(false),
		}
		so := lineOpts(s.Color, s.Dash)
		switch s.Style {
		case StyleStep:
			lc.Step = "end" // value holds until the next sample
		case StyleArea:
			so = append(so, charts.WithAreaStyleOpts(opts.AreaStyle{Opacity: opts.Float(0.22)}))
		}
		c.AddSeries(s.Name, data, append(so, charts.WithLineChartOpts(lc))...)
	}
	if len(f.Bands) > 0 || len(f.Marks) > 0 {
		v.series(len(f.Series), annotationPatch(f.Bands, f.Marks))
		c.AddSeries(annotations, []opts.LineData{}, annotationOpts(f.Bands, f.Marks)...)
	}
	return c, total
}

// annotationOpts puts bands and marks on an empty series of its own, so
// hiding a data series in the legend does not hide them. Bands are
// markArea pairs of x values (full height); marks are vertical markLines.
func annotationOpts(bands []Band, marks []Mark) []charts.SeriesOpts {
	var o []charts.SeriesOpts
	if len(bands) > 0 {
		pairs := make([][]opts.MarkAreaData, len(bands))
		for i, b := range bands {
			pairs[i] = []opts.MarkAreaData{{Name: b.Label, XAxis: b.From}, {XAxis: b.To}}
		}
		o = append(o, charts.WithMarkAreaData(pairs...), charts.WithMarkAreaStyleOpts(opts.MarkAreaStyle{
			ItemStyle: &opts.ItemStyle{Color: bandColor},
			Label:     &opts.Label{Position: "insideTop", Color: "#8a3a00", FontSize: 11},
		}))
	}
	if len(marks) > 0 {
		items := make([]opts.MarkLineNameXAxisItem, len(marks))
		for i, m := range marks {
			items[i] = opts.MarkLineNameXAxisItem{Name: m.Label, XAxis: m.At}
		}
		o = append(o, charts.WithMarkLineNameXAxisItemOpts(items...), charts.WithMarkLineStyleOpts(opts.MarkLineStyle{
			Symbol:    []string{"none", "none"},
			LineStyle: &opts.LineStyle{Color: "#333", Type: "dashed", Width: 1.2},
			Label:     &opts.Label{Formatter: "{b}", Position: "end", FontSize: 11, Color: "#333"},
		}))
	}
	return o
}

// annotationPatch makes the annotation series inert: no tooltip, no
// hover; go-echarts has no fields for either.
func annotationPatch(bands []Band, marks []Mark) map[string]any {
	p := map[string]any{"silent": true, "tooltip": map[string]any{"show": false}}
	if len(bands) > 0 {
		p["markArea"] = map[string]any{"silent": true}
	}
	if len(marks) > 0 {
		p["markLine"] = map[string]any{"silent": true}
	}
	return p
}

func scatterChart(f *Scatter, fr frame, v *optionVisitor) (echart, int) {
	names := make([]string, 0, len(f.Groups)+len(f.Lines))
	sizes := make([]int, 0, len(f.Groups)+len(f.Lines))
	for _, g := range f.Groups {
		names = append(names, g.Name)
		sizes = append(sizes, len(g.Points))
	}
	for _, l := range f.Lines {
		names = append(names, l.Name)
		sizes = append(sizes, len(l.X))
	}
	alloc := allocate(sizes, MaxChartPoints)
	x := xAxisOpts(f.XAxis.label(), f.XAxis.Min, f.XAxis.Max)
	if f.XAxis.Log {
		x.Type = "log"
	}
	if !(f.XAxis.Max > f.XAxis.Min) {
		x.Scale = opts.Bool(true)
	}
	y := yAxisOpts(f.YAxis, 0, v)
	if !(f.YAxis.Max > f.YAxis.Min) {
		y.Scale = opts.Bool(true)
	}
	c := charts.NewScatter()
	c.SetGlobalOptions(fr.globalOpts(names, opts.Tooltip{Show: opts.Bool(true), Trigger: "item"})...)
	c.SetGlobalOptions(charts.WithXAxisOpts(x), charts.WithYAxisOpts(y))
	total := 0
	for i, g := range f.Groups {
		data := scatterData(g, alloc[i])
		total += len(data)
		so := []charts.SeriesOpts{charts.WithScatterChartOpts(opts.ScatterChart{SymbolSize: 8})}
		if len(data) > 2000 {
			so = append(so, charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.Large = opts.Bool(true) }))
		}
		if g.Color != "" {
			so = append(so, charts.WithItemStyleOpts(opts.ItemStyle{Color: g.Color}))
		}
		v.series(i, map[string]any{"progressive": 0}) // draw everything in one frame
		c.AddSeries(g.Name, data, so...)
	}
	if len(f.Lines) > 0 {
		// A Scatter only adds scatter series; lines come from a Line
		// overlapped onto it, after the groups.
		lines := charts.NewLine()
		for k, l := range f.Lines {
			lx, ly := Downsample(l.X, l.Y, alloc[len(f.Groups)+k])
			total += len(lx)
			data := make([]opts.LineData, len(lx))
			for j := range lx {
				data[j] = opts.LineData{Value: []any{round6(lx[j]), yval(ly[j])}}
			}
			v.series(len(f.Groups)+k, map[string]any{"z": 3}) // above the points
			lines.AddSeries(l.Name, data, append(lineOpts(l.Color, l.Dash),
				charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), ConnectNulls: opts.Bool(false)}))...)
		}
		c.Overlap(lines)
	}
	return c, total
}

func barChart(f *Bar, fr frame, v *optionVisitor) (echart, int) {
	names := make([]string, len(f.Series))
	for i, s := range f.Series {
		names[i] = s.Name
	}
	cats := f.Categories
	if cats == nil {
		cats = []string{}
	}
	c := charts.NewBar()
	c.SetGlobalOptions(fr.globalOpts(names, opts.Tooltip{Show: opts.Bool(true), Trigger: "axis",
		AxisPointer: &opts.AxisPointer{Type: "shadow"}})...)
	c.SetGlobalOptions(
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: f.XName, NameLocation: "middle", NameGap: 26}),
		charts.WithYAxisOpts(yAxisOpts(f.YAxis, 0, v)),
	)
	c.SetXAxis(cats)
	total := 0
	for _, s := range f.Series {
		data := make([]opts.BarData, len(s.Values))
		for k, val := range s.Values {
			data[k] = opts.BarData{Value: yval(val)}
		}
		total += len(s.Values)
		var so []charts.SeriesOpts
		if s.Color != "" {
			so = append(so, charts.WithItemStyleOpts(opts.ItemStyle{Color: s.Color}))
		}
		c.AddSeries(s.Name, data, so...)
	}
	return c, total
}

// allocate splits budget among series of the given sizes in proportion
// to size, leaving series alone when everything fits.
func allocate(sizes []int, budget int) []int {
	out := make([]int, len(sizes))
	total := 0
	for _, n := range sizes {
		total += n
	}
	if total <= budget {
		copy(out, sizes)
		return out
	}
	for i, n := range sizes {
		out[i] = max(int(int64(budget)*int64(n)/int64(total)), min(n, 8))
	}
	return out
}

// scatterData returns the finite points of g as [x,y] or [x,y,"label"],
// keeping every k-th point when there are more than n.
func scatterData(g ScatterGroup, n int) []opts.ScatterData {
	step := 1
	if len(g.Points) > n && n > 0 {
		step = (len(g.Points) + n - 1) / n
	}
	labels := len(g.Labels) == len(g.Points)
	out := make([]opts.ScatterData, 0, min(len(g.Points), max(n, 1)))
	for i := 0; i < len(g.Points); i += step {
		p := g.Points[i]
		if !finite(p[0]) || !finite(p[1]) {
			continue
		}
		val := []any{round6(p[0]), round6(p[1])}
		if labels {
			val = append(val, g.Labels[i])
		}
		out = append(out, opts.ScatterData{Value: val})
	}
	return out
}

// yval returns a data value with 6 significant digits, more than a chart
// or tooltip can show, or "-", ECharts' missing value that breaks the
// line, when v is not finite: NaN must never reach the encoder.
func yval(v float64) any {
	if !finite(v) {
		return "-"
	}
	return round6(v)
}

// round6 rounds v to 6 significant digits, so that its JSON is short, and
// turns -0 into 0.
func round6(v float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	if err != nil || r == 0 {
		return 0 // err only for ±Inf, which callers exclude
	}
	return r
}

// optionVisitor completes the option go-echarts builds (see the comment
// at the top of this file). It turns every component into plain JSON
// values without nulls, merges in the keys go-echarts has no fields for,
// and writes series data compactly. The first error is kept in err, since
// visitor methods cannot return one.
type optionVisitor struct {
	charts.BaseConfigurationVisitor
	top     map[string]any         // merged into the option
	perSer  map[int]map[string]any // merged into series i
	perYAx  map[int]map[string]any // merged into y axis i
	err     error
	compact bool
}

func newOptionVisitor(inGrid bool) *optionVisitor {
	top := map[string]any{
		"useUTC":    true, // the same axis labels on every machine
		"textStyle": map[string]any{"fontSize": 12},
		"tooltip":   map[string]any{"confine": true},
	}
	if !inGrid {
		top["toolbox"] = map[string]any{"itemSize": 14}
	}
	return &optionVisitor{top: top, perSer: map[int]map[string]any{}, perYAx: map[int]map[string]any{}, compact: true}
}

func (v *optionVisitor) series(i int, patch map[string]any) { v.perSer[i] = patch }
func (v *optionVisitor) yAxis(i int, patch map[string]any)  { v.perYAx[i] = patch }

func (v *optionVisitor) fail(err error) {
	if v.err == nil {
		v.err = err
	}
}

// Visit runs after the series: it rewrites every other top-level value.
func (v *optionVisitor) Visit(o map[string]any) {
	for k, val := range o {
		if k != "series" {
			o[k] = v.plain(val)
		}
	}
	if ys, ok := o["yAxis"].([]any); ok {
		for i, p := range v.perYAx {
			if i < len(ys) {
				ys[i] = merge(ys[i], p)
			}
		}
	}
	for k, p := range v.top {
		o[k] = merge(o[k], p)
	}
}

// VisitSeriesOpt returns the series as plain maps with their patches and
// with data written as [x,y] (or bare values for bars) instead of
// {"value":[x,y]} objects, which roughly halves the size of a page.
func (v *optionVisitor) VisitSeriesOpt(ms charts.MultiSeries) any {
	out := make([]any, len(ms))
	for i, s := range ms {
		data := s.Data
		s.Data = nil
		m, _ := v.plain(s).(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		if v.compact {
			m["data"] = v.compactData(data)
		} else {
			m["data"] = data
		}
		out[i] = merge(m, v.perSer[i])
	}
	return out
}

// compactData returns the values of go-echarts data items as one JSON
// array. The items carry nothing but Value, so nothing is lost.
func (v *optionVisitor) compactData(data any) json.RawMessage {
	var vals []any
	switch d := data.(type) {
	case []opts.LineData:
		vals = make([]any, len(d))
		for i := range d {
			vals[i] = d[i].Value
		}
	case []opts.ScatterData:
		vals = make([]any, len(d))
		for i := range d {
			vals[i] = d[i].Value
		}
	case []opts.BarData:
		vals = make([]any, len(d))
		for i := range d {
			vals[i] = d[i].Value
		}
	case nil:
		vals = []any{}
	default:
		v.fail(fmt.Errorf("series data of type %T", data))
		return json.RawMessage("[]")
	}
	b, err := json.Marshal(vals)
	if err != nil {
		v.fail(err)
		return json.RawMessage("[]")
	}
	return b
}

// plain returns x as decoded JSON (maps, slices, json.Number, strings,
// bools) with null members removed: go-echarts emits null for some unset
// fields (a toolbox icon, axis label flags) that ECharts would take as
// values.
func (v *optionVisitor) plain(x any) any {
	b, err := json.Marshal(x)
	if err != nil {
		v.fail(err)
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // numbers keep their exact text
	var out any
	if err := dec.Decode(&out); err != nil {
		v.fail(err)
		return nil
	}
	return dropNulls(out)
}

func dropNulls(x any) any {
	switch x := x.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
			} else {
				x[k] = dropNulls(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = dropNulls(e)
		}
	}
	return x
}

// merge returns dst with src merged in: maps key by key, recursively;
// anything else is replaced by src.
func merge(dst, src any) any {
	d, ok1 := dst.(map[string]any)
	s, ok2 := src.(map[string]any)
	if !ok1 || !ok2 {
		if src == nil {
			return dst
		}
		return src
	}
	for k, e := range s {
		d[k] = merge(d[k], e)
	}
	return d
}
