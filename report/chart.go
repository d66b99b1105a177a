package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// The option JSON of every chart is built here rather than with
// go-echarts: its ChartID becomes part of JS variable names, it drops the
// encoder error on NaN (the chart silently vanishes), its markArea YAxis
// tag is wrong and it has no "sampling"/"useUTC" fields. Building the
// option directly gives sorted keys (encoding/json sorts map keys), compact
// [x,y] data, "-" for gaps, and no executable code in the data at all: the
// page parses each option with JSON.parse.

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

// buildChart returns the chart of f; inGrid selects the small-multiple size.
func buildChart(f Figure, inGrid bool) (chartSpec, error) {
	var (
		opt    map[string]any
		n      int
		h      int
		spec   chartSpec
		figure = f.FigureID()
	)
	switch f := f.(type) {
	case *TimeSeries:
		opt, n = timeSeriesOption(f)
		h = f.Height
		spec.Title, spec.Caption = f.Title, f.Caption
	case *Scatter:
		opt, n = scatterOption(f)
		h = f.Height
		spec.Title, spec.Caption = f.Title, f.Caption
		spec.Tooltip = "xy"
	case *Bar:
		opt, n = barOption(f)
		h = f.Height
		spec.Title, spec.Caption = f.Title, f.Caption
	default:
		return chartSpec{}, fmt.Errorf("report: unknown figure type %T", f)
	}
	if h <= 0 {
		h = defaultH
		if inGrid {
			h = gridCellH
		}
	}
	spec.ID = ChartID(figure)
	spec.Height = h
	spec.Points = n
	if inGrid {
		// Small multiples share one purpose; a toolbox in each is clutter.
		delete(opt, "toolbox")
		opt["legend"].(map[string]any)["right"] = 8
		opt["grid"].(map[string]any)["top"] = 48
	} else {
		opt["toolbox"].(map[string]any)["feature"].(map[string]any)["saveAsImage"] = map[string]any{"name": figure, "title": "save PNG"}
	}
	b, err := json.Marshal(opt)
	if err != nil {
		return chartSpec{}, fmt.Errorf("report: figure %q: %w", figure, err)
	}
	spec.Option = string(b)
	return spec, nil
}

// baseOption holds the settings every chart shares: no animation (a
// screenshot would catch a half-drawn line), UTC, palette, legend and a
// toolbox instead of wheel zoom, which would hijack page scrolling.
func baseOption(legend []string) map[string]any {
	return map[string]any{
		"animation": false,
		"useUTC":    true,
		"color":     palette,
		"textStyle": map[string]any{"fontSize": 12},
		"legend": map[string]any{
			"type": "scroll", "top": 2, "left": 8, "right": 96,
			"data": legend,
		},
		"toolbox": map[string]any{
			"right": 8, "top": 0, "itemSize": 14,
			"feature": map[string]any{
				"dataZoom": map[string]any{"yAxisIndex": "none", "title": map[string]any{"zoom": "zoom", "back": "undo zoom"}},
				"restore":  map[string]any{"title": "reset"},
			},
		},
		"grid": map[string]any{"left": 12, "right": 20, "top": 56, "bottom": 40, "containLabel": true},
	}
}

// xAxisOption fixes the range to [lo, hi] when hi > lo; otherwise
// ECharts picks a range that starts at zero.
func xAxisOption(name string, lo, hi float64) map[string]any {
	ax := map[string]any{
		"type": "value", "name": name, "nameLocation": "middle", "nameGap": 26,
		"splitLine": map[string]any{"show": false},
	}
	if hi > lo {
		ax["min"], ax["max"] = lo, hi
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

// yAxisOption puts the name above the axis, aligned inwards, so that it
// never collides with tick labels of any width.
func yAxisOption(a Axis, right bool) map[string]any {
	ax := map[string]any{
		"type": "value", "name": a.label(), "nameLocation": "end", "nameGap": 12,
		"nameTextStyle": map[string]any{"align": "left"},
	}
	if a.Log {
		ax["type"] = "log"
	}
	if a.Max > a.Min {
		ax["min"], ax["max"] = a.Min, a.Max
	} else if a.Log {
		ax["min"], ax["max"] = "dataMin", "dataMax"
	}
	if right {
		ax["position"] = "right"
		ax["nameTextStyle"] = map[string]any{"align": "right"}
		ax["splitLine"] = map[string]any{"show": false} // one grid is enough
	}
	return ax
}

func timeSeriesOption(f *TimeSeries) (map[string]any, int) {
	names := make([]string, 0, len(f.Series))
	sizes := make([]int, len(f.Series))
	for i, s := range f.Series {
		names = append(names, s.Name)
		sizes[i] = len(s.X)
	}
	alloc := allocate(sizes, MaxChartPoints)
	opt := baseOption(names)
	opt["tooltip"] = map[string]any{"trigger": "axis", "confine": true}
	xname := f.XName
	if xname == "" {
		xname = "time (min)"
	}
	xlo, xhi := f.XMin, f.XMax
	if !(xhi > xlo) {
		xlo, xhi = niceRange(f.xExtent())
	}
	opt["xAxis"] = xAxisOption(xname, xlo, xhi)
	axes := f.YAxes
	if len(axes) == 0 {
		axes = []Axis{{}}
	}
	yax := make([]any, len(axes))
	for i, a := range axes {
		yax[i] = yAxisOption(a, i == 1)
	}
	opt["yAxis"] = yax
	series := make([]any, 0, len(f.Series)+1)
	total := 0
	for i, s := range f.Series {
		x, y := Downsample(s.X, s.Y, alloc[i])
		total += len(x)
		m := map[string]any{
			"type": "line", "name": s.Name, "yAxisIndex": s.Axis,
			"showSymbol": len(x) <= 60, "symbolSize": 4,
			"connectNulls": false,
			"data":         pointsJSON(x, y, true),
		}
		ls := map[string]any{"width": 1.6}
		if s.Dash {
			ls["type"] = "dashed"
		}
		if s.Color != "" {
			ls["color"] = s.Color
			m["itemStyle"] = map[string]any{"color": s.Color}
		}
		m["lineStyle"] = ls
		switch s.Style {
		case StyleStep:
			m["step"] = "end" // value holds until the next sample
		case StyleArea:
			m["areaStyle"] = map[string]any{"opacity": 0.22}
		}
		series = append(series, m)
	}
	if len(f.Bands) > 0 || len(f.Marks) > 0 {
		series = append(series, annotationSeries(f.Bands, f.Marks))
	}
	opt["series"] = series
	return opt, total
}

// annotationSeries carries bands and marks on an empty series of its own,
// so hiding a data series in the legend does not hide them.
func annotationSeries(bands []Band, marks []Mark) map[string]any {
	s := map[string]any{
		"type": "line", "name": annotations, "data": []any{}, "silent": true,
		"tooltip": map[string]any{"show": false},
	}
	if len(bands) > 0 {
		data := make([]any, len(bands))
		for i, b := range bands {
			data[i] = []any{map[string]any{"name": b.Label, "xAxis": b.From}, map[string]any{"xAxis": b.To}}
		}
		s["markArea"] = map[string]any{
			"silent": true, "itemStyle": map[string]any{"color": bandColor},
			"label": map[string]any{"position": "insideTop", "color": "#8a3a00", "fontSize": 11},
			"data":  data,
		}
	}
	if len(marks) > 0 {
		data := make([]any, len(marks))
		for i, m := range marks {
			data[i] = map[string]any{"name": m.Label, "xAxis": m.At}
		}
		s["markLine"] = map[string]any{
			"silent": true, "symbol": []string{"none", "none"},
			"lineStyle": map[string]any{"color": "#333", "type": "dashed", "width": 1.2},
			"label":     map[string]any{"formatter": "{b}", "position": "end", "fontSize": 11, "color": "#333"},
			"data":      data,
		}
	}
	return s
}

func scatterOption(f *Scatter) (map[string]any, int) {
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
	opt := baseOption(names)
	opt["tooltip"] = map[string]any{"trigger": "item", "confine": true}
	x := xAxisOption(f.XAxis.label(), f.XAxis.Min, f.XAxis.Max)
	if f.XAxis.Log {
		x["type"] = "log"
	}
	if !(f.XAxis.Max > f.XAxis.Min) {
		delete(x, "min")
		delete(x, "max")
		x["scale"] = true
	}
	opt["xAxis"] = x
	y := yAxisOption(f.YAxis, false)
	if !(f.YAxis.Max > f.YAxis.Min) {
		y["scale"] = true
	}
	opt["yAxis"] = y
	series := make([]any, 0, len(names))
	total := 0
	for i, g := range f.Groups {
		data, n := scatterJSON(g, alloc[i])
		total += n
		m := map[string]any{
			"type": "scatter", "name": g.Name, "symbolSize": 8, "data": data,
			"progressive": 0, // draw everything in one frame
		}
		if n > 2000 {
			m["large"] = true
		}
		if g.Color != "" {
			m["itemStyle"] = map[string]any{"color": g.Color}
		}
		series = append(series, m)
	}
	for k, l := range f.Lines {
		lx, ly := Downsample(l.X, l.Y, alloc[len(f.Groups)+k])
		total += len(lx)
		ls := map[string]any{"width": 1.6}
		if l.Dash {
			ls["type"] = "dashed"
		}
		m := map[string]any{
			"type": "line", "name": l.Name, "showSymbol": false, "connectNulls": false,
			"data": pointsJSON(lx, ly, false), "z": 3,
		}
		if l.Color != "" {
			ls["color"] = l.Color
			m["itemStyle"] = map[string]any{"color": l.Color}
		}
		m["lineStyle"] = ls
		series = append(series, m)
	}
	opt["series"] = series
	return opt, total
}

func barOption(f *Bar) (map[string]any, int) {
	names := make([]string, len(f.Series))
	for i, s := range f.Series {
		names[i] = s.Name
	}
	opt := baseOption(names)
	opt["tooltip"] = map[string]any{"trigger": "axis", "confine": true, "axisPointer": map[string]any{"type": "shadow"}}
	cats := f.Categories
	if cats == nil {
		cats = []string{}
	}
	opt["xAxis"] = map[string]any{
		"type": "category", "data": cats, "name": f.XName,
		"nameLocation": "middle", "nameGap": 26,
	}
	opt["yAxis"] = yAxisOption(f.YAxis, false)
	series := make([]any, len(f.Series))
	total := 0
	for i, s := range f.Series {
		var b bytes.Buffer
		b.WriteByte('[')
		for k, v := range s.Values {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(fmtY(v))
		}
		b.WriteByte(']')
		total += len(s.Values)
		m := map[string]any{"type": "bar", "name": s.Name, "data": json.RawMessage(b.Bytes())}
		if s.Color != "" {
			m["itemStyle"] = map[string]any{"color": s.Color}
		}
		series[i] = m
	}
	opt["series"] = series
	return opt, total
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

// pointsJSON writes [[x,y],...]; a non-finite y becomes "-", ECharts'
// missing value, which breaks the line. exactX keeps every digit of x
// (positions on a time axis); y keeps 6 significant digits, more than a
// chart or tooltip can show.
func pointsJSON(x, y []float64, exactX bool) json.RawMessage {
	var b bytes.Buffer
	b.Grow(len(x) * 20)
	b.WriteByte('[')
	for i := range x {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		if exactX {
			b.WriteString(strconv.FormatFloat(x[i], 'g', -1, 64))
		} else {
			b.WriteString(fmtY(x[i]))
		}
		b.WriteByte(',')
		b.WriteString(fmtY(y[i]))
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.Bytes()
}

// scatterJSON writes the finite points of g as [x,y] or [x,y,"label"],
// keeping every k-th point when there are more than n.
func scatterJSON(g ScatterGroup, n int) (json.RawMessage, int) {
	step := 1
	if len(g.Points) > n && n > 0 {
		step = (len(g.Points) + n - 1) / n
	}
	var b bytes.Buffer
	b.WriteByte('[')
	cnt := 0
	for i := 0; i < len(g.Points); i += step {
		p := g.Points[i]
		if !finite(p[0]) || !finite(p[1]) {
			continue
		}
		if cnt > 0 {
			b.WriteByte(',')
		}
		cnt++
		b.WriteByte('[')
		b.WriteString(fmtY(p[0]))
		b.WriteByte(',')
		b.WriteString(fmtY(p[1]))
		if len(g.Labels) == len(g.Points) {
			l, _ := json.Marshal(g.Labels[i]) // a string always marshals
			b.WriteByte(',')
			b.Write(l)
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.Bytes(), cnt
}

// fmtY formats a data value with 6 significant digits, or "-" when it is
// not finite, so that NaN never reaches the JSON.
func fmtY(v float64) string {
	if !finite(v) {
		return `"-"`
	}
	s := strconv.FormatFloat(v, 'g', 6, 64)
	if s == "-0" {
		return "0"
	}
	return s
}
