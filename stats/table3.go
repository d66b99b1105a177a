package stats

import (
	"math"
	"sort"
)

// Table3Row is one control arm of Table 3 (§6).
type Table3Row struct {
	Arm string
	// Runs and Seeds are the runs collapsed when control began (ascending);
	// Recovered of them recovered.
	Runs      []string
	Seeds     []int64
	Recovered int
	// RecoverMin and RecoverMax bound the recovery minutes of the recovered
	// runs (NaN when none); 0 is recovery within the first window.
	RecoverMin float64
	RecoverMax float64
	// EndHitMin/Max bound the hit ratio over the last 10 minutes, and
	// CohortDoneMin/Max the completion of the cohort arriving in the 20
	// minutes after control began (NaN when no run has a value).
	EndHitMin     float64
	EndHitMax     float64
	CohortDoneMin float64
	CohortDoneMax float64
}

// Collapsed is the number of runs collapsed when control began.
func (r Table3Row) Collapsed() int { return len(r.Runs) }

// Table3 is recovery by control arm (§6, Table 3).
type Table3 struct {
	// All uses every run collapsed when control began; Matched only the
	// seeds collapsed in every arm (MatchedSeeds), which start control from
	// matched states.
	All          []Table3Row
	Matched      []Table3Row
	MatchedSeeds []int64
}

// NewTable3 builds Table 3 from the summaries of one recovery experiment:
// runs with a control start, grouped by arm (rows in arm-name order).
func NewTable3(summaries []RunSummary) Table3 {
	var t Table3
	byArm := map[string][]RunSummary{}
	for _, s := range sortedByRun(summaries) {
		if math.IsNaN(s.ControlStartS) {
			continue
		}
		byArm[s.Arm] = append(byArm[s.Arm], s)
	}
	arms := make([]string, 0, len(byArm))
	for a := range byArm {
		arms = append(arms, a)
	}
	sort.Strings(arms)
	// Seeds collapsed in every arm.
	count := map[int64]int{}
	for _, a := range arms {
		seen := map[int64]bool{}
		for _, s := range byArm[a] {
			if s.Seed != nil && s.CollapsedAtControl && !seen[*s.Seed] {
				seen[*s.Seed] = true
				count[*s.Seed]++
			}
		}
	}
	matched := map[int64]bool{}
	for seed, n := range count {
		if n == len(arms) {
			matched[seed] = true
			t.MatchedSeeds = append(t.MatchedSeeds, seed)
		}
	}
	sort.Slice(t.MatchedSeeds, func(i, j int) bool { return t.MatchedSeeds[i] < t.MatchedSeeds[j] })
	for _, a := range arms {
		t.All = append(t.All, table3Row(a, byArm[a], nil))
		t.Matched = append(t.Matched, table3Row(a, byArm[a], matched))
	}
	return t
}

func table3Row(arm string, runs []RunSummary, only map[int64]bool) Table3Row {
	nan := math.NaN()
	r := Table3Row{Arm: arm, RecoverMin: nan, RecoverMax: nan, EndHitMin: nan, EndHitMax: nan, CohortDoneMin: nan, CohortDoneMax: nan}
	for _, s := range runs {
		if !s.CollapsedAtControl {
			continue
		}
		if only != nil && (s.Seed == nil || !only[*s.Seed]) {
			continue
		}
		r.Runs = append(r.Runs, s.Run)
		if s.Seed != nil {
			r.Seeds = append(r.Seeds, *s.Seed)
		}
		if s.Recovery != nil && s.Recovery.Status == Recovered {
			r.Recovered++
			r.RecoverMin, r.RecoverMax = minNaN(r.RecoverMin, s.Recovery.Minutes), maxNaN(r.RecoverMax, s.Recovery.Minutes)
		}
		r.EndHitMin, r.EndHitMax = minNaN(r.EndHitMin, s.EndHit), maxNaN(r.EndHitMax, s.EndHit)
		r.CohortDoneMin, r.CohortDoneMax = minNaN(r.CohortDoneMin, s.CohortDone.Fraction), maxNaN(r.CohortDoneMax, s.CohortDone.Fraction)
	}
	sort.Slice(r.Seeds, func(i, j int) bool { return r.Seeds[i] < r.Seeds[j] })
	return r
}

// minNaN is the smaller of a and b, ignoring NaN (NaN only if both are).
func minNaN(a, b float64) float64 {
	if math.IsNaN(a) || b < a {
		return b
	}
	return a
}

// maxNaN is the larger of a and b, ignoring NaN.
func maxNaN(a, b float64) float64 {
	if math.IsNaN(a) || b > a {
		return b
	}
	return a
}

// PairedRecovery builds the paired 2×2 table of recovery between armA and
// armB over seeds (usually Table3.MatchedSeeds), for McNemarExact (§6:
// budgeter 7/7 against admission-only 1/7, p = 0.031). A seed missing from
// either arm is left out.
func PairedRecovery(summaries []RunSummary, armA, armB string, seeds []int64) Paired2x2 {
	rec := func(arm string, seed int64) (bool, bool) {
		for _, s := range sortedByRun(summaries) {
			if s.Arm == arm && s.Seed != nil && *s.Seed == seed {
				return s.Recovery != nil && s.Recovery.Status == Recovered, true
			}
		}
		return false, false
	}
	var t Paired2x2
	for _, seed := range seeds {
		a, okA := rec(armA, seed)
		b, okB := rec(armB, seed)
		if okA && okB {
			t.Add(a, b)
		}
	}
	return t
}
