package render

import (
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/outlast-dev/outlast/report/document"
)

func scatterChart(f *document.Scatter, fr *frame, v *optionVisitor) (echart, int) {
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
	x := xAxisOpts(f.XAxis.Label(), f.XAxis.Min, f.XAxis.Max)
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
	if len(f.Lines) > 0 || len(f.Bands) > 0 {
		// A Scatter only adds scatter series; lines come from a Line
		// overlapped onto it, after the groups, and bands on an empty
		// series of their own after the lines.
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
		if len(f.Bands) > 0 {
			v.series(len(f.Groups)+len(f.Lines), annotationPatch(f.Bands, nil))
			lines.AddSeries(annotations, []opts.LineData{}, annotationOpts(f.Bands, nil)...)
		}
		c.Overlap(lines)
	}
	return c, total
}

// scatterData returns the finite points of g as [x,y] or [x,y,"label"],
// keeping every k-th point when there are more than n.
func scatterData(g document.ScatterGroup, n int) []opts.ScatterData {
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
