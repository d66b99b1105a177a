package render

import (
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/outlast-dev/outlast/report/document"
)

func timeSeriesChart(f *document.TimeSeries, fr *frame, v *optionVisitor) (echart, int) {
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
		xlo, xhi = niceRange(f.XExtent())
	}
	axes := f.YAxes
	if len(axes) == 0 {
		axes = []document.Axis{{}}
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
			data[k] = opts.LineData{Value: []any{xval(x[k]), yval(y[k])}}
		}
		lc := opts.LineChart{
			YAxisIndex: s.Axis, ShowSymbol: opts.Bool(len(x) <= 60), SymbolSize: 4,
			ConnectNulls: opts.Bool(false),
		}
		so := lineOpts(s.Color, s.Dash)
		switch s.Style {
		case document.StyleStep:
			lc.Step = "end" // value holds until the next sample
		case document.StyleArea:
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
func annotationOpts(bands []document.Band, marks []document.Mark) []charts.SeriesOpts {
	var o []charts.SeriesOpts
	if len(bands) > 0 {
		pairs := make([][]opts.MarkAreaData, len(bands))
		for i, b := range bands {
			pairs[i] = []opts.MarkAreaData{{Name: b.Label, XAxis: xval(b.From)}, {XAxis: xval(b.To)}}
		}
		o = append(o, charts.WithMarkAreaData(pairs...), charts.WithMarkAreaStyleOpts(opts.MarkAreaStyle{
			ItemStyle: &opts.ItemStyle{Color: bandColor},
			Label:     &opts.Label{Position: "insideTop", Color: "#8a3a00", FontSize: 11},
		}))
	}
	if len(marks) > 0 {
		items := make([]opts.MarkLineNameXAxisItem, len(marks))
		for i, m := range marks {
			items[i] = opts.MarkLineNameXAxisItem{Name: m.Label, XAxis: xval(m.At)}
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
func annotationPatch(bands []document.Band, marks []document.Mark) map[string]any {
	p := map[string]any{"silent": true, "tooltip": map[string]any{"show": false}}
	if len(bands) > 0 {
		p["markArea"] = map[string]any{"silent": true}
	}
	if len(marks) > 0 {
		p["markLine"] = map[string]any{"silent": true}
	}
	return p
}
