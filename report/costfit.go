package report

import (
	"fmt"
	"math"
	"sort"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// calibrationWindows are the calibration windows of runs
// (stats.CalibrationWindows), kept when each run was measured.
func calibrationWindows(runs []*runInfo) []stats.CostWindow {
	var ws []stats.CostWindow
	for _, r := range runs {
		ws = append(ws, r.calibration...)
	}
	return ws
}

// allMissWindows are the all-miss windows of runs (stats.AllMissWindows),
// kept when each run was measured.
func allMissWindows(runs []*runInfo) []stats.CostWindow {
	var ws []stats.CostWindow
	for _, r := range runs {
		ws = append(ws, r.allMiss...)
	}
	return ws
}

// calibrationRuns returns the caching-off runs of the calibration
// experiments.
func (b *builder) calibrationRuns() []*runInfo {
	var out []*runInfo
	for _, e := range b.exps {
		if e.design != schema.DesignCalibration {
			continue
		}
		for _, r := range e.runs {
			if !r.run.PrefixCaching {
				out = append(out, r)
			}
		}
	}
	return out
}

// globalFit fits c(L) on the calibration runs, else on the all-miss
// windows of degraded cache-on runs (§4's alternative fit), for 1/S on the
// regime map and in the drain sections.
func (b *builder) globalFit() {
	cal := b.calibrationRuns()
	source := "calibration"
	ws := calibrationWindows(cal)
	if len(cal) == 0 {
		source = "all-miss"
		ws = allMissWindows(b.runs)
	}
	fit, err := stats.FitColdCost(ws)
	if err != nil || !(fit.B > 0) {
		return
	}
	b.fit = &fit
	b.fitInfo = b.fitSummary(fit, ws, source)
}

// fitSummary describes fit, with S and 1/S for the shape of the runs it
// was fitted on (the most common one).
func (b *builder) fitSummary(fit stats.CostFit, ws []stats.CostWindow, source string) *SummaryFit {
	s := fitSummaryOf(fit, source)
	seen := map[string]bool{}
	for _, w := range ws {
		if !seen[w.Run] {
			seen[w.Run] = true
			s.Runs = append(s.Runs, w.Run)
		}
	}
	sort.Strings(s.Runs)
	count := map[string]int{}
	shapes := map[string][]int64{}
	for _, r := range b.runs {
		if !seen[r.name()] {
			continue
		}
		if r.shapeOK {
			k := shapeLabel(r.shape)
			count[k]++
			shapes[k] = r.shape
		}
	}
	best := ""
	for _, k := range sortedKeys(count) {
		if count[k] > count[best] {
			best = k
		}
	}
	if best != "" {
		s.S, s.DrainRate = costSummary(fit.SessionCost(shapes[best]))
		s.Shape = best
	}
	return s
}

// shapeLabel names a synthetic shape: first context, growth, turns.
func shapeLabel(shape []int64) string {
	if len(shape) == 0 {
		return ""
	}
	growth := int64(0)
	if len(shape) > 1 {
		growth = shape[1] - shape[0]
	}
	return fmt.Sprintf("%d+%d×k, %d turns", shape[0], growth, len(shape))
}

// sessionCost is S for a run's own workload shape under the global fit;
// NaN without fit or shape.
func (b *builder) sessionCost(r *runInfo) float64 {
	if b.fit == nil {
		return math.NaN()
	}
	if !r.shapeOK {
		return math.NaN()
	}
	return b.fit.SessionCost(r.shape)
}
