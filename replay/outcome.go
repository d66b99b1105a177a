package replay

import (
	"math"
	"slices"

	"github.com/outlast-dev/outlast/stats"
)

// Verdicts lists the verdicts in the order tables show them.
var Verdicts = []stats.Verdict{stats.VerdictNeverDegraded, stats.VerdictRecoveredAlone, stats.VerdictRecoveredUnderControl,
	stats.VerdictPartial, stats.VerdictPersistent, stats.VerdictUncached}

// Outcome summarizes a variant's runs.
type Outcome struct {
	Variant  string
	Runs     int
	Verdicts map[stats.Verdict]int
	// EndHit is the hit ratio over the last 10 minutes and EndSessions the
	// mean sessions in the system over the last 5, over the runs that have
	// one; Recovery is the recovery time in minutes over the runs that
	// recovered (§6).
	EndHit, EndSessions, Recovery Spread
}

// Spread is the median and range of a measure over runs; N is how many
// runs had it (NaN fields when none did).
type Spread struct {
	Median, Min, Max float64
	N                int
}

// NewSpread summarizes v, NaNs left out.
func NewSpread(v []float64) Spread {
	var x []float64
	for _, f := range v {
		if !math.IsNaN(f) {
			x = append(x, f)
		}
	}
	if len(x) == 0 {
		return Spread{Median: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	slices.Sort(x)
	return Spread{Median: stats.Median(x), Min: x[0], Max: x[len(x)-1], N: len(x)}
}

// Outcome summarizes the variant's runs.
func (r *VariantResult) Outcome() Outcome {
	o := Outcome{Variant: r.Variant.Name, Runs: len(r.Runs), Verdicts: map[stats.Verdict]int{}}
	var hit, sess, rec []float64
	for _, run := range r.Runs {
		s := &run.Summary
		o.Verdicts[s.Verdict]++
		hit = append(hit, s.EndHit)
		sess = append(sess, s.EndSessions)
		if s.Verdict.Recovered() && !math.IsNaN(s.RecoveryMin) {
			rec = append(rec, s.RecoveryMin)
		}
	}
	o.EndHit, o.EndSessions, o.Recovery = NewSpread(hit), NewSpread(sess), NewSpread(rec)
	return o
}

// Healthy is the number of runs healthy at the end without a controller
// bringing them back: never degraded, or recovered alone.
func (o *Outcome) Healthy() int {
	return o.Verdicts[stats.VerdictNeverDegraded] + o.Verdicts[stats.VerdictRecoveredAlone]
}

// Good is the number of runs healthy at the end: Healthy, or recovered
// under control.
func (o *Outcome) Good() int { return o.Healthy() + o.Verdicts[stats.VerdictRecoveredUnderControl] }

// Degraded is the number of runs that ended degraded: persistent (under
// control or not) or partial.
func (o *Outcome) Degraded() int {
	return o.Verdicts[stats.VerdictPersistent] + o.Verdicts[stats.VerdictPartial]
}

// Match compares the as-is replays with the observed run: how many seeds
// reproduce its verdict, and the exact trace replay (seed 1) beside it.
type Match struct {
	Observed stats.RunSummary
	// Trace is the as-is replay of seed 1, the observed sessions exactly.
	Trace stats.RunSummary
	// Same is the number of as-is seeds whose verdict is the observed one.
	Same, Seeds int
	Outcome     Outcome
}

// NewMatch compares the as-is variant's runs with the observed run.
func (m *Fitted) NewMatch(asIs *VariantResult) Match {
	mt := Match{Observed: m.Observed, Seeds: len(asIs.Runs), Outcome: asIs.Outcome()}
	for _, r := range asIs.Runs {
		if r.Seed == ExactSeed {
			mt.Trace = r.Summary
		}
		if r.Summary.Verdict == m.Observed.Verdict {
			mt.Same++
		}
	}
	return mt
}
