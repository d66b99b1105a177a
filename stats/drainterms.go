package stats

import "math"

// DrainTerms is what a run's remaining cold work W(t) (§4) is made of,
// before a cold-turn cost c(L) = a + b·L is chosen: at each sample time,
// every counted session's remaining turns m and the sum ΣL of their
// contexts, so that W(t) = Σ (m·a + b·ΣL). A report measures each run once,
// keeps its terms instead of its tables, and applies the c(L) fitted over
// the whole dataset afterwards (Drain), with the same sums in the same
// order as RemainingColdWork.
type DrainTerms struct {
	Run       string
	ChangeS   float64
	RateAfter float64
	Points    []DrainTermPoint
	// Degraded and DegradedKnown are Drain's.
	Degraded, DegradedKnown bool
}

// DrainTermPoint is one sample time of DrainTerms. Turns[i] and Tokens[i]
// are the i-th counted session's remaining turns and their total context,
// in session arrival order.
type DrainTermPoint struct {
	T        float64
	Sessions int
	Skipped  int
	Turns    []float64
	Tokens   []float64
}

// Drain applies the cost fit: W(t) at every sample time and its slope, as
// RemainingColdWork computes them.
func (d DrainTerms) Drain(fit CostFit) Drain {
	out := Drain{Run: d.Run, ChangeS: d.ChangeS, RateAfter: d.RateAfter, SlopePerHour: math.NaN(), SEPerHour: math.NaN(),
		Degraded: d.Degraded, DegradedKnown: d.DegradedKnown}
	for _, tp := range d.Points {
		p := DrainPoint{T: tp.T, Sessions: tp.Sessions, Skipped: tp.Skipped}
		for i, m := range tp.Turns {
			p.ColdWorkS += m*fit.A + fit.B*tp.Tokens[i]
		}
		out.Points = append(out.Points, p)
	}
	ts := make([]float64, len(out.Points))
	ys := make([]float64, len(out.Points))
	for k, p := range out.Points {
		ts[k], ys[k] = p.T/3600, p.ColdWorkS
	}
	out.SlopePerHour, out.SEPerHour = olsSlope(ts, ys)
	return out
}
