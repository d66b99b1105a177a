package stats

import (
	"fmt"
	"math"
)

// RecoveryStatus says how a recovery search ended.
type RecoveryStatus string

// Recovery outcomes.
const (
	Recovered            RecoveryStatus = "recovered"
	NotRecovered         RecoveryStatus = "not recovered"
	InsufficientFollowUp RecoveryStatus = "insufficient follow-up"
)

// Recovery is how a degraded run came back, or did not (§6, Table 3; the
// rule is Verdict's).
type Recovery struct {
	// FromS is where the search started: the control start for a run
	// collapsed when control began, else its first degraded window.
	FromS  float64
	Status RecoveryStatus
	// AtS is the start of the window from which the hit ratio recovered
	// (NaN when it did not); Minutes is AtS − FromS in whole minutes (0:
	// within the first window, which the paper prints as "<5"), NaN unless
	// Status is Recovered.
	AtS     float64
	Minutes float64
	// TailHit is the hit ratio over [AtS, end) and LowestHit the lowest
	// hit ratio of the 5-minute windows from AtS on; NaN unless the hit
	// ratio recovered (Status Recovered, or NotRecovered for the cohort or
	// the end).
	TailHit   float64
	LowestHit float64
	// Cohort is the completion by the run's end of the sessions arriving
	// in [FromS, min(FromS + CohortS, end − CohortFinishS)): the cohort of
	// Table 3, cut to the sessions that had CohortFinishS to finish. A
	// cohort without sessions (a run ending within 20 minutes of FromS)
	// asks nothing.
	Cohort Proportion
	// Reason says, for a run not recovered, which part of the rule failed;
	// "" when recovered.
	Reason string
}

// Recovery is RecoveryFrom(c) for a control that started at c (§6).
func (x *RunIndex) Recovery(c float64) Recovery { return x.RecoveryFrom(c) }

// RecoveryFrom searches the recovery of a run degraded from s: the
// 5-minute windows [s + k·60 s, s + k·60 s + 300 s), k = 0, 1, ..., that
// end by the run's end are examined, and the run recovered at the first k
// whose window has a hit ratio ≥ RecoveredHit, after which no window is
// degraded (windows without completed turns are skipped), over the rest
// of the run the hit ratio is ≥ RecoveredHit, and the run lasts at least
// FollowUpS (10 minutes) past s + k·60 s. A recovery so found counts when
// the end hit ratio (last 10 minutes) is ≥ RecoveredHit and at least
// CohortServed of the sessions arriving in [s, s + CohortS) that had
// CohortFinishS to finish before the run's end completed (Recovery.Cohort);
// otherwise the status is NotRecovered with the reason. When the only
// recoveries lack 10 minutes of follow-up, or the run ends within 10
// minutes of s, the status is InsufficientFollowUp.
func (x *RunIndex) RecoveryFrom(s float64) Recovery {
	nan := math.NaN()
	r := Recovery{FromS: s, AtS: nan, Minutes: nan, TailHit: nan, LowestHit: nan}
	r.Cohort = x.CohortCompletion(Window{Start: s, End: math.Min(s+CohortS, x.End-CohortFinishS)})
	ws := x.Turns.Windows(SlidingWindows(s, x.End, AnalysisWindowS, RecoveryStepS))
	// clean[k]: no window from k on is degraded; lowest[k]: their lowest
	// hit ratio.
	clean := make([]bool, len(ws)+1)
	lowest := make([]float64, len(ws)+1)
	clean[len(ws)], lowest[len(ws)] = true, nan
	for k := len(ws) - 1; k >= 0; k-- {
		clean[k] = clean[k+1] && !Degraded(ws[k])
		lowest[k] = minNaN(lowest[k+1], ws[k].HitRatio)
	}
	late := false // a recovery without its follow-up
	for k, w := range ws {
		if !(w.HitRatio >= RecoveredHit) || !clean[k] {
			continue
		}
		tail := x.Turns.HitRatio(Window{Start: w.Start, End: x.End})
		if !(tail >= RecoveredHit) {
			continue
		}
		if w.Start+FollowUpS > x.End+1e-9 {
			late = true
			break
		}
		r.AtS, r.TailHit, r.LowestHit = w.Start, tail, lowest[k]
		break
	}
	switch {
	case !math.IsNaN(r.AtS):
	case late || s+FollowUpS > x.End+1e-9:
		r.Status = InsufficientFollowUp
		r.Reason = fmt.Sprintf("less than %.0f minutes of the run after a window with hit ratio ≥ %.1f", FollowUpS/60, RecoveredHit)
		return r
	default:
		r.Status = NotRecovered
		r.Reason = fmt.Sprintf("no window with hit ratio ≥ %.1f after which none is degraded and the rest of the run averages ≥ %.1f", RecoveredHit, RecoveredHit)
		return r
	}
	end := x.Turns.HitRatio(x.EndWindow(EndHitS))
	switch {
	case !(end >= RecoveredHit):
		r.Status = NotRecovered
		r.Reason = fmt.Sprintf("end hit ratio %.2f below %.1f", end, RecoveredHit)
	case r.Cohort.N > 0 && r.Cohort.Fraction < CohortServed:
		r.Status = NotRecovered
		r.Reason = fmt.Sprintf("hit ratio back from minute %.0f, but %d of the %d sessions arriving in minutes %.0f–%.0f completed (%.0f%%, below %.0f%%)",
			r.AtS/60, r.Cohort.K, r.Cohort.N, s/60, math.Min(s+CohortS, x.End-CohortFinishS)/60, 100*r.Cohort.Fraction, 100*CohortServed)
	default:
		r.Status = Recovered
		r.Minutes = math.Round((r.AtS - s) / 60)
		return r
	}
	return r
}
