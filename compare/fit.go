package compare

import (
	"math"

	"github.com/outlast-dev/outlast/stats"
)

// columnFit is a column's cold-turn cost fit over its caching-off runs.
type columnFit struct {
	runs    []*runFacts // caching-off runs
	windows []stats.CostWindow
	fit     stats.CostFit
	err     error
	// shape is the workload shape of the first caching-off run that has
	// one, for S; shapeName prints it.
	shape     []int64
	shapeName string
}

func newColumnFit(facts []*runFacts) columnFit {
	var cf columnFit
	for _, f := range facts {
		if f.run.PrefixCaching {
			continue
		}
		cf.runs = append(cf.runs, f)
		cf.windows = append(cf.windows, f.coldWindows...)
		if cf.shape == nil && f.shape != nil {
			cf.shape, cf.shapeName = f.shape, workloadString(&f.run)
		}
	}
	cf.fit, cf.err = stats.FitColdCost(cf.windows)
	return cf
}

// estimate returns the measure's value and standard error from the fit:
// b in ms/token, or the drain bound 1/S in sessions/s over the column's
// workload shape (stats.DrainBoundSE).
func (cf columnFit) estimate(id string) (v, se float64) {
	nan := math.NaN()
	if cf.err != nil {
		return nan, nan
	}
	if id == MeasureColdCostB {
		return cf.fit.B * 1e3, cf.fit.SEB * 1e3
	}
	if cf.shape == nil {
		return nan, nan
	}
	return stats.DrainBoundSE(cf.fit, cf.windows, cf.shape)
}

// fitTable compares the cold-cost fits of the columns' caching-off runs:
// one row, absent when no column has such runs.
func fitTable(m Measure, res *Result, facts [][]*runFacts, hidden func([]*runFacts) []string) *Table {
	fits := make([]columnFit, len(facts))
	anyRuns := false
	for j := range facts {
		fits[j] = newColumnFit(facts[j])
		anyRuns = anyRuns || len(fits[j].runs) > 0
	}
	if !anyRuns {
		return nil
	}
	t := &Table{Measure: m, Footnotes: []string{}}
	row := &Row{Config: "caching-off runs", Key: []Field{}}
	for j, cf := range fits {
		nan := Float(math.NaN())
		out := &Cell{Column: res.Columns[j], Runs: len(cf.windows), Value: nan, Lo: nan, Hi: nan, SE: nan, Footnotes: []int{}}
		for _, h := range hidden(cf.runs) {
			out.note(t, "runs of %s differ in %s, which the grouping hides", res.Columns[j], h)
		}
		v, se := cf.estimate(m.ID)
		lo, hi := stats.NormalInterval(v, se, res.Confidence)
		out.Value, out.SE, out.Lo, out.Hi = Float(v), Float(se), Float(lo), Float(hi)
		switch {
		case len(cf.runs) == 0:
			out.note(t, "no caching-off runs in %s", res.Columns[j])
		case cf.err != nil:
			out.note(t, "%s: %d calibration windows, a fit needs at least 3", res.Columns[j], len(cf.windows))
		case m.ID == MeasureDrainBound && cf.shape == nil:
			out.note(t, "%s: the workload shape is not in the manifests", res.Columns[j])
		}
		if m.ID == MeasureDrainBound && cf.shape != nil && fits[0].shape != nil && cf.shapeName != fits[0].shapeName {
			out.note(t, "%s's workload shape differs from the baseline's", res.Columns[j])
		}
		if j > 0 && !math.IsNaN(v) && !math.IsNaN(float64(row.Cells[0].Value)) {
			out.Vs = fitDelta(float64(row.Cells[0].Value), float64(row.Cells[0].SE), v, se, res.Confidence, fits[0], cf)
		}
		row.Cells = append(row.Cells, out)
	}
	t.Rows = append(t.Rows, row)
	return t
}

// fitDelta is the difference of two independent estimates with its normal
// interval and two-sided z-test (stats.ZTest).
func fitDelta(a, seA, b, seB, confidence float64, fa, fb columnFit) *Delta {
	z := stats.ZTest(a, seA, b, seB, confidence)
	d := &Delta{Test: TestZ, NBase: len(fa.windows), NOther: len(fb.windows),
		Diff: Float(z.Diff), DiffLo: Float(z.Lo), DiffHi: Float(z.Hi), Percent: Float(math.NaN()),
		P: Float(z.P), PAdjusted: Float(math.NaN()), MinP: 0, Higher: z.Diff > 0}
	if a != 0 {
		d.Percent = Float(100 * z.Diff / math.Abs(a))
	}
	return d
}
