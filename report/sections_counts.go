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
		c.Runs++
		switch r.sum.Verdict {
		case stats.VerdictPersistent:
			c.Persistent++
		case stats.VerdictPartial:
			c.Partial++
		case stats.VerdictRecovered:
			c.Recovered++
		case stats.VerdictCollapsed:
			c.Collapsed++
		default:
			c.Healthy++
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].trigger != keys[j].trigger {
			return keys[i].trigger < keys[j].trigger
		}
		return keys[i].control < keys[j].control
	})
	t := &document.Table{
		ID:      "counts-" + e.slug,
		Caption: "Outcomes per trigger and control: runs persistently degraded (collapsed), partially degraded, and healthy at the end.",
		Columns: []document.Column{{Name: "Trigger"}, {Name: "Control"}, {Name: "Runs"}, {Name: "Persistent"}, {Name: "Partial"}, {Name: "Recovered"}, {Name: "Collapsed at control"}, {Name: "Healthy"}},
	}
	se.Counts = []SummaryCount{}
	for _, k := range keys {
		c := counts[k]
		t.Rows = append(t.Rows, []document.Cell{document.Text(c.Trigger), document.Text(c.Control), document.Int(int64(c.Runs)), document.Text(fmt.Sprintf("%d/%d", c.Persistent, c.Runs)), document.Int(int64(c.Partial)), document.Int(int64(c.Recovered)), document.Int(int64(c.Collapsed)), document.Int(int64(c.Healthy))})
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
