package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// This file holds how the report prints values: the words and number
// forms of its tables and prose, which stats leaves to its callers.

// pCell shows a p-value to 3 significant digits (0.00391, 0.031, 1), as
// the paper prints them, or "<0.0001".
func pCell(p float64) document.Cell {
	if p < 0.0001 {
		return document.Text("<0.0001")
	}
	return sig3Cell(p)
}

// sig3Cell shows v to 3 significant digits: 0.132, 1.22, 155.
func sig3Cell(v float64) document.Cell {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return document.Num(r, -1)
}

// pText prints a p-value for prose.
func pText(p float64) string {
	c := pCell(p)
	if c.IsMissing() {
		return "not defined"
	}
	if c.IsNum() {
		return "p = " + c.String()
	}
	return "p " + strings.Replace(c.String(), "<", "< ", 1)
}

// seedCell shows a seed, or missing.
func seedCell(s *int64) document.Cell {
	if s == nil {
		return document.Missing()
	}
	return document.Int(*s)
}

func optNum(v *float64, prec int) document.Cell {
	if v == nil {
		return document.Missing()
	}
	return document.Num(*v, prec)
}

func optInt(v *int64) document.Cell {
	if v == nil {
		return document.Missing()
	}
	return document.Int(*v)
}

// pctRange prints a range of fractions as percentages, "0–92%".
func pctRange(lo, hi float64) document.Cell {
	c := document.Range(100*lo, 100*hi, 0)
	if c.IsMissing() {
		return c
	}
	return document.Text(c.String() + "%")
}

// recoveryLabel prints a run's recovery as the paper does: "<5" when it
// recovered within 5 minutes (the windows are 5 minutes long, §6), else
// the whole minutes, or the status ("not recovered", "insufficient
// follow-up").
func recoveryLabel(r stats.Recovery) string {
	switch {
	case r.Status != stats.Recovered:
		return string(r.Status)
	case r.Minutes < 5:
		return "<5"
	}
	return strconv.Itoa(int(r.Minutes))
}

// recoverRangeLabel prints the recovery minutes of an arm's recovered runs
// as the paper's Table 3 does: "<5" when all recovered within 5 minutes,
// "≤6" when some did and the slowest took 6, "21–23", "14", or "–" when
// none recovered (lo and hi NaN).
func recoverRangeLabel(lo, hi float64) string {
	switch {
	case math.IsNaN(lo):
		return "–"
	case hi < 5:
		return "<5"
	case lo < 5:
		return fmt.Sprintf("≤%d", int(hi))
	case lo == hi:
		return fmt.Sprintf("%d", int(lo))
	}
	return fmt.Sprintf("%d–%d", int(lo), int(hi))
}

// triggerLabel is e.g. "burst 15–20 min, +0.0525/s".
func triggerLabel(r *schema.Run) string {
	k := r.TriggerKind
	if k == "" || k == schema.TriggerNone {
		return schema.TriggerNone
	}
	s := k
	if r.TriggerStartS != nil {
		s += " " + fmtMin(*r.TriggerStartS)
		if r.TriggerEndS != nil {
			s += "–" + fmtMin(*r.TriggerEndS)
		}
		s += " min"
	}
	if r.TriggerExtraRate != nil {
		s += ", +" + strconv.FormatFloat(*r.TriggerExtraRate, 'g', -1, 64) + "/s"
	}
	if r.TriggerRateAfter != nil {
		s += ", λ→" + strconv.FormatFloat(*r.TriggerRateAfter, 'g', -1, 64) + "/s"
	}
	return s
}

// controlLabel is e.g. "budgeter @20 min".
func controlLabel(r *schema.Run) string {
	k := r.ControlKind
	if k == "" {
		k = schema.ControlNone
	}
	if k == schema.ControlNone || r.ControlStartS == nil {
		return k
	}
	return k + " @" + fmtMin(*r.ControlStartS) + " min"
}

// fmtMin prints seconds as minutes, without trailing zeros.
func fmtMin(s float64) string {
	return strconv.FormatFloat(math.Round(s/60*100)/100, 'g', -1, 64)
}

// plural is "1 run", "2 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// join lists values for prose: "1, 2, 3".
func join[T any](v []T) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
