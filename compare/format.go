package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// superscripts are the footnote markers, as benchstat prints them.
var superscripts = []string{"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"}

// footnoteMarks returns the superscript markers of footnote indices.
func footnoteMarks(ns []int) string {
	var b strings.Builder
	for _, n := range ns {
		for _, d := range strconv.Itoa(n) {
			b.WriteString(superscripts[d-'0'])
		}
	}
	return b.String()
}

// formatValue prints v with the measure's decimals; inf prints "n.r."
// (a run that did not recover), and 0 the measure's zeroText if it has one.
func (m Measure) formatValue(v Float, inf bool) string {
	if inf {
		return "n.r."
	}
	if v == 0 && m.zeroText != "" {
		return m.zeroText
	}
	if v.IsNaN() {
		return "–"
	}
	s := strconv.FormatFloat(float64(v), 'f', m.Decimals, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// maxPlusMinus is the widest relative interval CellText prints as
// "median ± h%": beyond it the ± form would suggest an end (below 0, for
// 7.7 ± 185%) the interval does not have, so the ends are printed.
const maxPlusMinus = 0.5

// CellText prints a cell's summary as the text table shows it, without
// footnote markers: "k/n" for a proportion; "median ± h%" where h is the
// farther end of the interval relative to the median, at most 50%;
// "median ± n/a (one run)" (or "(3 runs)") when there are too few runs
// for an interval; or "median [lo, hi]" when the interval is wider, the
// median is 0 or an end is n.r.
func (m Measure) CellText(c *Cell) string {
	if c.Runs == 0 {
		return "–"
	}
	if m.Kind == KindProportion {
		return fmt.Sprintf("%d/%d", c.Count, c.Runs)
	}
	v := m.formatValue(c.Value, c.valueInf)
	loMissing := c.Lo.IsNaN() && !c.loInf
	hiMissing := c.Hi.IsNaN() && !c.hiInf
	switch {
	case loMissing || hiMissing:
		runs := "one run"
		if c.Runs != 1 {
			runs = fmt.Sprintf("%d runs", c.Runs)
		}
		return v + " ± n/a (" + runs + ")"
	case c.valueInf || c.loInf || c.hiInf || c.Value == 0:
		return fmt.Sprintf("%s [%s, %s]", v, m.formatValue(c.Lo, c.loInf), m.formatValue(c.Hi, c.hiInf))
	}
	h := math.Max(math.Abs(float64(c.Hi-c.Value)), math.Abs(float64(c.Value-c.Lo))) / math.Abs(float64(c.Value))
	if h > maxPlusMinus {
		return fmt.Sprintf("%s [%s, %s]", v, m.formatValue(c.Lo, false), m.formatValue(c.Hi, false))
	}
	return fmt.Sprintf("%s ± %.0f%%", v, 100*h)
}

// DeltaText prints a comparison as benchstat does: the change, or "~" when
// it is not significant, then "(p=… n=…)" with the (adjusted) p-value.
// Proportions change in percentage points, hit ratios and recovery times
// in their unit, the rest in percent.
func (m Measure) DeltaText(d *Delta) string {
	if d == nil {
		return ""
	}
	change := "~"
	if d.Significant {
		switch m.Delta {
		case DeltaPoints:
			change = fmt.Sprintf("%+.0f pp", 100*float64(d.Diff))
		case DeltaAbsolute:
			if d.Diff.IsNaN() {
				change = "n.r."
			} else {
				change = strconv.FormatFloat(float64(d.Diff), 'f', m.Decimals, 64)
				if float64(d.Diff) >= 0 {
					change = "+" + change
				}
				if m.Unit == "min" {
					change += " min"
				}
			}
		case DeltaPercent:
			change = fmt.Sprintf("%+.2f%%", float64(d.Percent))
			if d.Percent.IsNaN() {
				change = "?"
			}
		}
	}
	if d.Worse {
		change += " worse"
	}
	p := "–"
	if !d.PAdjusted.IsNaN() {
		p = fmt.Sprintf("%.3f", float64(d.PAdjusted))
	}
	var n string
	switch {
	case d.Paired:
		n = fmt.Sprintf("%d pairs", d.Pairs)
	case d.NBase == d.NOther:
		n = strconv.Itoa(d.NBase)
	default:
		n = fmt.Sprintf("%d+%d", d.NBase, d.NOther)
	}
	return fmt.Sprintf("%s (p=%s n=%s)", change, p, n)
}
