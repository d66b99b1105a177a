package compare

import (
	"math"

	"github.com/outlast-dev/outlast/stats"
	"gonum.org/v1/gonum/stat/distuv"
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
	var idx []*stats.RunIndex
	for _, f := range facts {
		if f.data.Run.PrefixCaching {
			continue
		}
		cf.runs = append(cf.runs, f)
		idx = append(idx, f.index)
		if cf.shape == nil {
			if s, ok := f.index.WorkloadShape(); ok {
				cf.shape, cf.shapeName = s, workloadString(&f.data.Run)
			}
		}
	}
	cf.windows = stats.CalibrationWindows(idx, stats.ColdCostOptions{})
	cf.fit, cf.err = stats.FitColdCost(cf.windows)
	return cf
}

// estimate returns the measure's value and standard error from the fit:
// b in ms/token, or the drain bound 1/S in sessions/s with its standard
// error by the delta method, se(1/S) = se(S)/S², where
// var(S) = σ̂²·gᵀ(XᵀX)⁻¹g, g = (T, ΣL_k), and σ̂² is recovered from SE(b).
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
	s := cf.fit.SessionCost(cf.shape)
	var sumL float64
	for _, l := range cf.shape {
		sumL += float64(l)
	}
	g0, g1 := float64(len(cf.shape)), sumL
	// (XᵀX) over the windows: rows (n_w, ΣL_w).
	var s00, s01, s11 float64
	for _, w := range cf.windows {
		n, l := float64(w.Turns), float64(w.PromptTokens)
		s00 += n * n
		s01 += n * l
		s11 += l * l
	}
	det := s00*s11 - s01*s01
	if !(det > 0) {
		return stats.DrainBound(s), nan
	}
	i00, i01, i11 := s11/det, -s01/det, s00/det
	sigma2 := cf.fit.SEB * cf.fit.SEB / i11
	varS := sigma2 * (g0*g0*i00 + 2*g0*g1*i01 + g1*g1*i11)
	bound := stats.DrainBound(s)
	return bound, math.Sqrt(varS) / (s * s)
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
	z := distuv.UnitNormal.Quantile(1 - (1-res.Confidence)/2)
	for j, cf := range fits {
		nan := Float(math.NaN())
		out := &Cell{Column: res.Columns[j], Runs: len(cf.windows), Value: nan, Lo: nan, Hi: nan, SE: nan, Footnotes: []int{}}
		for _, h := range hidden(cf.runs) {
			out.note(t, "runs of %s differ in %s, which the grouping hides", res.Columns[j], h)
		}
		v, se := cf.estimate(m.ID)
		out.Value, out.SE = Float(v), Float(se)
		if !math.IsNaN(se) {
			out.Lo, out.Hi = Float(v-z*se), Float(v+z*se)
		}
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
			out.Vs = fitDelta(float64(row.Cells[0].Value), float64(row.Cells[0].SE), v, se, z, fits[0], cf)
		}
		row.Cells = append(row.Cells, out)
	}
	t.Rows = append(t.Rows, row)
	return t
}

// fitDelta is the difference of two independent estimates with the normal
// interval diff ± z·√(se_a² + se_b²) and the two-sided z-test.
func fitDelta(a, seA, b, seB, z float64, fa, fb columnFit) *Delta {
	nan := Float(math.NaN())
	d := &Delta{Test: TestZ, NBase: len(fa.windows), NOther: len(fb.windows), DiffLo: nan, DiffHi: nan, Percent: nan, P: nan, PAdjusted: nan, MinP: 0}
	diff := b - a
	d.Diff = Float(diff)
	d.Higher = diff > 0
	if a != 0 {
		d.Percent = Float(100 * diff / math.Abs(a))
	}
	se := math.Sqrt(seA*seA + seB*seB)
	if se > 0 {
		d.DiffLo, d.DiffHi = Float(diff-z*se), Float(diff+z*se)
		d.P = Float(math.Erfc(math.Abs(diff/se) / math.Sqrt2))
	}
	return d
}
