package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/stats"
)

// countsSection counts outcomes per trigger and control (prevention, flush).
func (b *builder) countsSection(e *experiment, sec *document.Section, se *SummaryExperiment) {
	type key struct{ trigger, control string }
	counts := map[key]*SummaryCount{}
	var keys []key
	for _, r := range e.runs {
		run := &r.run
		k := key{orNone(run.TriggerKind), orNone(run.ControlKind)}
		if run.ControlKind == "" {
			k.control = orNone(run.Arm)
		}
		c, ok := counts[k]
		if !ok {
			c = &SummaryCount{Trigger: k.trigger, Control: k.control}
			counts[k] = c
			keys = append(keys, k)
		}
		c.add(r.sum.Verdict)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].trigger != keys[j].trigger {
			return keys[i].trigger < keys[j].trigger
		}
		return keys[i].control < keys[j].control
	})
	t := &document.Table{
		ID:      "counts-" + e.slug,
		Caption: "Verdicts per trigger and control (defined in the overview's note on how to read the verdicts).",
		Columns: countColumns([]document.Column{{Name: "Trigger"}, {Name: "Control"}, {Name: "Runs"}}),
	}
	se.Counts = []SummaryCount{}
	for _, k := range keys {
		c := counts[k]
		t.Rows = append(t.Rows, countCells(*c, []document.Cell{document.Text(c.Trigger), document.Text(c.Control), document.Int(int64(c.Runs))}))
		se.Counts = append(se.Counts, *c)
	}
	sec.Blocks = append(append(sec.Blocks, t), b.perRunGrid(e)...)
	b.countsFinding(e, se.Counts)
}

// countsFinding tells how many runs of each trigger and control ended
// persistently degraded.
func (b *builder) countsFinding(e *experiment, counts []SummaryCount) {
	triggers := map[string]bool{}
	for _, c := range counts {
		triggers[c.Trigger] = true
	}
	nums := numbers{}
	var parts []string
	for _, c := range counts {
		name := c.Control
		if len(triggers) > 1 {
			name = c.Trigger + " with " + c.Control
		}
		parts = append(parts, fmt.Sprintf("%s %d of %d", name, c.Persistent, c.Runs))
		nums[c.Trigger+"."+c.Control+".runs"] = float64(c.Runs)
		nums[c.Trigger+"."+c.Control+".persistent"] = float64(c.Persistent)
	}
	lead := "persistently degraded"
	if len(triggers) == 1 && len(counts) > 0 {
		lead += " after the " + counts[0].Trigger + " trigger"
	}
	b.found(e, "outcomes", false, nil, nums, lead+": "+strings.Join(parts, ", ")+".")
}

// countColumns appends a column per verdict of a judged run, and one for
// the runs not judged, to lead.
func countColumns(lead []document.Column) []document.Column {
	for _, v := range stats.JudgedVerdicts {
		lead = append(lead, document.Column{Name: string(v)})
	}
	return append(lead, document.Column{Name: "not judged"})
}

// countCells appends c's counts, in countColumns' order, to lead.
func countCells(c SummaryCount, lead []document.Cell) []document.Cell {
	for _, n := range []int{c.NeverDegraded, c.RecoveredAlone, c.RecoveredUnderControl, c.Partial, c.Persistent, c.NotJudged} {
		lead = append(lead, document.Int(int64(n)))
	}
	return lead
}
