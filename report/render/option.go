package render

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// optionVisitor completes the option go-echarts builds (see the package
// doc). It turns every component into plain JSON values without nulls,
// merges in the keys go-echarts has no fields for, and writes series data
// compactly. The first error is kept in err, since
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
