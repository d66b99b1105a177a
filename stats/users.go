package stats

import (
	"iter"
	"math"
	"sort"

	"github.com/outlast-dev/outlast/schema"
)

// SessionStatusDone is the status of a session that finished.
const SessionStatusDone = "done"

// Proportion is k successes out of n; Fraction is k/n, NaN when n is 0.
type Proportion struct {
	K        int
	N        int
	Fraction float64
}

// NewProportion returns k of n with its fraction.
func NewProportion(k, n int) Proportion {
	p := Proportion{K: k, N: n, Fraction: math.NaN()}
	if n > 0 {
		p.Fraction = float64(k) / float64(n)
	}
	return p
}

// finished reports whether a session finished (status done, with an end_s)
// by time end.
func finished(s *schema.Session, end float64) bool {
	return s.Status == SessionStatusDone && s.EndS != nil && *s.EndS <= end
}

// CohortCompletion is the completion of an arrival cohort (§3, "the users";
// Table 3's "cohort done"; Figure 8): of the sessions arriving in w, the
// share that finished (status done) by the end of the run. Aborted and open
// sessions are not done.
func (x *RunIndex) CohortCompletion(w Window) Proportion {
	k, n := 0, 0
	for _, si := range x.sessions {
		s := &x.Data.Sessions[si]
		if !w.Contains(s.ArriveS) {
			continue
		}
		n++
		if finished(s, x.End) {
			k++
		}
	}
	return NewProportion(k, n)
}

// CohortPoint is one arrival cohort of Figure 8.
type CohortPoint struct {
	Window
	Done Proportion
}

// Cohorts returns the completion of each arrival cohort in ws (Figure 8:
// 5-minute cohorts for 8B, 10-minute for 32B).
func (x *RunIndex) Cohorts(ws []Window) []CohortPoint {
	out := make([]CohortPoint, len(ws))
	for k, w := range ws {
		out[k] = CohortPoint{Window: w, Done: x.CohortCompletion(w)}
	}
	return out
}

// LatencySummary summarizes session latency, arrival to completion (§6,
// "What users see").
type LatencySummary struct {
	// Sessions arrived in the window; Finished of them finished by the end
	// of the run; Unfinished did not and are left out of the quantiles
	// (counted apart, as the paper does: "75 of 349 had not finished").
	Sessions   int
	Finished   int
	Unfinished int
	// MedianS and P90S are quantiles (Quantile, R type 7) of the finished
	// sessions' end_s − arrive_s in seconds; NaN when none finished.
	MedianS float64
	P90S    float64
}

// SessionLatency summarizes arrival → completion of the sessions arriving
// in w.
func (x *RunIndex) SessionLatency(w Window) LatencySummary {
	var lat []float64
	var ls LatencySummary
	for s := range x.arriving(w) {
		ls.Sessions++
		if finished(s, x.End) {
			lat = append(lat, *s.EndS-s.ArriveS)
		}
	}
	ls.Finished = len(lat)
	ls.Unfinished = ls.Sessions - ls.Finished
	ls.MedianS, ls.P90S = medianP90(lat)
	return ls
}

// WaitSummary summarizes the gateway wait of first turns (§6, Figure 6).
type WaitSummary struct {
	// Sessions arrived in the phase. Censored of them never had a first turn
	// sent by the end of the run: their wait counts as end − arrival, a lower
	// bound, so that a gateway holding sessions back is not hidden.
	Sessions int
	Censored int
	// MedianS and P90S are quantiles (R type 7) of the waits in seconds;
	// NaN without sessions.
	MedianS float64
	P90S    float64
}

// FirstTurnWait summarizes the gateway wait of the first turns of sessions
// arriving in phase (Figure 6, "phase-1 first-turn gateway wait, p90"): the
// wait of a session is its turn 0's sent_s minus its ready_s (else the
// session's arrive_s). A session whose turn 0 has no sent_s or was not
// recorded is censored at the run's end.
func (x *RunIndex) FirstTurnWait(phase Window) WaitSummary {
	var waits []float64
	var ws WaitSummary
	for s := range x.arriving(phase) {
		ws.Sessions++
		var t0 *schema.Turn
		for _, ti := range x.turnsBySess[s.Session] {
			if x.Data.Turns[ti].Turn == 0 {
				t0 = &x.Data.Turns[ti]
				break
			}
		}
		if t0 == nil || t0.SentS == nil {
			ws.Censored++
			waits = append(waits, math.Max(0, x.End-s.ArriveS))
			continue
		}
		ready := s.ArriveS
		if t0.ReadyS != nil {
			ready = *t0.ReadyS
		}
		waits = append(waits, math.Max(0, *t0.SentS-ready))
	}
	ws.MedianS, ws.P90S = medianP90(waits)
	return ws
}

// arriving yields the sessions arriving in w, in the index's order.
func (x *RunIndex) arriving(w Window) iter.Seq[*schema.Session] {
	return func(yield func(*schema.Session) bool) {
		for _, si := range x.sessions {
			if s := &x.Data.Sessions[si]; w.Contains(s.ArriveS) && !yield(s) {
				return
			}
		}
	}
}

// medianP90 sorts v and returns its median and 90th percentile (Quantile).
func medianP90(v []float64) (median, p90 float64) {
	sort.Float64s(v)
	return Quantile(v, 0.5), Quantile(v, 0.9)
}

// Quantile returns the p-quantile of sorted (ascending) data with linear
// interpolation between order statistics, h = (n−1)·p (R's default, type
// 7; note gonum's stat.LinInterp is type 4). The median of an even sample
// is the mean of the middle two. NaN for empty data or p outside [0, 1].
func Quantile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	h := float64(n-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i >= n-1 {
		return sorted[n-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}
