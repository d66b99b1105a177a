package compare

import (
	"math"

	"github.com/outlast-dev/outlast/stats"
)

// compareCells tests the baseline cell a against cell b: paired on seeds
// when pair allows it, independent otherwise.
func compareCells(m Measure, a, b *cell, res *Result, t *Table, out *Cell) *Delta {
	nan := Float(math.NaN())
	d := &Delta{NBase: len(a.runs), NOther: len(b.runs), Diff: nan, DiffLo: nan, DiffHi: nan, Percent: nan, P: nan, PAdjusted: nan, MinP: nan}
	p := pair(a, b)
	if p.paired {
		d.Paired, d.Pairs = true, len(p.seeds)
		if p.unpaired > 0 {
			out.note(t, "%d run(s) without a partner seed left out of the paired test: the cells' values are over all their runs, the test and the difference over the %d pairs", p.unpaired, len(p.seeds))
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
			tab.Add(av[i] == 1, bv[i] == 1)
		}
		d.Test = TestMcNemar
		d.P = Float(stats.McNemarExact(tab))
		d.Diff = Float(float64(tab.BOnly-tab.AOnly) / float64(len(av)))
		// Concordant pairs tie: only the discordant ones can move p.
		d.untied = tab.AOnly + tab.BOnly
		d.MinP = pairedMinP(d.untied)
	case m.Kind == KindProportion:
		ka, kb := int(sum(av)), int(sum(bv))
		na, nb := len(av), len(bv)
		d.Test = TestFisher
		d.P = Float(stats.FisherExact(ka, na-ka, kb, nb-kb).TwoSided)
		d.Diff = Float(float64(kb)/float64(nb) - float64(ka)/float64(na))
		d.MinP = Float(stats.FisherMinP(na, nb))
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
		d.untied = ps.AWins + ps.BWins
		d.MinP = pairedMinP(d.untied)
		if math.IsNaN(ps.P) {
			out.note(t, "every pair ties: no test")
		}
	default:
		mw := stats.MannWhitneyU(av, bv)
		d.Test = TestMannWhitney
		d.P = Float(mw.P)
		d.Diff = finiteOrNaN(stats.Median(bv) - stats.Median(av))
		d.MinP = Float(stats.MannWhitneyMinP(len(av), len(bv)))
		if math.IsNaN(mw.P) {
			out.note(t, "every value ties: no test")
		}
	}
	if base := baseValue(a, m); base != 0 && !math.IsNaN(float64(d.Diff)) {
		d.Percent = Float(100 * float64(d.Diff) / math.Abs(base))
	}
	d.Higher = float64(d.Diff) > 0
	switch {
	case d.Paired && d.untied == 0:
		// Every seed gave both columns the same outcome: the data show no
		// difference, which is not a lack of runs (the sign test says
		// "every pair ties" above).
	case d.Paired && d.untied < d.Pairs && float64(d.MinP) > res.Alpha:
		out.note(t, "too few runs to detect a difference at α = %s: %d of %d pairs tie, and with %d untied the smallest possible p is %.3f",
			fmtFloat(res.Alpha), d.Pairs-d.untied, d.Pairs, d.untied, float64(d.MinP))
	case float64(d.MinP) > res.Alpha:
		out.note(t, "too few runs to detect a difference at α = %s: the smallest possible p is %.3f", fmtFloat(res.Alpha), float64(d.MinP))
	}
	return d
}

// DesignMinP is the smallest p the test could give with these runs
// whatever their outcomes: for a paired test, with every pair untied (MinP
// counts the pairs that did not tie, so it is large when the columns
// agree, which is no lack of runs); otherwise MinP. Above the
// significance level, no outcome of these runs could be significant.
func (d *Delta) DesignMinP() float64 {
	if d.Paired {
		return float64(pairedMinP(d.Pairs))
	}
	return float64(d.MinP)
}

// pairedMinP is the smallest p a paired test (exact McNemar, the sign
// test: both binomial tests of the untied pairs) can give with untied
// pairs that do not tie: 2·2⁻ⁿ, at most 1; 1 when every pair ties.
func pairedMinP(untied int) Float {
	if untied == 0 {
		return 1
	}
	return Float(stats.SignTestMinP(untied))
}

// baseValue is the baseline cell's summary value (median or share), which
// Delta.Percent is relative to.
func baseValue(a *cell, m Measure) float64 {
	v := m.values(a.runs)
	if m.Kind == KindProportion {
		return sum(v) / float64(len(v))
	}
	return stats.Median(v)
}

func sum(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s
}
