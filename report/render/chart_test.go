package render

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/outlast-dev/outlast/report/document"
)

// parseOption builds the chart of f and decodes its option.
func parseOption(t *testing.T, f document.Figure, inGrid, compact bool) map[string]any {
	t.Helper()
	c, err := buildChartData(f, inGrid, compact)
	if err != nil {
		t.Fatal(err)
	}
	var opt map[string]any
	if err := json.Unmarshal([]byte(c.Option), &opt); err != nil {
		t.Fatalf("%s: option is not JSON: %v", f.FigureID(), err)
	}
	return opt
}

// at walks an option along map keys and slice indexes.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch p := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %T is not an object", path, v)
			}
			v = m[p]
		case int:
			s, ok := v.([]any)
			if !ok || p >= len(s) {
				t.Fatalf("at %v: no element %d in %T", path, p, v)
			}
			v = s[p]
		}
	}
	return v
}

// TestCompactDataLosesNothing: the visitor's [x,y] data must be exactly
// the values of go-echarts' {"value":[x,y]} items, and everything else in
// the option must be what go-echarts produced, for every sample figure.
func TestCompactDataLosesNothing(t *testing.T) {
	items := 0
	for _, f := range document.Figures(sampleDoc()) {
		compact := parseOption(t, f, false, true)
		full := parseOption(t, f, false, false)
		for _, s := range full["series"].([]any) {
			data := s.(map[string]any)["data"].([]any)
			for i, d := range data {
				item, ok := d.(map[string]any)
				if !ok || len(item) != 1 || item["value"] == nil {
					t.Fatalf("%s: go-echarts item %v is not {\"value\":...}", f.FigureID(), d)
				}
				data[i] = item["value"]
				items++
			}
		}
		if !reflect.DeepEqual(compact, full) {
			t.Errorf("%s: compact option differs from go-echarts' own", f.FigureID())
		}
	}
	if items < MaxChartPoints {
		t.Errorf("compared only %d data items", items)
	}
}

// TestTimeSeriesOption checks what go-echarts lacks and the visitor adds:
// UTC, confined tooltips, y-axis name alignment, inert annotations with
// lower-case xAxis band ends, "-" gaps, and no null anywhere.
func TestTimeSeriesOption(t *testing.T) {
	f := &document.TimeSeries{
		ID:    "ts/1",
		YAxes: []document.Axis{{Name: "hit ratio"}, {Name: "throughput", Unit: "tok/s"}},
		Series: []document.Series{
			{Name: "hit", X: []float64{0, 1, 2, 3}, Y: []float64{0.9, math.NaN(), math.Inf(1), math.Copysign(0, -1)}, Style: document.StyleStep},
			{Name: "thr", X: []float64{0, 1, 2, 3}, Y: []float64{1, 2, 3, 1.0 / 3}, Axis: 1, Style: document.StyleArea, Dash: true, Color: "#123456"},
		},
		Bands: []document.Band{{From: 0, To: 1.5, Label: "burst"}},
		Marks: []document.Mark{{At: 2, Label: "control"}},
	}
	opt := parseOption(t, f, false, true)
	for path, want := range map[string]any{
		"useUTC": true, "animation": false, "tooltip.confine": true, "tooltip.trigger": "axis",
		"textStyle.fontSize": 12.0, "toolbox.itemSize": 14.0, "toolbox.feature.saveAsImage.name": "ts/1",
		"xAxis.0.name": "time (min)", "xAxis.0.min": 0.0, "xAxis.0.max": 3.0,
		"yAxis.0.nameTextStyle.align": "left", "yAxis.1.position": "right",
		"yAxis.1.name": "throughput (tok/s)", "yAxis.1.nameTextStyle.align": "right",
		"series.0.step": "end", "series.1.yAxisIndex": 1.0, "series.1.areaStyle.opacity": 0.22,
		"series.1.lineStyle.type": "dashed", "series.1.itemStyle.color": "#123456",
		"series.2.silent": true, "series.2.tooltip.show": false,
		"series.2.markArea.silent": true, "series.2.markLine.silent": true,
	} {
		var p []any
		for _, k := range strings.Split(path, ".") {
			if k >= "0" && k <= "9" {
				p = append(p, int(k[0]-'0'))
			} else {
				p = append(p, k)
			}
		}
		if got := at(t, opt, p...); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	if got, want := at(t, opt, "series", 0, "data"), []any{[]any{0.0, 0.9}, []any{1.0, "-"}, []any{2.0, "-"}, []any{3.0, 0.0}}; !reflect.DeepEqual(got, want) {
		t.Errorf("gappy data = %v, want %v", got, want)
	}
	// Negative zero is printed as 0: reflect.DeepEqual cannot tell -0 from 0.
	if d := at(t, opt, "series", 0, "data", 3, 1); d != 0.0 || math.Signbit(d.(float64)) {
		t.Errorf("negative zero printed as %v, want 0", d)
	}
	if got := at(t, opt, "series", 1, "data", 3, 1); got != 0.333333 {
		t.Errorf("1/3 drawn as %v, want 6 significant digits", got)
	}
	band := []any{map[string]any{"name": "burst", "xAxis": 0.0}, map[string]any{"xAxis": 1.5}}
	if got := at(t, opt, "series", 2, "markArea", "data", 0); !reflect.DeepEqual(got, band) {
		t.Errorf("band = %v, want %v", got, band)
	}
	if got, want := at(t, opt, "series", 2, "markLine", "data", 0), map[string]any{"name": "control", "xAxis": 2.0}; !reflect.DeepEqual(got, want) {
		t.Errorf("mark = %v, want %v", got, want)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case nil:
			t.Errorf("null at %s", path)
		case map[string]any:
			for k, e := range v {
				walk(path+"."+k, e)
			}
		case []any:
			for _, e := range v {
				walk(path+"[]", e)
			}
		}
	}
	walk("option", opt)

	// Small multiples: no toolbox, legend to the right edge.
	g := parseOption(t, f, true, true)
	if at(t, g, "toolbox", "show") != false || at(t, g, "toolbox", "feature") != nil || at(t, g, "legend", "right") != "8" {
		t.Errorf("grid chart toolbox %v, legend %v", g["toolbox"], g["legend"])
	}
}

func TestScatterAndBarOption(t *testing.T) {
	pts := make([][2]float64, 2500)
	for i := range pts {
		pts[i] = [2]float64{float64(i), math.Sqrt(float64(i))}
	}
	pts[7][1] = math.NaN()
	sc := &document.Scatter{ID: "sc", Groups: []document.ScatterGroup{{Name: "runs", Points: pts}},
		Lines: []document.Line{{Name: "fit", X: []float64{0, 2499}, Y: []float64{0, 50}, Dash: true}}}
	opt := parseOption(t, sc, false, true)
	if n := len(at(t, opt, "series", 0, "data").([]any)); n != 2499 {
		t.Errorf("scatter has %d points, want 2499 (the NaN dropped)", n)
	}
	for _, c := range []struct {
		path []any
		want any
	}{
		{[]any{"series", 0, "type"}, "scatter"},
		{[]any{"series", 0, "large"}, true},
		{[]any{"series", 0, "progressive"}, 0.0},
		{[]any{"series", 1, "type"}, "line"},
		{[]any{"series", 1, "z"}, 3.0},
		{[]any{"series", 1, "showSymbol"}, false},
		{[]any{"xAxis", 0, "scale"}, true},
		{[]any{"tooltip", "trigger"}, "item"},
	} {
		if got := at(t, opt, c.path...); got != c.want {
			t.Errorf("%v = %v, want %v", c.path, got, c.want)
		}
	}

	// A band (a bound known within a range) is a markArea of an inert
	// series after the lines, full height between its x values.
	sc.Bands = []document.Band{{From: 0.1, To: 0.2, Label: "drain bound"}}
	opt = parseOption(t, sc, false, true)
	band := []any{map[string]any{"name": "drain bound", "xAxis": 0.1}, map[string]any{"xAxis": 0.2}}
	if got := at(t, opt, "series", 2, "markArea", "data", 0); !reflect.DeepEqual(got, band) || at(t, opt, "series", 2, "silent") != true {
		t.Errorf("band = %v, want %v", at(t, opt, "series", 2), band)
	}

	bar := &document.Bar{ID: "bar", Categories: []string{"a", "b"}, Series: []document.BarSeries{{Name: "s", Values: []float64{1.5, math.NaN()}}}}
	opt = parseOption(t, bar, false, true)
	if got, want := at(t, opt, "series", 0, "data"), []any{1.5, "-"}; !reflect.DeepEqual(got, want) {
		t.Errorf("bar data = %v, want %v", got, want)
	}
	if got, want := at(t, opt, "xAxis", 0, "data"), []any{"a", "b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("bar categories = %v, want %v", got, want)
	}
	if at(t, opt, "tooltip", "axisPointer", "type") != "shadow" {
		t.Errorf("bar tooltip = %v", opt["tooltip"])
	}
}

// TestOptionVisitorReportsErrors: a NaN that slipped past yval must fail
// the figure instead of emptying the chart as go-echarts' renderer does.
func TestOptionVisitorReportsErrors(t *testing.T) {
	v := newOptionVisitor(false)
	v.compactData([]opts.LineData{{Value: []any{1.0, math.NaN()}}})
	if v.err == nil || !strings.Contains(v.err.Error(), "NaN") {
		t.Errorf("err = %v, want an unsupported NaN value", v.err)
	}
	v = newOptionVisitor(false)
	v.compactData([]opts.KlineData{{Value: 1}})
	if v.err == nil {
		t.Error("unknown data type accepted")
	}
}

// TestChartIDExplicit: go-echarts draws an unset ChartID from math/rand.
func TestChartIDExplicit(t *testing.T) {
	fr := &frame{id: document.ChartID("a-b"), figure: "a-b", height: 100, cols: 1}
	c, _ := timeSeriesChart(&document.TimeSeries{ID: "a-b"}, fr, newOptionVisitor(false))
	if id := c.(*charts.Line).ChartID; id != "c_a_b" {
		t.Errorf("ChartID = %q, want c_a_b", id)
	}
}

func TestYval(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want any
	}{
		{math.NaN(), "-"}, {math.Inf(-1), "-"}, {math.Copysign(0, -1), 0.0}, {2.0 / 3, 0.666667}, {123456789, 123457000.0},
	} {
		got := yval(c.in)
		if got != c.want {
			t.Errorf("yval(%v) = %v, want %v", c.in, got, c.want)
		}
		if f, ok := got.(float64); ok && math.Signbit(f) {
			t.Errorf("yval(%v) is negative zero", c.in)
		}
	}
}

// TestLegendShowsEverySeries: a legend pages ("1/2") when its items do not
// fit one line, which hides series; it wraps instead, and the plot moves
// down and the chart grows by the lines it takes. In a grid of three
// columns (a cell of (1056 − 2·20)/3 = 338.7 px, 322.7 for the legend)
// seven arms of 12-character names take 40 + 84 = 124 px each: two per
// line, four lines, 3·22 = 66 px more than one.
func TestLegendShowsEverySeries(t *testing.T) {
	f := &document.TimeSeries{ID: "arms"}
	for i := range 7 {
		f.Series = append(f.Series, document.Series{Name: fmt.Sprintf("arm-%08d", i), X: []float64{0, 1}, Y: []float64{1, 2}})
	}
	c, err := buildChartIn(f, true, 3, true)
	if err != nil {
		t.Fatal(err)
	}
	var opt map[string]any
	if err := json.Unmarshal([]byte(c.Option), &opt); err != nil {
		t.Fatal(err)
	}
	if typ := at(t, opt, "legend", "type"); typ != "plain" {
		t.Errorf("legend type %v, want plain (no paging)", typ)
	}
	if len(at(t, opt, "legend", "data").([]any)) != 7 {
		t.Errorf("legend data %v", at(t, opt, "legend", "data"))
	}
	if top := at(t, opt, "grid", 0, "top"); top != "114" || c.Height != gridCellH+66 {
		t.Errorf("grid top %v, height %d; want 114 and %d", top, c.Height, gridCellH+66)
	}
	// One short series: one line, nothing moves.
	one, _ := buildChartIn(&document.TimeSeries{ID: "one", Series: f.Series[:1]}, false, 1, true)
	if one.Height != defaultH || !strings.Contains(one.Option, `"top":"56"`) {
		t.Errorf("one series: height %d, option %s", one.Height, one.Option)
	}
}

// TestEmptyChartSaysSo: a chart with nothing to draw (every value
// missing) was an empty plot; it says "no data to draw" on the plot and in
// its caption. A chart with one point does not.
func TestEmptyChartSaysSo(t *testing.T) {
	nan := math.NaN()
	empty := &document.TimeSeries{ID: "empty", Caption: "Preemptions.", Series: []document.Series{{Name: "a", X: []float64{0, 1}, Y: []float64{nan, nan}}},
		Bands: []document.Band{{From: 0, To: 1}}}
	c, err := buildChartIn(empty, false, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	var opt map[string]any
	if err := json.Unmarshal([]byte(c.Option), &opt); err != nil {
		t.Fatal(err)
	}
	if got := at(t, opt, "graphic", 0, "style", "text"); got != "no data to draw" || !strings.HasSuffix(c.Caption, "(No data to draw: none of the runs has a value of this measure.)") {
		t.Errorf("graphic %v, caption %q", got, c.Caption)
	}
	empty.Series[0].Y[1] = 3
	if c, _ := buildChartIn(empty, false, 1, true); strings.Contains(c.Option, "graphic") || c.Caption != "Preemptions." {
		t.Errorf("a chart with a point: %q, %s", c.Caption, c.Option)
	}
	sc := &document.Scatter{ID: "sc", Lines: []document.Line{{Name: "bound", X: []float64{1, 1}, Y: []float64{0, 1}}}}
	if c, _ := buildChartIn(sc, false, 1, true); !strings.Contains(c.Option, "no data to draw") {
		t.Error("a scatter with only a bound has no data")
	}
}

// TestDistributionLinesAreData: a scatter drawn only with lines that are
// data (an arm's TTFT distribution) said "no data to draw" over its curves
// and in its caption, as if its lines were bounds; lines marked Data are
// something to draw, and only all-missing ones leave the chart empty.
func TestDistributionLinesAreData(t *testing.T) {
	nan := math.NaN()
	cdf := &document.Scatter{ID: "cdf", Caption: "TTFT distribution.", Lines: []document.Line{{Name: "burst", X: []float64{0.1, 1, 10}, Y: []float64{0, 0.5, 1}, Data: true}}}
	c, err := buildChartIn(cdf, false, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(c.Option, "no data to draw") || c.Caption != "TTFT distribution." {
		t.Errorf("a distribution with points says it has none: caption %q", c.Caption)
	}
	cdf.Lines[0].Y = []float64{nan, nan, nan}
	if c, _ := buildChartIn(cdf, false, 1, true); !strings.Contains(c.Option, "no data to draw") {
		t.Error("a distribution without a finite point has no data")
	}
}
