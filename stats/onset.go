package stats

import "math"

// OnsetS is the start of the first degraded window of ws (hit ratio below
// DegradedHit, §3), in seconds; NaN when none is. Given a run's analysis
// windows from t = 0 it is when degradation began anywhere in the run,
// the trigger included, whereas Regime.FirstDegradedS counts only from the
// reference time (the trigger's end) for the §3 verdict: when both are
// set, OnsetS ≤ FirstDegradedS.
func OnsetS(ws []TurnWindow) float64 {
	for _, w := range ws {
		if Degraded(w) {
			return w.Start
		}
	}
	return math.NaN()
}
