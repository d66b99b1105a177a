package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/report/render"
	"github.com/outlast-dev/outlast/stats"
)

// calibrationSection adds the c(L) fit on the experiment's caching-off
// runs, the scatter of its windows with the fitted line, and S and 1/S for
// every workload shape of the dataset.
func (b *builder) calibrationSection(e *experiment, sec *document.Section, se *SummaryExperiment) {
	ws := calibrationWindows(e.runs)
	fit, err := stats.FitColdCost(ws)
	if err != nil {
		msg := fmt.Sprintf("No fit: %v (%d windows with at least %.0f requests running throughout, from caching-off runs).", err, len(ws), stats.CalibrationMinRunning)
		sec.Blocks = append(sec.Blocks, &document.Note{Kind: document.NoteWarning, Text: msg})
		se.Warnings = append(se.Warnings, msg)
		b.found(e, "cost-fit", true, nil, numbers{"windows": float64(len(ws))}, "no c(L) fit: "+strings.TrimPrefix(err.Error(), "stats: ")+".")
	} else {
		se.Fit = b.fitSummary(fit, ws, "calibration")
		sec.Blocks = append(sec.Blocks, fitTable("fit-"+e.slug, fit, se.Fit), b.fitScatter(e, fit, ws))
		text := fmt.Sprintf("a cold turn of context L costs c(L) = %s s + %s ms/token × L (R² %s, %s)",
			document.Num(fit.A, 3).Display(), document.Num(1000*fit.B, 4).Display(), document.Num(fit.R2, 3).Display(), plural(fit.N, "window"))
		switch {
		case se.Fit.Shape == "":
		case !(se.Fit.S > 0):
			text += fmt.Sprintf("; for a session of shape %s the fit gives no positive S, so no drain bound", se.Fit.Shape)
		default:
			text += fmt.Sprintf("; a session of shape %s costs S = %s engine-s when every turn misses, so the degraded regime drains only below λ = 1/S = %s sessions/s",
				se.Fit.Shape, document.Num(float64(se.Fit.S), 1).Display(), document.Num(float64(se.Fit.DrainRate), 4).Display())
		}
		if fit.A < 0 {
			text += "; " + negativeIntercept(fit)
		}
		b.found(e, "cost-fit", fit.A < 0, nil, numbers{"a": fit.A, "b": fit.B, "r2": fit.R2, "windows": float64(fit.N), "S": float64(se.Fit.S), "drain_rate": float64(se.Fit.DrainRate)}, text+".")
	}
	se.Shapes = b.shapes(fit, err == nil)
	sec.Blocks = append(sec.Blocks, shapesTable("shapes-"+e.slug, se.Shapes, err == nil))
}

// negativeIntercept says what a negative a means: no turn costs less than
// nothing, so the line holds only over the contexts of its windows, and
// below them the fit understates a turn's cost, and S with it.
func negativeIntercept(fit stats.CostFit) string {
	return fmt.Sprintf("intercept a is negative, which no cost is: the line gives c(L) < 0 below L = %.0f tokens, so it holds only over the contexts of its windows and understates the cost of shorter turns, and S of sessions made of them",
		math.Round(-fit.A/fit.B))
}

func fitTable(id string, fit stats.CostFit, s *SummaryFit) *document.Table {
	t := &document.Table{
		ID:      id,
		Caption: "Cold-turn cost c(L) = a + b·L, least squares through the origin over 2-minute windows with at least 4 requests running throughout; R² uncentred; standard errors from the residual variance.",
		Columns: []document.Column{{Name: "a", Unit: "s"}, {Name: "SE(a)", Unit: "s"}, {Name: "b", Unit: "ms/token"}, {Name: "SE(b)", Unit: "ms/token"}, {Name: "R²"}, {Name: "Windows"}, {Name: "S", Unit: "s"}, {Name: "1/S", Unit: "sessions/s"}},
		Rows: [][]document.Cell{{
			document.Num(fit.A, 3), document.Num(fit.SEA, 3), document.Num(1000*fit.B, 4), document.Num(1000*fit.SEB, 4), document.Num(fit.R2, 3), document.Int(int64(fit.N)),
			document.Num(float64(s.S), 1), document.Num(float64(s.DrainRate), 4),
		}},
	}
	if s.Shape != "" {
		t.Notes = append(t.Notes, "S and 1/S for the shape of the fitted runs: "+s.Shape+".")
	}
	if fit.A < 0 {
		t.Notes = append(t.Notes, "The "+negativeIntercept(fit)+".")
	}
	t.Notes = append(t.Notes, "Runs: "+join(s.Runs)+".")
	return t
}

// fitScatter plots each window's seconds per turn against its mean prompt
// per turn: the model says len/n = a + b·(ΣL/n), the fitted line.
func (b *builder) fitScatter(e *experiment, fit stats.CostFit, ws []stats.CostWindow) *document.Scatter {
	byRun := map[string][]stats.CostWindow{}
	for _, w := range ws {
		byRun[w.Run] = append(byRun[w.Run], w)
	}
	f := &document.Scatter{
		ID: "cal-" + e.slug, Title: "Calibration windows and c(L)",
		Caption: "Each point is a calibration window: its length per completed turn against the mean prompt of those turns. The line is the fitted c(L).",
		XAxis:   document.Axis{Name: "mean prompt per turn", Unit: "tokens"},
		YAxis:   document.Axis{Name: "window length per turn", Unit: "s"},
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	names := sortedKeys(byRun)
	for i, run := range names {
		g := document.ScatterGroup{Name: run, Color: render.PaletteColor(i)}
		for _, w := range byRun[run] {
			x := float64(w.PromptTokens) / float64(w.Turns)
			g.Points = append(g.Points, [2]float64{x, w.Len() / float64(w.Turns)})
			g.Labels = append(g.Labels, fmt.Sprintf("%s %.0f–%.0f min, %d turns", run, minutes(w.Start), minutes(w.End), w.Turns))
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		f.Groups = append(f.Groups, g)
	}
	if hi >= lo {
		f.Lines = append(f.Lines, document.Line{Name: "c(L) fit", X: []float64{lo, hi}, Y: []float64{fit.Cost(lo), fit.Cost(hi)}, Color: boundColor})
	}
	return f
}

// shapes lists every workload shape of the dataset with S and 1/S under
// fit (NaN when there is none).
func (b *builder) shapes(fit stats.CostFit, ok bool) []SummaryShape {
	by := map[string]*SummaryShape{}
	for _, r := range b.runs {
		sh := r.shape
		if !r.shapeOK || len(sh) == 0 {
			continue
		}
		k := shapeLabel(sh)
		s, seen := by[k]
		if !seen {
			s = shapeSummary(k, sh, fit, ok)
			by[k] = s
		}
		s.Runs = append(s.Runs, r.name())
	}
	out := []SummaryShape{}
	for _, k := range sortedKeys(by) {
		out = append(out, *by[k])
	}
	return out
}

func shapesTable(id string, shapes []SummaryShape, fitted bool) *document.Table {
	t := &document.Table{
		ID:      id,
		Caption: "S (engine-seconds per all-miss session) and the drain bound 1/S for each synthetic workload shape in the dataset: first context, growth per turn, turns.",
		Columns: []document.Column{{Name: "First context", Unit: "tokens"}, {Name: "Growth", Unit: "tokens/turn"}, {Name: "Turns"}, {Name: "Runs"}, {Name: "S", Unit: "s"}, {Name: "1/S", Unit: "sessions/s"}},
	}
	for _, s := range shapes {
		t.Rows = append(t.Rows, []document.Cell{document.Int(s.Initial), document.Int(s.Growth), document.Int(s.Turns), document.Int(int64(len(s.Runs))), document.Num(float64(s.S), 1), document.Num(float64(s.DrainRate), 4)})
	}
	if len(shapes) == 0 {
		t.Notes = append(t.Notes, "No run's manifest gives a complete synthetic shape (system, task, output and tool tokens and turns).")
	}
	if !fitted {
		t.Notes = append(t.Notes, "No c(L) fit: S is missing.")
	}
	return t
}
