package stats

import (
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// allMeasures computes every measure of the package for a set of runs: the
// per-run analysis (windows, minute series, regime, recovery, cohorts,
// latency, waits, summary), calibration windows, the drain, Little's law,
// and the cross-run tables and fits.
func allMeasures(runs []*schema.RunData) (int, error) {
	idx := make([]*RunIndex, len(runs))
	summaries := make([]RunSummary, len(runs))
	var work int
	for i, rd := range runs {
		x := NewRunIndex(rd)
		idx[i] = x
		a := Analyze(x)
		summaries[i] = a.Summary
		work += len(a.Minutes)
		work += len(x.ColdCostWindows(ColdCostOptions{}))
		l := x.LittlesLaw(x.EndWindow(EndSessionsS))
		if l.Observed < 0 {
			work++
		}
	}
	fit, err := FitColdCost(CalibrationWindows(idx, ColdCostOptions{MinRunning: 1}))
	if err != nil {
		return 0, err
	}
	var drains []Drain
	for _, x := range idx {
		d, err := x.RemainingColdWork(fit)
		if err != nil {
			return 0, err
		}
		drains = append(drains, d)
	}
	NewDrainBracket(drains, DrainBound(fit.SessionCost(SyntheticShape(6144, 1324, 25))))
	NewTable2(summaries, "no-burst", "burst")
	NewTable3(summaries)
	return work, nil
}

// BenchmarkAllMeasures100Runs computes all measures for 100 runs of 5,000
// turns each (200 sessions × 25 turns, 540 engine samples). The issue's
// target is under a second per iteration on one core: run with
// go test -run '^$' -bench AllMeasures -cpu 1 -benchtime 3x ./stats/
func BenchmarkAllMeasures100Runs(b *testing.B) {
	runs := make([]*schema.RunData, 100)
	for i := range runs {
		runs[i] = syntheticRun(uint64(i+1), 200)
		runs[i].Run.PrefixCaching = i%10 != 0 // some calibration runs
		if i%2 == 0 {
			runs[i].Run.Arm = "none"
		}
	}
	if n := len(runs[0].Turns); n != 5000 {
		b.Fatalf("%d turns per run", n)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := allMeasures(runs); err != nil {
			b.Fatal(err)
		}
	}
}
