package replay

import (
	"math"
	"slices"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// Confidence is the level of every interval replay prints.
const Confidence = 0.95

// Outcomes lists the verdicts a replayed seed is counted by, in the order
// tables show them: stats' verdicts, as outlast report gives them (never
// degraded, recovered alone, recovered under control, partial,
// persistent; then those of a run not judged).
var Outcomes = stats.Verdicts

// Persistent reports whether a verdict is a run that ended persistently
// degraded (under control or not).
func Persistent(v stats.Verdict) bool { return v == stats.VerdictPersistent }

// Outcome summarizes a variant's runs.
type Outcome struct {
	Variant string
	Runs    int
	// Verdicts counts the runs by verdict.
	Verdicts map[stats.Verdict]int
	// NotPersistent is the share of runs that did not end persistently
	// degraded, with its exact interval; a run whose persistence was not
	// judged counts against it.
	NotPersistent stats.BinomialCI
	// Control is set for a variant under a controller: how many seeds had
	// not collapsed when it began (Prevention: a control that prevents, not
	// one that rescues; every seed, for a control from the start), how
	// many had (Rescue), and how many cannot tell (Unjudged).
	Control *ControlSplit
	// Prevention says the variant's controller starts before the observed
	// run had collapsed (Fitted.Outcomes sets it): it measures prevention,
	// not rescue.
	Prevention                    bool
	EndHit, EndSessions, Recovery Spread
}

// ControlSplit splits a controlled variant's seeds by their state when
// control began.
type ControlSplit struct {
	StartS                       float64
	Prevention, Rescue, Unjudged int
	// PreventionNotPersistent and RescueRecovered count the seeds of each
	// that did not end persistently degraded.
	PreventionNotPersistent, RescueRecovered int
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
func (r *VariantResult) Outcome() Outcome { return newOutcome(r.Variant, r.Runs) }

func newOutcome(v Variant, runs []RunResult) Outcome {
	o := Outcome{Variant: v.Name, Runs: len(runs), Verdicts: map[stats.Verdict]int{}}
	var hit, sess, rec []float64
	ok := 0
	for _, run := range runs {
		s := &run.Summary
		o.Verdicts[s.Verdict]++
		if !Persistent(s.Verdict) && s.Judged() {
			ok++
		}
		hit = append(hit, s.EndHit)
		sess = append(sess, s.EndSessions)
		if s.Verdict.Recovered() && !math.IsNaN(s.RecoveryMin) {
			rec = append(rec, s.RecoveryMin)
		}
		if c := s.ControlKind; c != "" && c != schema.ControlNone {
			if o.Control == nil {
				o.Control = &ControlSplit{StartS: s.ControlStartS}
			}
			o.Control.add(s)
		}
	}
	o.NotPersistent = stats.ClopperPearson(ok, len(runs), Confidence)
	o.EndHit, o.EndSessions, o.Recovery = NewSpread(hit), NewSpread(sess), NewSpread(rec)
	return o
}

// add counts one controlled seed.
func (c *ControlSplit) add(s *stats.RunSummary) {
	switch {
	case !(s.ControlStartS > 0) || s.ControlJudged && !s.CollapsedAtControl:
		c.Prevention++
		if !Persistent(s.Verdict) && s.Judged() {
			c.PreventionNotPersistent++
		}
	case s.CollapsedAtControl:
		c.Rescue++
		if s.Verdict == stats.VerdictRecoveredUnderControl {
			c.RescueRecovered++
		}
	default:
		c.Unjudged++
	}
}

// Share is the share of the runs with verdict v, with its exact interval.
func (o *Outcome) Share(v stats.Verdict) stats.BinomialCI {
	return stats.ClopperPearson(o.Verdicts[v], o.Runs, Confidence)
}

// Outcomes summarizes each variant's runs, and says which controls start
// before the observed run collapsed.
func (m *Fitted) Outcomes(res []VariantResult) []Outcome {
	out := make([]Outcome, len(res))
	for i := range res {
		out[i] = res[i].Outcome()
		out[i].Prevention = m.PreventionOf(res[i].Variant)
	}
	return out
}

// PreventionOf says whether control variant v starts before the observed
// run had collapsed (or the run never did): its replays measure
// prevention, not rescue.
func (m *Fitted) PreventionOf(v Variant) bool {
	if v.Control == nil || v.Control.Kind == schema.ControlNone {
		return false
	}
	first := m.Observed.FirstDegradedS
	return math.IsNaN(first) || v.Control.StartS <= first
}
