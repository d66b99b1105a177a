package compare

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/outlast-dev/outlast/schema"
)

// Defaults of Options.
const (
	DefaultAlpha      = 0.05
	DefaultConfidence = 0.95
)

// Options controls a comparison.
type Options struct {
	// Alpha is the significance level (0 means DefaultAlpha) and
	// Confidence that of the intervals (0 means DefaultConfidence).
	Alpha      float64
	Confidence float64
	// NoHolm reports raw p-values; by default they are Holm-adjusted across
	// the rows of each table, per column.
	NoHolm bool
	// By is the runs column the columns were split by (SplitBy); its key
	// field, if any, leaves the configuration key.
	By string
	// Ignore lists key fields (KeyFields, or runs columns that belong to
	// one) to leave out of the configuration key, e.g. "pool" when the new
	// release changed the pool size and that is the point.
	Ignore []string
	// Measures, if not empty, selects the tables by Measure ID.
	Measures []string
}

// Compare compares the columns' runs configuration by configuration; the
// first column is the baseline. It needs at least two columns.
func Compare(columns []Column, o Options) (*Result, error) {
	facts := make([][]*runFacts, len(columns))
	labels := make([]string, len(columns))
	for j, col := range columns {
		labels[j] = col.Label
		runs := append([]*schema.RunData(nil), col.Runs...)
		sort.SliceStable(runs, func(a, b int) bool { return runs[a].Run.Run < runs[b].Run.Run })
		for _, rd := range runs {
			facts[j] = append(facts[j], FactsOf(rd))
		}
	}
	return compareFacts(labels, facts, o)
}

// CompareFacts is Compare for runs already summarized (FactsOf), so that
// the runs' tables need not be in memory together.
func CompareFacts(columns []FactsColumn, o Options) (*Result, error) {
	facts := make([][]*runFacts, len(columns))
	labels := make([]string, len(columns))
	for j, col := range columns {
		labels[j] = col.Label
		facts[j] = append([]*Facts(nil), col.Runs...)
		sort.SliceStable(facts[j], func(a, b int) bool { return facts[j][a].run.Run < facts[j][b].run.Run })
	}
	return compareFacts(labels, facts, o)
}

// compareFacts compares columns of runs whose facts are computed, each
// column in run-name order.
func compareFacts(labels []string, facts [][]*runFacts, o Options) (*Result, error) {
	if len(labels) < 2 {
		return nil, fmt.Errorf("compare: need at least two columns, have %d", len(labels))
	}
	o, ignored, byField, err := o.resolve()
	if err != nil {
		return nil, err
	}
	res := &Result{By: o.By, Alpha: o.Alpha, Confidence: o.Confidence, Holm: !o.NoHolm,
		Ignored: []string{}, Common: []Field{}, Tables: []*Table{}, Warnings: []string{}}
	for _, f := range KeyFields {
		if ignored[f] {
			res.Ignored = append(res.Ignored, f)
		}
	}
	g, err := group(res, labels, facts, ignored)
	if err != nil {
		return nil, err
	}
	// hidden names what a cell's runs differ in outside the key: ignored
	// fields (but the --by column's) and the engine's columns.
	var ign []string
	for _, f := range res.Ignored {
		if f != byField {
			ign = append(ign, f)
		}
	}
	hidden := func(runs []*runFacts) []string { return hiddenVariation(runs, o.By, ign) }
	show, varying := g.layout(res, ignored)

	for _, id := range o.Measures {
		if _, ok := MeasureByID(id); !ok {
			return nil, fmt.Errorf("compare: unknown measure %q (want %s)", id, strings.Join(MeasureIDs(), ", "))
		}
	}
	for _, m := range Measures {
		if len(o.Measures) > 0 && !slices.Contains(o.Measures, m.ID) {
			continue
		}
		var t *Table
		switch m.Kind {
		case KindProportion, KindMedian:
			t = runTable(m, res, g, show, varying, hidden)
		case KindFit:
			t = fitTable(m, res, facts, hidden)
		}
		if t != nil && len(t.Rows) > 0 {
			finishTable(t, res)
			res.Tables = append(res.Tables, t)
		}
	}
	return res, nil
}

// resolve fills in the defaults of o and checks it; ignored holds the key
// fields left out of the configuration key (Ignore's and By's), byField
// By's key field ("" when By is not in the key).
func (o Options) resolve() (_ Options, ignored map[string]bool, byField string, _ error) {
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if o.Confidence == 0 {
		o.Confidence = DefaultConfidence
	}
	if !(o.Alpha > 0 && o.Alpha < 1) || !(o.Confidence > 0 && o.Confidence < 1) {
		return o, nil, "", fmt.Errorf("compare: alpha and confidence must be in (0, 1)")
	}
	ignored = map[string]bool{}
	for _, name := range o.Ignore {
		f, ok := KeyFieldOf(name)
		if !ok {
			return o, nil, "", fmt.Errorf("compare: cannot ignore %q: not a key field (%s)", name, strings.Join(KeyFields, ", "))
		}
		ignored[f] = true
	}
	if f, ok := KeyFieldOf(o.By); ok && o.By != "" {
		ignored[f] = true
		byField = f
	}
	return o, ignored, byField, nil
}

// grouping is every column's runs grouped by configuration.
type grouping struct {
	// configs in order of first appearance (columns in order, runs by
	// name); cells[c][j] holds column j's runs of configuration c.
	configs []Config
	cells   map[Config][]*cell
}

// group groups the runs of every column by configuration, adding the
// column labels to res and a warning for a column without runs.
func group(res *Result, labels []string, facts [][]*runFacts, ignored map[string]bool) (grouping, error) {
	g := grouping{cells: map[Config][]*cell{}}
	seenLabel := map[string]bool{}
	for j, label := range labels {
		if seenLabel[label] {
			return g, fmt.Errorf("compare: column label %q given twice", label)
		}
		seenLabel[label] = true
		res.Columns = append(res.Columns, label)
		for _, f := range facts[j] {
			c := ConfigOf(&f.run).without(ignored)
			if _, ok := g.cells[c]; !ok {
				g.configs = append(g.configs, c)
				g.cells[c] = make([]*cell, len(labels))
				for k := range g.cells[c] {
					g.cells[c][k] = &cell{}
				}
			}
			g.cells[c][j].runs = append(g.cells[c][j].runs, f)
		}
		if len(facts[j]) == 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: no runs", label))
		}
	}
	return g, nil
}

// layout decides which key fields label the rows: those with one value in
// every configuration go to res.Common, above the tables; varying lists
// the indices (in KeyFields) of the others, show those of them that the
// row labels print.
func (g grouping) layout(res *Result, ignored map[string]bool) (show, varying []int) {
	configs := g.configs
	for i, f := range KeyFields {
		if ignored[f] || len(configs) == 0 {
			continue
		}
		varies := false
		for _, c := range configs {
			if c[i] != configs[0][i] {
				varies = true
				break
			}
		}
		if varies {
			varying = append(varying, i)
			if !determined(configs, show, i) {
				show = append(show, i)
			}
		} else {
			res.Common = append(res.Common, Field{Name: f, Value: configs[0][i]})
		}
	}
	return show, varying
}

// determined reports whether key field i is a function of the fields in
// show across configs (the trigger of an arm, say), so that printing it
// would not tell rows apart; the JSON keeps every field of a row.
func determined(configs []Config, show []int, i int) bool {
	if len(show) == 0 {
		return false
	}
	seen := map[string]string{}
	for _, c := range configs {
		var k strings.Builder
		for _, s := range show {
			k.WriteString(c[s])
			k.WriteByte(0)
		}
		if v, ok := seen[k.String()]; ok && v != c[i] {
			return false
		}
		seen[k.String()] = c[i]
	}
	return true
}
