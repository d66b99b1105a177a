package report

import (
	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// Colours shared by every figure of a pair, as in the paper: the twin
// blue, the burst run red.
const (
	twinColor  = "#0072B2"
	burstColor = "#D55E00"
	boundColor = "#555555"
)

// minutes converts seconds to minutes.
func minutes(s float64) float64 { return s / 60 }

// mid returns the midpoints of windows in minutes: the x of a per-window
// value.
func mid(ws []stats.Window) []float64 {
	x := make([]float64, len(ws))
	for i, w := range ws {
		x[i] = minutes((w.Start + w.End) / 2)
	}
	return x
}

// pointWindows returns the windows of points.
func pointWindows(ps []stats.SeriesPoint) []stats.Window {
	ws := make([]stats.Window, len(ps))
	for i, p := range ps {
		ws[i] = p.TurnWindow.Window
	}
	return ws
}

// column extracts one measure of every point.
func column(ps []stats.SeriesPoint, f func(stats.SeriesPoint) float64) []float64 {
	y := make([]float64, len(ps))
	for i, p := range ps {
		y[i] = f(p)
	}
	return y
}

// triggerBand is the run's trigger as a shaded band in minutes; ok is
// false without both times.
func triggerBand(r *schema.Run) (document.Band, bool) {
	if r.TriggerStartS == nil || r.TriggerEndS == nil || *r.TriggerEndS < *r.TriggerStartS {
		return document.Band{}, false
	}
	label := r.TriggerKind
	if label == "" || label == schema.TriggerNone {
		label = "trigger"
	}
	return document.Band{From: minutes(*r.TriggerStartS), To: minutes(*r.TriggerEndS), Label: label}, true
}

// hasControl reports whether a run has a controller.
func hasControl(r *schema.Run) bool {
	return r.ControlKind != "" && r.ControlKind != schema.ControlNone && r.ControlStartS != nil
}

// controlMark is the start of the run's control as a mark; ok is false
// without control.
func controlMark(r *schema.Run) (document.Mark, bool) {
	if !hasControl(r) && !(r.Design == schema.DesignRecovery && r.ControlStartS != nil) {
		return document.Mark{}, false
	}
	return document.Mark{At: minutes(*r.ControlStartS), Label: "control starts"}, true
}

// annotate returns the bands and marks of runs, without duplicates.
func annotate(runs ...*runInfo) ([]document.Band, []document.Mark) {
	var bands []document.Band
	var marks []document.Mark
	for _, r := range runs {
		if r == nil {
			continue
		}
		if bd, ok := triggerBand(&r.run); ok {
			bands = addBand(bands, bd)
		}
		if m, ok := controlMark(&r.run); ok && !containsMark(marks, m) {
			marks = append(marks, m)
		}
	}
	return bands, marks
}

// addBand adds b to bs unless a band spans the same minutes; of two such
// bands, the one named by its trigger kind wins over the generic
// "trigger" of a twin, whose slot is its pair's trigger.
func addBand(bs []document.Band, b document.Band) []document.Band {
	for i, x := range bs {
		if x.From == b.From && x.To == b.To {
			if x.Label == "trigger" {
				bs[i].Label = b.Label
			}
			return bs
		}
	}
	return append(bs, b)
}

func containsBand(bs []document.Band, b document.Band) bool {
	for _, x := range bs {
		if x.From == b.From && x.To == b.To {
			return true
		}
	}
	return false
}

func containsMark(ms []document.Mark, m document.Mark) bool {
	for _, x := range ms {
		if x.At == m.At {
			return true
		}
	}
	return false
}

// runSpan fixes f's x axis to [0, the longest run's end] in minutes, so
// that per-minute values plotted at window middles do not shift the axis.
func runSpan(f *document.TimeSeries, runs ...*runInfo) *document.TimeSeries {
	end := 0.0
	for _, r := range runs {
		if r != nil {
			end = max(end, minutes(r.end))
		}
	}
	if end > 0 {
		f.XMin, f.XMax = 0, end
	}
	return f
}

// perRunGrid draws each run's hit ratio and sessions in the system, at
// most the experiment's share of small multiples (the rest named in a
// note).
func (b *builder) perRunGrid(e *experiment) []document.Block {
	drawn, left := pick(e.runs, b.share, verdictRank)
	g := &document.Grid{Caption: "Per run: hit ratio per minute (left axis) and mean sessions in the system (right axis, dashed); trigger shaded, control start marked.", Columns: 2}
	for _, r := range drawn {
		bands, marks := annotate(r)
		s := runSeries("sessions", r, mSessions, burstColor)
		s.Axis, s.Dash = 1, true
		g.Figures = append(g.Figures, runSpan(&document.TimeSeries{
			ID: "run-" + e.slug + "-" + r.name(), Title: r.name(),
			YAxes:  []document.Axis{{Name: "hit ratio", Min: 0, Max: 1}, {Name: "sessions"}},
			Series: []document.Series{runSeries("hit ratio", r, mHit, twinColor), s},
			Bands:  bands, Marks: marks,
		}, r))
	}
	return withLeftOut([]document.Block{g}, left, "runs", runNames(left))
}
