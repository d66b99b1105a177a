package replay

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
)

// Formatting helpers of the printed report.

func controlString(c sim.Control) string {
	if c.Kind == schema.ControlNone || c.Kind == "" {
		return "none"
	}
	s := c.Kind + " from " + num(c.StartS, -1) + " s"
	switch c.Kind {
	case schema.ControlBudgeter, schema.ControlAdaptiveCap:
		s += fmt.Sprintf(" (low %s, high %s)", num(c.Low, -1), num(c.High, -1))
	case schema.ControlSessionCap:
		s += fmt.Sprintf(" (k %d, k_hi %d)", c.K, c.KHi)
	case schema.ControlAdmissionCap:
		s += fmt.Sprintf(" (k %d)", c.K)
	case schema.ControlAIMD:
		s += fmt.Sprintf(" (k0 %d)", c.K)
	}
	return s
}

func gapSources(g map[string]int) string {
	var parts []string
	for _, k := range []string{GapFromReady, GapFromSent, GapFromFilled} {
		if g[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", k, thousands(g[k])))
		}
	}
	if len(parts) == 0 {
		return "no second turns"
	}
	return "from " + strings.Join(parts, ", ")
}

func factor(f Factor) string {
	s := "×" + num(f.Value, 3)
	if !math.IsNaN(f.SE) {
		s += " ± " + num(f.SE, 3)
	}
	return s
}

func spread(s Spread, prec int) string {
	if s.N == 0 {
		return "–"
	}
	if s.N == 1 {
		return num(s.Median, prec)
	}
	return num(s.Median, prec) + " [" + num(s.Min, prec) + "–" + num(s.Max, prec) + "]"
}

// num prints v with prec decimals (-1: as few as needed), "–" for NaN.
func num(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	if prec < 0 {
		return strconv.FormatFloat(math.Round(v*1e9)/1e9, 'f', -1, 64)
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// sig prints v to 4 significant digits, "–" for NaN.
func sig(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// thousands prints n with thousands separators: 400,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
