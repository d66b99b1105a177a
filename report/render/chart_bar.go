package render

import (
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/outlast-dev/outlast/report/document"
)

func barChart(f *document.Bar, fr *frame, v *optionVisitor) (echart, int) {
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
