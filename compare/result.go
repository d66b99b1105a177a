package compare

import (
	"fmt"

	"github.com/outlast-dev/outlast/internal/jsonnum"
)

// Result is a comparison: one Table per measure that has data, in the
// order of Measures. Every number is also in the JSON and CSV outputs;
// undefined numbers are null.
type Result struct {
	// Columns are the column labels; the first is the baseline.
	Columns []string `json:"columns"`
	// By is the runs column the runs were split by ("" for datasets given
	// one per column); Ignored are the key fields left out of the
	// configuration key (including By's).
	By      string   `json:"by"`
	Ignored []string `json:"ignored"`
	// Alpha is the significance level, Confidence that of the intervals;
	// Holm says whether p-values are Holm-adjusted across each table's rows.
	Alpha      float64 `json:"alpha"`
	Confidence float64 `json:"confidence"`
	Holm       bool    `json:"holm"`
	// Common lists the key fields with one value in every configuration,
	// printed once above the tables; the others label the rows.
	Common []Field  `json:"common"`
	Tables []*Table `json:"tables"`
	// Warnings concern the whole comparison (a column without runs); the
	// others are footnotes of the tables.
	Warnings []string `json:"warnings"`
}

// Field is one key field's value.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Table is one measure over every matched configuration.
type Table struct {
	Measure Measure `json:"measure"`
	Rows    []*Row  `json:"rows"`
	// Footnotes are the warnings cells refer to by 1-based index.
	Footnotes []string `json:"footnotes"`
	// Method states the tests and the multiple-testing correction, printed
	// under the table.
	Method string `json:"method"`
}

// Row is one configuration of a table.
type Row struct {
	// Config is the row label: the key fields that vary between rows, as
	// "field=value" ("all" when none does), leaving out fields that follow
	// from the ones shown. Key has every field that varies between rows.
	Config string  `json:"config"`
	Key    []Field `json:"key"`
	Cells  []*Cell `json:"cells"`
}

// Cell is one column's summary in a row, with its comparison to the
// baseline's cell.
type Cell struct {
	Column string `json:"column"`
	// Runs is the number of runs the measure counts (for a fit, the number
	// of calibration windows); Count the runs with the outcome (proportions).
	Runs  int `json:"runs"`
	Count int `json:"count"`
	// Value is the share k/n, the median, or the fitted estimate; Lo and Hi
	// its confidence interval (null when it cannot be had); SE the fit's
	// standard error. NotRecovered counts runs whose value is "not
	// recovered" (recovery time), which rank above every time and print
	// as n.r.; Value, Lo or Hi are then null where they would be such a run.
	Value        Float `json:"value"`
	Lo           Float `json:"lo"`
	Hi           Float `json:"hi"`
	SE           Float `json:"se"`
	NotRecovered int   `json:"not_recovered"`
	// Vs compares the cell with the baseline's; nil in the baseline column
	// and when either cell is empty.
	Vs *Delta `json:"vs_base"`
	// Footnotes index Table.Footnotes (1-based).
	Footnotes []int `json:"footnotes"`
	// valueInf, loInf and hiInf mark Value, Lo and Hi as +∞ (not recovered).
	valueInf, loInf, hiInf bool
}

// Test names.
const (
	TestFisher      = "fisher"       // Fisher's exact test, two-sided
	TestMcNemar     = "mcnemar"      // exact McNemar on seed pairs
	TestMannWhitney = "mann-whitney" // Mann-Whitney U, two-sided
	TestSign        = "sign"         // sign test on seed pairs
	TestZ           = "z"            // normal test of a difference of fits
)

// Delta is the comparison of a cell with the baseline's.
type Delta struct {
	Test   string `json:"test"`
	Paired bool   `json:"paired"`
	// N is the number of pairs (paired) or NBase + NOther runs.
	NBase  int `json:"n_base"`
	NOther int `json:"n_other"`
	Pairs  int `json:"pairs"`
	// Diff is other − base: in share points as a fraction (proportions),
	// the difference of medians (independent), the median of the paired
	// differences (paired), or the difference of the fits; DiffLo and
	// DiffHi its interval where one is defined. Percent is Diff relative
	// to the baseline's value, in percent.
	Diff    Float `json:"diff"`
	DiffLo  Float `json:"diff_lo"`
	DiffHi  Float `json:"diff_hi"`
	Percent Float `json:"percent"`
	// P is the test's two-sided p-value and PAdjusted the Holm-adjusted one
	// (P itself when Holm is off). Significant is PAdjusted ≤ Alpha.
	P           Float `json:"p"`
	PAdjusted   Float `json:"p_adjusted"`
	Significant bool  `json:"significant"`
	// MinP is the smallest p-value the test can give with these runs (for
	// a paired test, with its untied pairs; 1 when there are none); when
	// it exceeds Alpha no difference could have been detected.
	MinP Float `json:"min_p"`
	// Higher reports whether the other column's value is above the
	// baseline's (Diff > 0); whether that is worse depends on the measure.
	Higher bool `json:"higher"`
	// Worse flags a regression: significant, and the other way than the
	// measure's Better (a latency higher than the baseline's). Only
	// measures with a Better set it.
	Worse bool `json:"worse,omitempty"`
	// untied is, for a paired test, the number of pairs that do not tie
	// (discordant pairs for McNemar, pairs with a nonzero difference for
	// the sign test): only they can move its p.
	untied int
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

// Float is a computed number of a comparison: NaN (an interval from too
// few runs) marshals as null, and values are rounded to
// jsonnum.SignificantDigits so that outputs do not depend on the CPU.
type Float = jsonnum.Float
