package compare

import (
	"math"

	"github.com/outlast-dev/outlast/stats"
)

// MeasureKind says how a measure is summarized and tested.
type MeasureKind string

// Measure kinds.
const (
	// KindProportion counts runs with an outcome: k/n per cell, Fisher's
	// exact test, or exact McNemar on seed pairs.
	KindProportion MeasureKind = "proportion"
	// KindMedian has one value per run: the median with its order-statistic
	// interval per cell, Mann-Whitney U, or the sign test on seed pairs.
	KindMedian MeasureKind = "median"
	// KindFit is one estimate per column with a standard error (a
	// regression over the column's runs): the difference with a normal
	// interval and z-test.
	KindFit MeasureKind = "fit"
)

// DeltaStyle says how a difference from the baseline is printed.
type DeltaStyle string

// Delta styles.
const (
	DeltaPoints   DeltaStyle = "points"   // percentage points, for proportions
	DeltaAbsolute DeltaStyle = "absolute" // in the measure's unit
	DeltaPercent  DeltaStyle = "percent"  // relative to the baseline
)

// Measure is one table of a comparison.
type Measure struct {
	// ID names the measure in CSV, JSON and check rules.
	ID string `json:"id"`
	// Title is the table's heading and Unit the values' unit.
	Title string      `json:"title"`
	Unit  string      `json:"unit"`
	Kind  MeasureKind `json:"kind"`
	Delta DeltaStyle  `json:"delta"`
	// Decimals is how many decimals values print with in text.
	Decimals int `json:"-"`
	// Counted describes the runs the measure counts, for the footnote of a
	// cell that has none.
	Counted string `json:"counted"`
	// Better is "lower" or "higher" for a measure whose direction is what
	// a comparison judges (latency, goodput): a significant change the
	// other way is a regression (Delta.Worse). Empty for the others.
	Better string `json:"better,omitempty"`
	// leftOut, when set, is the footnote of a cell some of whose runs the
	// measure does not count, with their number for its %d; a row whose
	// runs are all left out then stays in the table, empty, with it.
	leftOut string

	// outcome (KindProportion) says whether a run has the outcome; ok is
	// false for runs the measure leaves out.
	outcome func(*runFacts) (yes, ok bool)
	// value (KindMedian) is a run's value; ok is false for runs left out.
	value func(*runFacts) (v float64, ok bool)
	// zeroText, when set, is how text prints a value of 0: a recovery of 0
	// minutes means "within the first 5-minute window", which the report
	// prints "<5" as the paper does, so compare does too.
	zeroText string
}

// Measure IDs.
const (
	MeasureCollapseRate = "collapse_rate"
	MeasureEndHit       = "end_hit_ratio"
	MeasureTurnsPerS    = "turns_per_s"
	MeasureEndSessions  = "end_sessions"
	MeasureRecovery     = "recovery_min"
	MeasureColdCostB    = "cold_cost_b"
	MeasureDrainBound   = "drain_bound"
	// Latency (stats.RunIndex.Latency): each run's TTFT p90, TTFT p90 of
	// the turns sent in its last 10 minutes, TPOT p90, end-to-end p90, and
	// goodput under stats.DefaultSLO.
	MeasureTTFTP90    = "ttft_p90_s"
	MeasureEndTTFTP90 = "end_ttft_p90_s"
	MeasureTPOTP90    = "tpot_p90_s"
	MeasureE2EP90     = "e2e_p90_s"
	MeasureGoodput    = "goodput"
)

// Directions of Measure.Better.
const (
	BetterLower  = "lower"
	BetterHigher = "higher"
)

// latencyMeasure is a latency measure: each run's value (seconds, NaN
// without one), its median per cell, lower is better. Every run with
// the value counts, collapsed ones included: a collapse is what a user
// feels as latency.
func latencyMeasure(id, title, counted string, v func(stats.TurnLatency) float64) Measure {
	return Measure{
		ID: id, Title: title, Unit: "s", Kind: KindMedian, Delta: DeltaPercent, Decimals: 3, Counted: counted, Better: BetterLower,
		value: func(f *runFacts) (float64, bool) {
			x := v(f.latency)
			return x, !math.IsNaN(x)
		},
	}
}

// notRecovered stands for the recovery time of a run that did not recover:
// larger than any time, so it ranks slowest and two such runs tie.
var notRecovered = math.Inf(1)

// Measures lists every measure, in table order.
var Measures = []Measure{
	{
		ID: MeasureCollapseRate, Title: "collapse rate: share of runs persistently degraded", Unit: "collapsed",
		Kind: KindProportion, Delta: DeltaPoints, Counted: "runs with prefix caching on whose persistence was judged",
		// Every turn of a run without a prefix cache is cold by design, so
		// its hit ratio is low from the start: there is no second regime
		// to fall into. The report calls such a run uncached, not
		// persistent; so does the collapse rate. A run whose persistence
		// is unknown (no turn, cached tokens unreported) is no healthy
		// run either: it is left out too (stats.RunSummary.Judged).
		outcome: func(f *runFacts) (bool, bool) {
			return f.summary.Persistent, f.summary.Judged()
		},
		leftOut: "%d run(s) left out: prefix caching off (no second regime to collapse into; the report's verdict: uncached), or persistence unknown (no turn, cached tokens unreported, no turn in the last 10 minutes, a trigger that never ran or left no 5-minute window after it)",
	},
	{
		ID: MeasureEndHit, Title: "hit ratio of runs not collapsed, last 10 minutes", Unit: "hit ratio",
		Kind: KindMedian, Delta: DeltaAbsolute, Decimals: 3, Counted: "runs not collapsed with turns in the last 10 minutes",
		value: func(f *runFacts) (float64, bool) {
			return f.summary.EndHit, f.healthy() && !math.IsNaN(f.summary.EndHit)
		},
	},
	{
		ID: MeasureTurnsPerS, Title: "turn throughput of runs not collapsed, last 10 minutes", Unit: "turns/s",
		Kind: KindMedian, Delta: DeltaPercent, Decimals: 3, Counted: "runs not collapsed",
		value: func(f *runFacts) (float64, bool) {
			return f.endTurnsPerS, f.healthy() && !math.IsNaN(f.endTurnsPerS)
		},
	},
	{
		ID: MeasureEndSessions, Title: "sessions in the system, last 5 minutes", Unit: "sessions",
		Kind: KindMedian, Delta: DeltaPercent, Decimals: 1, Counted: "runs with sessions recorded",
		value: func(f *runFacts) (float64, bool) {
			return f.summary.EndSessions, !math.IsNaN(f.summary.EndSessions)
		},
	},
	{
		ID: MeasureRecovery, Title: "recovery time after control began (runs collapsed then; n.r. = not recovered)", Unit: "min",
		Kind: KindMedian, Delta: DeltaAbsolute, Decimals: 0, Counted: "runs collapsed when control began, with 10 minutes of follow-up",
		zeroText: "<5",
		value: func(f *runFacts) (float64, bool) {
			r := f.summary.Recovery
			switch {
			case r == nil:
				return 0, false
			case r.Status == stats.Recovered:
				return r.Minutes, true
			case r.Status == stats.NotRecovered:
				return notRecovered, true
			}
			return 0, false // insufficient follow-up: no outcome
		},
	},
	latencyMeasure(MeasureTTFTP90, "time to first token, p90 of each run's completed turns", "runs with first-token times",
		func(l stats.TurnLatency) float64 { return l.TTFT.P90 }),
	latencyMeasure(MeasureEndTTFTP90, "time to first token, p90 of the turns sent in the last 10 minutes", "runs with first-token times in the last 10 minutes",
		func(l stats.TurnLatency) float64 { return l.EndTTFT.P90 }),
	latencyMeasure(MeasureTPOTP90, "time per output token, p90 of each run's completed turns", "runs with first-token times and turns of 2 tokens or more",
		func(l stats.TurnLatency) float64 { return l.TPOT.P90 }),
	latencyMeasure(MeasureE2EP90, "end-to-end latency, p90 of each run's completed turns", "runs with sent times",
		func(l stats.TurnLatency) float64 { return l.E2E.P90 }),
	{
		ID: MeasureGoodput, Title: "goodput: share of completed turns with TTFT ≤ 2s and TPOT ≤ 100ms", Unit: "goodput",
		Kind: KindMedian, Delta: DeltaAbsolute, Decimals: 3, Counted: "runs with first-token times", Better: BetterHigher,
		value: func(f *runFacts) (float64, bool) {
			return f.latency.Goodput.Fraction, !math.IsNaN(f.latency.Goodput.Fraction)
		},
	},
	{
		ID: MeasureColdCostB, Title: "cold-turn cost slope b, caching-off runs", Unit: "ms/token",
		Kind: KindFit, Delta: DeltaPercent, Decimals: 4, Counted: "caching-off runs",
	},
	{
		ID: MeasureDrainBound, Title: "drain bound 1/S, caching-off runs", Unit: "sessions/s",
		Kind: KindFit, Delta: DeltaPercent, Decimals: 4, Counted: "caching-off runs",
	},
}

// MeasureByID returns the measure with the given ID.
func MeasureByID(id string) (Measure, bool) {
	for _, m := range Measures {
		if m.ID == id {
			return m, true
		}
	}
	return Measure{}, false
}

// MeasureIDs lists the IDs of Measures in order.
func MeasureIDs() []string {
	ids := make([]string, len(Measures))
	for i, m := range Measures {
		ids[i] = m.ID
	}
	return ids
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

// values returns the measure's value of each run: 1 or 0 for a proportion
// (the outcome or not), else the value. The runs must be counted.
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

// worse reports whether d goes the other way than the measure's Better:
// a higher value where lower is better, or a lower one where higher is.
func (m Measure) worse(d *Delta) bool {
	if float64(d.Diff) == 0 || d.Diff.IsNaN() {
		return false
	}
	switch m.Better {
	case BetterLower:
		return d.Higher
	case BetterHigher:
		return !d.Higher
	}
	return false
}
