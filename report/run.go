package report

import (
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// runInfo is what the report keeps of one run once its tables are gone:
// its manifest row, its overview row, the per-minute series its figures
// draw and the few windows the dataset-wide parts need (calibration and
// all-miss windows for the c(L) fit, the remaining-cold-work terms of a
// drain run). measureRun computes it from the run alone, so a report holds
// one run's tables at a time, however many runs the dataset has; everything
// after it (experiments, fits, sections) aggregates runInfos.
type runInfo struct {
	run schema.Run
	// end is the run's end (stats.RunEnd), in seconds.
	end float64
	sum stats.RunSummary
	row SummaryRun
	// minutes are the per-minute series of the figures, downsampled.
	minutes minuteSeries
	// cohorts is the completion of each 5-minute arrival cohort (Figure 8).
	cohorts []stats.CohortPoint
	// wait is the first-turn wait before the trigger (Figure 6).
	wait stats.WaitSummary
	// shape is the manifest's synthetic workload shape, when complete.
	shape   []int64
	shapeOK bool
	// kvPool is C in tokens, kvPoolOK whether it is known.
	kvPool   float64
	kvPoolOK bool
	// responseS is R₀, the mean response time before the trigger (the
	// regime map's healthy-side ratio).
	responseS float64
	// calibration holds the run's calibration windows when prefix caching
	// is off, allMiss its all-miss windows when it is on and persistently
	// degraded: the inputs of the dataset's c(L) fit.
	calibration []stats.CostWindow
	allMiss     []stats.CostWindow
	// drain is the remaining cold work of a drain run before a c(L) fit is
	// applied; drainErr says why there is none.
	drain    *stats.DrainTerms
	drainErr error
}

// measureRun is the per-run step of a report: it depends on no other run,
// and what it returns keeps no reference to rd's tables.
func measureRun(rd *schema.RunData) *runInfo {
	x := stats.NewRunIndex(rd)
	an := stats.Analyze(x)
	r := &runInfo{run: rd.Run, end: x.End, sum: an.Summary, cohorts: an.Cohorts, wait: an.FirstTurnWaitPhase1}
	r.row = summaryRun(&rd.Run, r.sum)
	r.minutes = newMinuteSeries(an.Minutes)
	r.shape, r.shapeOK = x.WorkloadShape()
	r.kvPool, r.kvPoolOK = x.KVPool()
	phase := stats.Window{Start: 0, End: x.End}
	if ts := rd.Run.TriggerStartS; ts != nil && *ts > 0 {
		phase.End = *ts
	}
	r.responseS = x.LittlesLaw(phase).ResponseS
	one := []*stats.RunIndex{x}
	r.calibration = stats.CalibrationWindows(one, stats.ColdCostOptions{})
	r.allMiss = stats.AllMissWindows(one, stats.ColdCostOptions{})
	if normDesign(rd.Run.Design) == schema.DesignDrain {
		d, err := x.DrainTerms()
		r.drain, r.drainErr = &d, err
	}
	return r
}

// name is the run's name, unique in a dataset.
func (r *runInfo) name() string { return r.run.Run }

// seedIs reports whether the run has the given seed.
func (r *runInfo) seedIs(seed int64) bool { return r.run.Seed != nil && *r.run.Seed == seed }
