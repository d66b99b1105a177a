package stats

import "math"

// Verdict is a run's outcome in the report's overview: what happened to
// the run after its trigger, in the paper's terms (§3, §6). The verdicts
// of a judged run are defined once, here; the report's overview, Table 3,
// findings, compare and check all read them.
//
// Windows are the 5-minute analysis windows aligned to the trigger's end
// (§3); a window is degraded when its token-weighted hit ratio is below
// DegradedHit (0.5). The reference time is the trigger's end (a twin's
// trigger slot), else the run's alignment time. The end hit ratio is over
// the last 10 minutes (EndHitS).
//
//   - never-degraded: no window at or after the reference time was
//     degraded, the run was not collapsed when control began, and its end
//     hit ratio is at least RecoveredHit (0.8).
//   - recovered-alone: degraded at or after the reference time (or
//     collapsed when control began), then recovered by the recovery rule
//     below, with no controller acting before the recovery (no control,
//     control kind none, or a control that began after it). DegradedFromS
//     and RecoveredAtS say how long it was degraded.
//   - recovered-under-control: the same, with a controller (control kind
//     other than none) that began before the recovery.
//   - persistent: every window from the first degraded one at or after the
//     reference time to the end of the run is degraded (§3). A controlled
//     run that stays degraded is persistent under control.
//   - partial: judged, neither persistent nor recovered nor never degraded:
//     the end hit ratio is below 0.8, or the run degraded and the recovery
//     rule does not hold (Recovery.Reason says which part).
//   - unknown, no-turns, uncached, cache-unreported: not judged (see the
//     constants).
//
// The recovery rule (RunIndex.RecoveryFrom), from a start time s (the
// control start for a run collapsed when control began, else the start of
// its first degraded window): the run recovered at the first minute
// t = s + k·60 s such that the 5-minute window [t, t+5 min) has a hit ratio
// of at least RecoveredHit, no 5-minute window starting at a whole minute
// after s from t on is degraded, the hit ratio over [t, end) is at least
// RecoveredHit, and the run lasts at least FollowUpS (10 minutes) past t;
// and then the end hit ratio is at least RecoveredHit and at least
// CohortServed (half) of the sessions arriving in the 20 minutes after s
// (CohortS) completed by the run's end, of those that arrived at least
// CohortFinishS (20 minutes) before it (none asked: the hit ratio decides). A dip of a window to between 0.5
// and 0.8 after the recovery does not undo it; a degraded window does.
type Verdict string

// Verdicts.
const (
	VerdictNeverDegraded         Verdict = "never-degraded"
	VerdictRecoveredAlone        Verdict = "recovered-alone"
	VerdictRecoveredUnderControl Verdict = "recovered-under-control"
	VerdictPersistent            Verdict = "persistent" // persistently degraded (§3)
	VerdictPartial               Verdict = "partial"
	// VerdictUnknown: not judged though it has turns and cached tokens: the
	// run is shorter than the end window (its last 10 minutes are its cold
	// start), no turn completed in its last 10 minutes (cut short, and not
	// persistent), its trigger never ran, or no 5-minute window with a
	// completed turn starts after the trigger's end.
	VerdictUnknown Verdict = "unknown"
	// VerdictNoTurns: the gateway log holds no turn, completed or failed
	// (an empty log, a run that never started): every measure is unknown.
	VerdictNoTurns  Verdict = "no-turns"
	VerdictUncached Verdict = "uncached" // prefix caching off: no regime to classify
	// VerdictCacheUnreported: no turn carried a cached-token count
	// (runs.cache_reported false), so there is no hit ratio to classify.
	VerdictCacheUnreported Verdict = "cache-unreported"
)

// CohortServed is the share of the cohort arriving in the 20 minutes after
// the recovery search starts (CohortS) that must have completed by the
// run's end for a recovery to count: at least half. Under a persistent
// collapse the paper's cohorts complete 0–7%; recovered arms 50–100%.
// CohortFinishS is the time a session of the cohort is given to finish:
// sessions arriving later than 20 minutes before the run's end are not
// asked (in §6, the cohort of minutes 20–40 had until minute 60).
const (
	CohortServed  = 0.5
	CohortFinishS = 1200.0
)

// Verdicts lists every verdict: the judged ones from the best outcome to
// the worst, then the ones that judge nothing.
var Verdicts = []Verdict{
	VerdictNeverDegraded, VerdictRecoveredAlone, VerdictRecoveredUnderControl, VerdictPartial, VerdictPersistent,
	VerdictUnknown, VerdictNoTurns, VerdictCacheUnreported, VerdictUncached,
}

// JudgedVerdicts are the verdicts of a judged run, best outcome first.
var JudgedVerdicts = Verdicts[:5]

// Judged reports whether v is the verdict of a judged run.
func (v Verdict) Judged() bool {
	for _, j := range JudgedVerdicts {
		if v == j {
			return true
		}
	}
	return false
}

// EndedDegraded reports whether v says the run ended degraded: persistent
// or partial.
func (v Verdict) EndedDegraded() bool { return v == VerdictPersistent || v == VerdictPartial }

// EndedHealthy reports whether v says the run ended healthy: never
// degraded, or recovered (alone or under control).
func (v Verdict) EndedHealthy() bool {
	return v == VerdictNeverDegraded || v == VerdictRecoveredAlone || v == VerdictRecoveredUnderControl
}

// Recovered reports whether v is a recovery, alone or under control.
func (v Verdict) Recovered() bool {
	return v == VerdictRecoveredAlone || v == VerdictRecoveredUnderControl
}

// controlActs reports whether the run has a controller (a control kind
// other than none) that began at or before t.
func controlActs(kind string, start *float64, t float64) bool {
	return kind != "" && kind != "none" && start != nil && *start <= t+1e-9
}

// judge sets s.Verdict, s.DegradedFromS and s.RecoveredAtS of a run whose
// summary has its regime, end figures and control fields set.
func (x *RunIndex) judge(s *RunSummary, reg Regime) {
	r := &x.Data.Run
	switch {
	case len(x.Data.Turns) == 0:
		s.Verdict = VerdictNoTurns
		return
	case !r.PrefixCaching:
		s.Verdict = VerdictUncached
		return
	case !CacheKnown(r):
		s.Verdict = VerdictCacheUnreported
		return
	case s.Short || s.TriggerAfterEnd || s.NoWindowAfter:
		s.Verdict = VerdictUnknown
		return
	}
	first := reg.FirstDegradedS
	if s.CollapsedAtControl {
		// The window that found it collapsed, [c − 5 min, c), unless an
		// analysis window showed it earlier.
		if c := s.ControlStartS - AnalysisWindowS; math.IsNaN(first) || c < first {
			first = c
		}
	}
	s.DegradedFromS = first
	switch {
	case s.Persistent:
		s.Verdict = VerdictPersistent
		return
	case math.IsNaN(s.EndHit):
		// Not degraded to the end as far as the windows show, but no turn
		// in the last 10 minutes to say how it ended.
		s.Verdict = VerdictUnknown
		return
	case math.IsNaN(first):
		s.Verdict = VerdictPartial
		if s.EndHit >= RecoveredHit {
			s.Verdict = VerdictNeverDegraded
		}
		return
	}
	from := reg.FirstDegradedS
	if s.CollapsedAtControl {
		from = s.ControlStartS
	}
	rec := s.Recovery
	if rec == nil {
		rr := x.RecoveryFrom(from)
		rec = &rr
	}
	s.RecoveryReason = rec.Reason
	if rec.Status != Recovered {
		s.Verdict = VerdictPartial
		return
	}
	s.RecoveredAtS = rec.AtS
	s.Verdict = VerdictRecoveredAlone
	if controlActs(r.ControlKind, r.ControlStartS, rec.AtS) {
		s.Verdict = VerdictRecoveredUnderControl
	}
}
