package stats

import "math"

// The degraded regime of §4 is a low hit ratio and a working set beyond
// the KV pool and a backlog: the sessions in the system keep their
// prefixes evicting one another. A hit ratio can be low without that
// (a workload that reuses little, a lost cache count), so beside every
// hit-ratio verdict stands a check of the mechanism.
const (
	// MechanismDemandRatio is the resident demand over the pool, D/C
	// averaged over the last 5 minutes, at which the working set no
	// longer fits: 1 (§4: 1.4× at the collapse, 4.8× at the end; the
	// twins peak at 0.83).
	MechanismDemandRatio = 1.0
	// MechanismBacklog is how many times the reference level of sessions
	// in the system (the healthy twin's at the end, else the run's own
	// before its trigger) the sessions at the end must be to count as a
	// backlog: 2 (§3: 109–175 against the twins' 5–9).
	MechanismBacklog = 2.0
	// PreTriggerS is the length of the window whose sessions and D/C are a
	// run's own level before its trigger: 5 minutes.
	PreTriggerS = AnalysisWindowS
)

// MechanismStatus says whether a run that ended degraded shows the
// mechanism of the degraded regime.
type MechanismStatus string

// Mechanism statuses; "" for a run that did not end degraded (nothing to
// check).
const (
	MechanismPresent MechanismStatus = "present" // D/C ≥ 1 and a backlog
	MechanismAbsent  MechanismStatus = "absent"  // one of them known not to hold
	MechanismUnknown MechanismStatus = "unknown" // neither known not to hold, one unknown
)

// Mechanism sets a run's resident demand and sessions in the system at its
// end beside its own level before the trigger and its twin's.
type Mechanism struct {
	// DemandRatio is the mean D/C over the last 5 minutes, Sessions the
	// mean sessions in the system over the same (RunSummary.EndSessions).
	DemandRatio float64
	Sessions    float64
	// PreDemandRatio and PreSessions are the run's own level before its
	// trigger (RunSummary.PreSessions); NaN without one.
	PreDemandRatio float64
	PreSessions    float64
	// Twin names the run's twin (the untriggered run of its pair), "" when
	// it has none; TwinDemandRatio and TwinSessions are the twin's at the
	// end (NaN without a twin).
	Twin            string
	TwinDemandRatio float64
	TwinSessions    float64
	// Reference is the level the backlog is measured against:
	// TwinSessions when the twin ended healthy (ReferenceFrom "twin"), else
	// PreSessions ("pre-trigger"); NaN ("") when neither is known.
	Reference     float64
	ReferenceFrom string
	// BeyondPool is DemandRatio ≥ MechanismDemandRatio and Backlog is
	// Sessions ≥ MechanismBacklog·Reference; each nil when unknown.
	BeyondPool *bool
	Backlog    *bool
	// Status is set for a run whose verdict is persistent or partial;
	// unknown for a run cut short, whose end figures describe an earlier
	// time.
	Status MechanismStatus
}

// NewMechanism checks s against the mechanism of the degraded regime; twin
// is the summary of its twin, nil when it has none.
func NewMechanism(s RunSummary, twin *RunSummary) Mechanism {
	nan := math.NaN()
	m := Mechanism{DemandRatio: s.EndDemandRatio, Sessions: s.EndSessions, PreDemandRatio: s.PreDemandRatio, PreSessions: s.PreSessions,
		TwinDemandRatio: nan, TwinSessions: nan, Reference: nan}
	if twin != nil {
		m.Twin, m.TwinDemandRatio, m.TwinSessions = twin.Run, twin.EndDemandRatio, twin.EndSessions
	}
	switch {
	case twin != nil && twin.Verdict.EndedHealthy() && !math.IsNaN(twin.EndSessions):
		m.Reference, m.ReferenceFrom = twin.EndSessions, "twin"
	case !math.IsNaN(s.PreSessions):
		m.Reference, m.ReferenceFrom = s.PreSessions, "pre-trigger"
	}
	if !math.IsNaN(m.DemandRatio) {
		m.BeyondPool = new(m.DemandRatio >= MechanismDemandRatio)
	}
	if !math.IsNaN(m.Sessions) && !math.IsNaN(m.Reference) {
		m.Backlog = new(m.Sessions >= MechanismBacklog*m.Reference)
	}
	if !s.Verdict.EndedDegraded() {
		return m
	}
	switch {
	case s.CutShort:
		m.Status = MechanismUnknown
	case m.BeyondPool != nil && !*m.BeyondPool, m.Backlog != nil && !*m.Backlog:
		m.Status = MechanismAbsent
	case m.BeyondPool != nil && m.Backlog != nil:
		m.Status = MechanismPresent
	default:
		m.Status = MechanismUnknown
	}
	return m
}

// preTrigger returns the run's own level before its trigger: of the
// 5-minute windows ending at the trigger's start, stepped back by 5
// minutes (those starting in the run's first 5 minutes, its warm-up, left
// out when a later one exists), the one with the fewest sessions in the
// system on average, with its mean D/C (NaN when C is unknown). Both are
// NaN for a run without a trigger start at least 5 minutes in.
func (x *RunIndex) preTrigger() (sessions, demandRatio float64) {
	sessions, demandRatio = math.NaN(), math.NaN()
	ts := x.Data.Run.TriggerStartS
	if ts == nil || *ts < PreTriggerS || len(x.Data.Sessions) == 0 {
		return
	}
	var ws []Window
	for end := *ts; end-PreTriggerS >= -1e-9; end -= PreTriggerS {
		ws = append(ws, Window{Start: end - PreTriggerS, End: end})
	}
	if len(ws) > 1 && ws[len(ws)-1].Start < PreTriggerS {
		ws = ws[:len(ws)-1]
	}
	best := Window{}
	for _, w := range ws {
		if n := x.Population.Mean(w); math.IsNaN(sessions) || n < sessions {
			sessions, best = n, w
		}
	}
	if c, ok := x.KVPool(); ok && len(x.Data.Turns) > 0 {
		demandRatio = x.Demand.Mean(best) / c
	}
	return sessions, demandRatio
}
