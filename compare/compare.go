package compare

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
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
			facts[j] = append(facts[j], newRunFacts(rd))
		}
	}
	return compareFacts(labels, facts, o)
}

// compareFacts compares columns of runs whose facts are computed, each
// column in run-name order.
func compareFacts(labels []string, facts [][]*runFacts, o Options) (*Result, error) {
	if len(labels) < 2 {
		return nil, fmt.Errorf("compare: need at least two columns, have %d", len(labels))
	}
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if o.Confidence == 0 {
		o.Confidence = DefaultConfidence
	}
	if !(o.Alpha > 0 && o.Alpha < 1) || !(o.Confidence > 0 && o.Confidence < 1) {
		return nil, fmt.Errorf("compare: alpha and confidence must be in (0, 1)")
	}
	ignored := map[string]bool{}
	for _, name := range o.Ignore {
		f, ok := KeyFieldOf(name)
		if !ok {
			return nil, fmt.Errorf("compare: cannot ignore %q: not a key field (%s)", name, strings.Join(KeyFields, ", "))
		}
		ignored[f] = true
	}
	byField := ""
	if f, ok := KeyFieldOf(o.By); ok && o.By != "" {
		ignored[f] = true
		byField = f
	}
	res := &Result{By: o.By, Alpha: o.Alpha, Confidence: o.Confidence, Holm: !o.NoHolm,
		Ignored: []string{}, Common: []Field{}, Tables: []*Table{}, Warnings: []string{}}
	for _, f := range KeyFields {
		if ignored[f] {
			res.Ignored = append(res.Ignored, f)
		}
	}

	// Group every column's runs by configuration, configurations in order
	// of first appearance (columns in order, runs by name).
	var configs []Config
	cells := map[Config][]*cell{}
	seenLabel := map[string]bool{}
	for j, label := range labels {
		if seenLabel[label] {
			return nil, fmt.Errorf("compare: column label %q given twice", label)
		}
		seenLabel[label] = true
		res.Columns = append(res.Columns, label)
		for _, f := range facts[j] {
			c := ConfigOf(&f.data.Run).without(ignored)
			if _, ok := cells[c]; !ok {
				configs = append(configs, c)
				cells[c] = make([]*cell, len(labels))
				for k := range cells[c] {
					cells[c][k] = &cell{}
				}
			}
			cells[c][j].runs = append(cells[c][j].runs, f)
		}
		if len(facts[j]) == 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: no runs", label))
		}
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

	// Key fields with one value everywhere go above the tables; the others
	// label the rows.
	var show, varying []int
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
			t = runTable(m, res, configs, cells, show, varying, hidden)
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

// footnote returns the 1-based index of msg in t's footnotes, adding it.
func (t *Table) footnote(msg string) int {
	for i, f := range t.Footnotes {
		if f == msg {
			return i + 1
		}
	}
	t.Footnotes = append(t.Footnotes, msg)
	return len(t.Footnotes)
}

// note adds a footnote of t to the cell, once.
func (c *Cell) note(t *Table, format string, args ...any) {
	n := t.footnote(fmt.Sprintf(format, args...))
	for _, k := range c.Footnotes {
		if k == n {
			return
		}
	}
	c.Footnotes = append(c.Footnotes, n)
}

// runTable builds the table of a per-run measure: a row per configuration
// in which some column has a run the measure counts.
func runTable(m Measure, res *Result, configs []Config, cells map[Config][]*cell, show, varying []int, hidden func([]*runFacts) []string) *Table {
	t := &Table{Measure: m, Footnotes: []string{}}
	for _, cfg := range configs {
		row := &Row{Config: cfg.label(show), Key: []Field{}}
		for _, i := range varying {
			row.Key = append(row.Key, Field{Name: KeyFields[i], Value: cfg[i]})
		}
		sel := make([]*cell, len(res.Columns))
		hasRuns := false
		for j, c := range cells[cfg] {
			sel[j] = &cell{}
			for _, f := range c.runs {
				if m.counts(f) {
					sel[j].runs = append(sel[j].runs, f)
				}
			}
			hasRuns = hasRuns || len(sel[j].runs) > 0
		}
		if !hasRuns {
			continue
		}
		for j, c := range sel {
			out := &Cell{Column: res.Columns[j], Runs: len(c.runs), Footnotes: []int{}}
			summarize(m, c, out, res.Confidence)
			for _, v := range hidden(c.runs) {
				out.note(t, "runs of %s differ in %s, which the grouping hides", res.Columns[j], v)
			}
			if len(c.runs) == 0 {
				switch {
				case len(cells[cfg][j].runs) == 0:
					out.note(t, "configuration not in %s", res.Columns[j])
				default:
					out.note(t, "%s has no %s", res.Columns[j], m.Counted)
				}
			} else if j > 0 && len(sel[0].runs) > 0 {
				out.Vs = compareCells(m, sel[0], c, res, t, out)
			}
			row.Cells = append(row.Cells, out)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// counts reports whether the measure counts run f.
func (m Measure) counts(f *runFacts) bool {
	if m.Kind == KindProportion {
		_, ok := m.outcome(f)
		return ok
	}
	_, ok := m.value(f)
	return ok
}

func (m Measure) values(runs []*runFacts) []float64 {
	out := make([]float64, len(runs))
	for i, f := range runs {
		if m.Kind == KindProportion {
			yes, _ := m.outcome(f)
			if yes {
				out[i] = 1
			}
			continue
		}
		out[i], _ = m.value(f)
	}
	return out
}

// summarize fills a cell's summary: k/n, or the median and its interval.
func summarize(m Measure, c *cell, out *Cell, confidence float64) {
	nan := Float(math.NaN())
	out.Value, out.Lo, out.Hi, out.SE = nan, nan, nan, nan
	if len(c.runs) == 0 {
		return
	}
	vals := m.values(c.runs)
	if m.Kind == KindProportion {
		for _, v := range vals {
			if v == 1 {
				out.Count++
			}
		}
		out.Value = Float(float64(out.Count) / float64(len(vals)))
		lo, hi := stats.Wilson(out.Count, len(vals), confidence)
		out.Lo, out.Hi = Float(lo), Float(hi)
		return
	}
	for _, v := range vals {
		if math.IsInf(v, 1) {
			out.NotRecovered++
		}
	}
	ci := stats.NewMedianCI(vals, confidence)
	med := median(vals)
	out.Value, out.valueInf = finiteOrNaN(med), math.IsInf(med, 1)
	if ci.OK {
		out.Lo, out.loInf = finiteOrNaN(ci.Lo), math.IsInf(ci.Lo, 1)
		out.Hi, out.hiInf = finiteOrNaN(ci.Hi), math.IsInf(ci.Hi, 1)
	}
}

func finiteOrNaN(v float64) Float {
	if math.IsInf(v, 0) {
		return Float(math.NaN())
	}
	return Float(v)
}

// median is the median of x (R type 7) where +∞ values (not recovered)
// may occur: the middle value, or the mean of the two middle values, +∞
// when either is.
func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	a, b := s[n/2-1], s[n/2]
	if math.IsInf(b, 1) {
		return b
	}
	return (a + b) / 2
}

// compareCells tests the baseline cell a against cell b: paired on seeds
// when pair allows it, independent otherwise.
func compareCells(m Measure, a, b *cell, res *Result, t *Table, out *Cell) *Delta {
	nan := Float(math.NaN())
	d := &Delta{NBase: len(a.runs), NOther: len(b.runs), Diff: nan, DiffLo: nan, DiffHi: nan, Percent: nan, P: nan, PAdjusted: nan, MinP: nan}
	p := pair(a, b)
	if p.paired {
		d.Paired, d.Pairs = true, len(p.seeds)
		if p.unpaired > 0 {
			out.note(t, "%d run(s) without a partner seed left out of the paired test", p.unpaired)
		}
	}
	av, bv := m.values(a.runs), m.values(b.runs)
	if d.Paired {
		av, bv = m.values(p.base), m.values(p.other)
	}
	switch {
	case m.Kind == KindProportion && d.Paired:
		var tab stats.Paired2x2
		for i := range av {
			switch {
			case av[i] == 1 && bv[i] == 1:
				tab.Both++
			case av[i] == 1:
				tab.AOnly++
			case bv[i] == 1:
				tab.BOnly++
			default:
				tab.Neither++
			}
		}
		d.Test = TestMcNemar
		d.P = Float(stats.McNemarExact(tab))
		d.Diff = Float(float64(tab.BOnly-tab.AOnly) / float64(len(av)))
		d.MinP = Float(stats.SignTest(0, len(av)))
	case m.Kind == KindProportion:
		ka, kb := int(sum(av)), int(sum(bv))
		na, nb := len(av), len(bv)
		d.Test = TestFisher
		d.P = Float(stats.FisherExact(ka, na-ka, kb, nb-kb).TwoSided)
		d.Diff = Float(float64(kb)/float64(nb) - float64(ka)/float64(na))
		d.MinP = Float(math.Min(stats.FisherExact(na, 0, 0, nb).TwoSided, stats.FisherExact(0, na, nb, 0).TwoSided))
	case d.Paired:
		// Two runs that both did not recover tie; NewPairedSign would
		// count ∞ − ∞ as missing.
		for i := range av {
			if math.IsInf(av[i], 1) && math.IsInf(bv[i], 1) {
				av[i], bv[i] = 0, 0
			}
		}
		ps, _ := stats.NewPairedSign(av, bv, res.Confidence)
		d.Test = TestSign
		d.P = Float(ps.P)
		d.Diff = finiteOrNaN(ps.Diff.Median)
		if ps.Diff.OK {
			d.DiffLo, d.DiffHi = finiteOrNaN(ps.Diff.Lo), finiteOrNaN(ps.Diff.Hi)
		}
		d.MinP = Float(stats.SignTest(0, len(av)))
		if math.IsNaN(ps.P) {
			out.note(t, "every pair ties: no test")
		}
	default:
		mw := stats.MannWhitneyU(av, bv)
		d.Test = TestMannWhitney
		d.P = Float(mw.P)
		d.Diff = finiteOrNaN(median(bv) - median(av))
		d.MinP = Float(mannWhitneyMinP(len(av), len(bv)))
		if math.IsNaN(mw.P) {
			out.note(t, "every value ties: no test")
		}
	}
	if base := float64(out0(a, m)); base != 0 && !math.IsNaN(float64(d.Diff)) {
		d.Percent = Float(100 * float64(d.Diff) / math.Abs(base))
	}
	d.Higher = float64(d.Diff) > 0
	if float64(d.MinP) > res.Alpha {
		out.note(t, "too few runs to detect a difference at α = %s: the smallest possible p is %.3f", fmtFloat(res.Alpha), float64(d.MinP))
	}
	return d
}

// out0 is the baseline cell's summary value (median or share).
func out0(a *cell, m Measure) float64 {
	v := m.values(a.runs)
	if m.Kind == KindProportion {
		return sum(v) / float64(len(v))
	}
	return median(v)
}

func sum(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s
}

// mannWhitneyMinP is the smallest two-sided exact p-value of the
// Mann-Whitney U test with samples of n1 and n2 values: 2 / C(n1+n2, n1).
func mannWhitneyMinP(n1, n2 int) float64 {
	lc, _ := math.Lgamma(float64(n1 + n2 + 1))
	l1, _ := math.Lgamma(float64(n1 + 1))
	l2, _ := math.Lgamma(float64(n2 + 1))
	return math.Min(1, 2*math.Exp(-(lc-l1-l2)))
}

// finishTable applies Holm's correction to each column's p-values across
// the table's rows, decides significance and states the method.
func finishTable(t *Table, res *Result) {
	for j := 1; j < len(res.Columns); j++ {
		var ps []float64
		var ds []*Delta
		for _, r := range t.Rows {
			if j < len(r.Cells) && r.Cells[j].Vs != nil {
				ps = append(ps, float64(r.Cells[j].Vs.P))
				ds = append(ds, r.Cells[j].Vs)
			}
		}
		adj := ps
		if res.Holm {
			adj = stats.Holm(ps)
		}
		for k, d := range ds {
			d.PAdjusted = Float(adj[k])
			d.Significant = adj[k] <= res.Alpha
		}
	}
	// Name the tests the rows used, in a fixed order.
	used := map[string]bool{}
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c.Vs != nil {
				used[c.Vs.Test] = true
			}
		}
	}
	var tests []string
	for _, tn := range []struct{ id, text string }{
		{TestFisher, "Fisher's exact test"}, {TestMcNemar, "exact McNemar on seed pairs"},
		{TestMannWhitney, "Mann-Whitney U"}, {TestSign, "sign test on seed pairs"},
		{TestZ, "z-test of the difference of the fits"},
	} {
		if used[tn.id] {
			tests = append(tests, tn.text)
		}
	}
	s := "no test: no row has runs in two columns"
	if len(tests) > 0 {
		s = "test: " + strings.Join(tests, "; ")
	}
	s += fmt.Sprintf("; ~: not significant at α = %s", fmtFloat(res.Alpha))
	if res.Holm && len(testedRows(t)) > 1 {
		s += fmt.Sprintf("; p Holm-adjusted across %d rows", len(testedRows(t)))
	}
	t.Method = s
}

// testedRows returns the rows of t that have a comparison in some column: the
// family Holm's correction adjusts over (per column).
func testedRows(t *Table) []*Row {
	var out []*Row
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c.Vs != nil {
				out = append(out, r)
				break
			}
		}
	}
	return out
}
