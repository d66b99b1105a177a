package page

import (
	"math"

	"github.com/outlast-dev/outlast/report/document"
)

// shareScales gives the panels of one row (the same figure of each
// column's report) the same value scales, so that side by side they read
// against one another rather than each filling its own height: every y
// axis (a scatter's x axis too) spans the data of all panels, from 0 when
// none is negative, up to a round number. An axis fixed alike in every
// panel (a hit ratio's [0, 1]) and a log axis are left as they are, and so
// is a row whose panels are not of one kind and shape.
func shareScales(panels []document.Figure) {
	if len(panels) < 2 {
		return
	}
	switch first := panels[0].(type) {
	case *document.TimeSeries:
		ts := make([]*document.TimeSeries, 0, len(panels))
		for _, p := range panels {
			t, ok := p.(*document.TimeSeries)
			if !ok || len(t.YAxes) != len(first.YAxes) {
				return
			}
			ts = append(ts, t)
		}
		for _, t := range ts {
			t.YAxes = append([]document.Axis(nil), t.YAxes...)
		}
		for i := range first.YAxes {
			axes := make([]*document.Axis, len(ts))
			var r valueRange
			for k, t := range ts {
				axes[k] = &t.YAxes[i]
				for _, s := range t.Series {
					if s.Axis == i || (s.Axis >= len(t.YAxes) && i == 0) {
						r.add(s.Y...)
					}
				}
			}
			share(axes, r)
		}
	case *document.Scatter:
		ss := make([]*document.Scatter, 0, len(panels))
		for _, p := range panels {
			s, ok := p.(*document.Scatter)
			if !ok {
				return
			}
			ss = append(ss, s)
		}
		var rx, ry valueRange
		xs, ys := make([]*document.Axis, len(ss)), make([]*document.Axis, len(ss))
		for k, s := range ss {
			xs[k], ys[k] = &s.XAxis, &s.YAxis
			for _, g := range s.Groups {
				for _, p := range g.Points {
					rx.add(p[0])
					ry.add(p[1])
				}
			}
			for _, l := range s.Lines {
				rx.add(l.X...)
				ry.add(l.Y...)
			}
			for _, b := range s.Bands {
				rx.add(b.From, b.To)
			}
		}
		share(xs, rx)
		share(ys, ry)
	case *document.Bar:
		axes := make([]*document.Axis, 0, len(panels))
		var r valueRange
		for _, p := range panels {
			b, ok := p.(*document.Bar)
			if !ok {
				return
			}
			axes = append(axes, &b.YAxis)
			for _, s := range b.Series {
				r.add(s.Values...)
			}
		}
		share(axes, r)
	}
}

// valueRange is the range of the finite values added to it.
type valueRange struct {
	lo, hi float64
	n      int
}

func (r *valueRange) add(vs ...float64) {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if r.n == 0 || v < r.lo {
			r.lo = v
		}
		if r.n == 0 || v > r.hi {
			r.hi = v
		}
		r.n++
	}
}

// share sets every axis to one range covering r, unless they are all
// fixed alike already, one is a log axis, or there is no data.
func share(axes []*document.Axis, r valueRange) {
	same := true
	for _, a := range axes {
		if a.Log {
			return
		}
		same = same && a.Max > a.Min && a.Min == axes[0].Min && a.Max == axes[0].Max
	}
	if same {
		return
	}
	for _, a := range axes {
		if a.Max > a.Min {
			r.add(a.Min, a.Max)
		}
	}
	if r.n == 0 {
		return
	}
	lo, hi := 0.0, niceCeil(r.hi)
	if r.lo < 0 {
		lo = -niceCeil(-r.lo)
	}
	if r.hi < 0 {
		hi = 0
	}
	if !(hi > lo) {
		hi = lo + 1
	}
	for _, a := range axes {
		a.Min, a.Max = lo, hi
	}
}

// niceCeil is the smallest of 1, 2, 2.5, 5 times a power of ten at or
// above v (> 0); 0 for v ≤ 0.
func niceCeil(v float64) float64 {
	if !(v > 0) {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
}
