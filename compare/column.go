package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// Column is one side of a comparison: a label and its runs. The first
// column of a comparison is the baseline.
type Column struct {
	Label string
	Runs  []*schema.RunData
}

// SplitBy splits runs into one column per value of a runs-table column
// (see RunsColumn), labelled by the value. Columns are ordered by value:
// numerically when every value is a number, otherwise as strings; the first
// is the baseline.
func SplitBy(runs []*schema.RunData, column string) ([]Column, error) {
	labels, groups, err := splitBy(runs, func(rd *schema.RunData) *schema.Run { return &rd.Run }, column)
	cols := make([]Column, len(labels))
	for i := range labels {
		cols[i] = Column{Label: labels[i], Runs: groups[i]}
	}
	return cols, err
}

// SplitFactsBy is SplitBy for runs already summarized (FactsOf).
func SplitFactsBy(runs []*Facts, column string) ([]FactsColumn, error) {
	labels, groups, err := splitBy(runs, (*Facts).Run, column)
	cols := make([]FactsColumn, len(labels))
	for i := range labels {
		cols[i] = FactsColumn{Label: labels[i], Runs: groups[i]}
	}
	return cols, err
}

// splitBy groups items by the value of a runs column of their run, the
// groups ordered by value.
func splitBy[T any](items []T, run func(T) *schema.Run, column string) (labels []string, groups [][]T, _ error) {
	byValue := map[string][]T{}
	var values []string
	for _, it := range items {
		v, err := RunsColumn(run(it), column)
		if err != nil {
			return nil, nil, err
		}
		if _, seen := byValue[v]; !seen {
			values = append(values, v)
		}
		byValue[v] = append(byValue[v], it)
	}
	sortValues(values)
	for _, v := range values {
		groups = append(groups, byValue[v])
	}
	for i, v := range values {
		if v == "" {
			// A run without a value (an engine version no file gave) is
			// labelled so, not by an empty name.
			values[i] = UnknownLabel
		}
	}
	return values, groups, nil
}

// UnknownLabel labels the column of the runs whose value of the split's
// runs column is empty.
const UnknownLabel = "(unknown)"

// Facts is what a comparison keeps of one run (FactsOf): its runs row, its
// summary and the few numbers and windows the measures need, not its
// tables, so that a campaign can be compared one run in memory at a time.
type Facts struct {
	run     schema.Run
	summary stats.RunSummary
	// endTurnsPerS is the turn throughput over the end hit ratio's window
	// (the last 10 minutes).
	endTurnsPerS float64
	// coldWindows are the run's calibration windows, for caching-off runs
	// (stats.CalibrationWindows), and shape its workload shape, nil when
	// the manifest does not give it.
	coldWindows []stats.CostWindow
	shape       []int64
	// latency is the run's latency under stats.DefaultSLO.
	latency stats.TurnLatency
}

// runFacts is the name the comparison's code uses for a run's Facts.
type runFacts = Facts

// FactsColumn is a Column of runs already summarized.
type FactsColumn struct {
	Label string
	Runs  []*Facts
}

// Run returns the run's row of the runs table.
func (f *Facts) Run() *schema.Run { return &f.run }

// seed returns the run's seed and whether it has one.
func (f *runFacts) seed() (int64, bool) {
	if f.summary.Seed == nil {
		return 0, false
	}
	return *f.summary.Seed, true
}

// healthy reports whether the run is counted by the measures of runs not
// collapsed: it neither degraded persistently (verdict persistent) nor
// was collapsed when control began without recovering, and its end is
// not its trigger (no window after the trigger's end: its end figures are
// the trigger's own).
func (f *runFacts) healthy() bool {
	s := &f.summary
	stuck := s.Recovery != nil && s.Recovery.Status != stats.Recovered
	return s.Verdict != stats.VerdictPersistent && !stuck && !s.NoWindowAfter
}

// FactsOf computes what a comparison needs of one run; the run's tables
// are not kept.
func FactsOf(rd *schema.RunData) *Facts {
	x := stats.NewRunIndex(rd)
	f := &Facts{run: rd.Run, summary: x.Summarize()}
	f.endTurnsPerS = x.Turns.Window(x.EndWindow(stats.EndHitS)).TurnsPerS
	if len(x.Data.Turns) == 0 {
		f.endTurnsPerS = math.NaN()
	}
	if !rd.Run.PrefixCaching {
		f.coldWindows = stats.CalibrationWindows([]*stats.RunIndex{x}, stats.ColdCostOptions{})
	}
	f.shape, _ = x.WorkloadShape()
	f.latency, _ = x.Latency(stats.DefaultSLO)
	return f
}

// cell is the runs of one column in one configuration, in run-name order.
type cell struct {
	runs []*runFacts
}

// bySeed returns the runs by seed when every run has a seed and no seed
// repeats; ok is false otherwise (the cell cannot be paired).
func (c *cell) bySeed() (map[int64]*runFacts, bool) {
	m := make(map[int64]*runFacts, len(c.runs))
	for _, f := range c.runs {
		s, ok := f.seed()
		if !ok {
			return nil, false
		}
		if _, dup := m[s]; dup {
			return nil, false
		}
		m[s] = f
	}
	return m, true
}

// pairing is how the runs of a baseline cell and another cell are matched
// by seed.
type pairing struct {
	// Paired is true when both cells can be paired (every run has a seed,
	// unique in its cell) and at least one seed is in both.
	paired bool
	// seeds shared by both cells, ascending; base and other are their runs.
	seeds       []int64
	base, other []*runFacts
	// unpaired counts the runs of either cell whose seed is not in the
	// other, left out of a paired test.
	unpaired int
}

// pair matches the runs of two cells by seed (the pairing rule of the
// package documentation).
func pair(base, other *cell) pairing {
	var p pairing
	a, okA := base.bySeed()
	b, okB := other.bySeed()
	if !okA || !okB {
		return p
	}
	for s := range a {
		if _, ok := b[s]; ok {
			p.seeds = append(p.seeds, s)
		}
	}
	if len(p.seeds) == 0 {
		return p
	}
	sort.Slice(p.seeds, func(i, j int) bool { return p.seeds[i] < p.seeds[j] })
	p.paired = true
	for _, s := range p.seeds {
		p.base = append(p.base, a[s])
		p.other = append(p.other, b[s])
	}
	p.unpaired = len(a) + len(b) - 2*len(p.seeds)
	return p
}

// hiddenColumns are runs-table columns outside the key that a column's
// runs should agree on; when they do not, the grouping hides a difference.
var hiddenColumns = []string{"engine_name", "engine_version", "engine_model", "experiment"}

// hiddenVariation names the hidden columns (and ignored key fields) whose
// value varies among runs, as "name (v1, v2)" in column order.
func hiddenVariation(runs []*runFacts, by string, ignored []string) []string {
	var out []string
	check := func(name string, value func(*schema.Run) string) {
		if name == by {
			return
		}
		var vals []string
		seen := map[string]bool{}
		for _, f := range runs {
			v := value(&f.run)
			if !seen[v] {
				seen[v] = true
				vals = append(vals, v)
			}
		}
		if len(vals) > 1 {
			sortValues(vals)
			if len(vals) > 4 {
				vals = append(vals[:3], "…")
			}
			out = append(out, fmt.Sprintf("%s (%s)", name, strings.Join(vals, ", ")))
		}
	}
	for _, c := range hiddenColumns {
		check(c, func(r *schema.Run) string { v, _ := RunsColumn(r, c); return v })
	}
	for _, f := range ignored {
		check(f, func(r *schema.Run) string { return ConfigOf(r).Field(f) })
	}
	return out
}
