package report

import (
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// runInfo is what the report keeps of one run: its manifest row, its index
// and analysis and its overview row in summary.json, computed once by
// measureRun from the run alone. Everything after it (experiments, fits,
// sections) aggregates runInfos.
type runInfo struct {
	rd  *schema.RunData
	x   *stats.RunIndex
	an  stats.RunAnalysis
	sum stats.RunSummary
	row SummaryRun
}

// measureRun is the per-run step of a report: it depends on no other run.
func measureRun(rd *schema.RunData) *runInfo {
	x := stats.NewRunIndex(rd)
	an := stats.Analyze(x)
	r := &runInfo{rd: rd, x: x, an: an, sum: an.Summary}
	r.row = summaryRun(&rd.Run, r.sum)
	return r
}

// name is the run's name, unique in a dataset.
func (r *runInfo) name() string { return r.rd.Run.Run }

// seedIs reports whether the run has the given seed.
func (r *runInfo) seedIs(seed int64) bool { return r.rd.Run.Seed != nil && *r.rd.Run.Seed == seed }
