package report

import (
	"fmt"
	"math"

	"github.com/outlast-dev/outlast/internal/jsonnum"
	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// SummaryMechanism sets a run's resident demand and sessions in the
// system at its end beside its own level before the trigger and its
// twin's (stats.Mechanism): the mechanism of the degraded regime (§4) is
// a working set beyond the pool and a backlog, not a low hit ratio alone.
type SummaryMechanism struct {
	// Status is present, absent or unknown for a run whose verdict is
	// persistent or partial, "" for any other.
	Status string `json:"status"`
	// DemandRatioEnd is the mean D/C over the last 5 minutes, SessionsEnd
	// the mean sessions in the system over the same (end_sessions).
	DemandRatioEnd jsonnum.Float `json:"demand_ratio_end"`
	SessionsEnd    jsonnum.Float `json:"sessions_end"`
	// DemandRatioPre and SessionsPre are the run's own level before its
	// trigger (the 5-minute window before its start with the fewest
	// sessions, the warm-up left out); null without one.
	DemandRatioPre jsonnum.Float `json:"demand_ratio_pre"`
	SessionsPre    jsonnum.Float `json:"sessions_pre"`
	// Twin is the untriggered run of its pair ("" without one), with its
	// end figures.
	Twin               string        `json:"twin"`
	TwinDemandRatioEnd jsonnum.Float `json:"twin_demand_ratio_end"`
	TwinSessionsEnd    jsonnum.Float `json:"twin_sessions_end"`
	// ReferenceSessions is what the backlog is measured against: the
	// twin's end sessions when the twin ended healthy (ReferenceFrom
	// "twin"), else the pre-trigger level ("pre-trigger").
	ReferenceSessions jsonnum.Float `json:"reference_sessions"`
	ReferenceFrom     string        `json:"reference_from"`
	// BeyondPool is demand_ratio_end ≥ 1, Backlog sessions_end ≥ 2 ×
	// reference_sessions; null when unknown.
	BeyondPool *bool `json:"beyond_pool"`
	Backlog    *bool `json:"backlog"`
}

// mechanisms checks every run against the mechanism of the degraded
// regime, with the twin of its pair when it has one.
func (b *builder) mechanisms() {
	for _, e := range b.exps {
		twins := map[int64]*runInfo{}
		if e.design == schema.DesignPaired {
			twin := twinArmOf(e)
			for _, r := range e.runs {
				if r.run.Arm == twin && r.run.Seed != nil {
					twins[*r.run.Seed] = r
				}
			}
		}
		for _, r := range e.runs {
			var tw *stats.RunSummary
			if t := twins[seedOf(r)]; t != nil && t != r && r.run.Seed != nil && r.run.Arm == schema.ArmBurst {
				tw = &t.sum
			}
			r.mech = stats.NewMechanism(r.sum, tw)
			r.row.Mechanism = summaryMechanism(r.mech)
		}
	}
}

// seedOf is a run's seed, -1 without one.
func seedOf(r *runInfo) int64 {
	if r.run.Seed == nil {
		return -1
	}
	return *r.run.Seed
}

func summaryMechanism(m stats.Mechanism) SummaryMechanism {
	return SummaryMechanism{
		Status: string(m.Status), DemandRatioEnd: jsonnum.Float(m.DemandRatio), SessionsEnd: jsonnum.Float(m.Sessions),
		DemandRatioPre: jsonnum.Float(m.PreDemandRatio), SessionsPre: jsonnum.Float(m.PreSessions),
		Twin: m.Twin, TwinDemandRatioEnd: jsonnum.Float(m.TwinDemandRatio), TwinSessionsEnd: jsonnum.Float(m.TwinSessions),
		ReferenceSessions: jsonnum.Float(m.Reference), ReferenceFrom: m.ReferenceFrom, BeyondPool: m.BeyondPool, Backlog: m.Backlog,
	}
}

// mechanismCell is the overview's Mechanism column: the status of a run
// that ended degraded, missing for any other.
func mechanismCell(m stats.Mechanism) document.Cell {
	if m.Status == "" {
		return document.Missing()
	}
	return document.Text(string(m.Status))
}

// mechanismFinding warns of the persistent runs of e whose hit ratio
// stayed low without the mechanism of the degraded regime, naming each
// with its numbers; a run whose hit ratio never reached 0.8 anywhere is
// told by low-peak-hit instead (lowPeak), once.
func (b *builder) mechanismFinding(e *experiment) {
	var absent []*runInfo
	for _, r := range e.runs {
		if r.sum.Verdict == stats.VerdictPersistent && r.mech.Status == stats.MechanismAbsent && !lowPeak(r) {
			absent = append(absent, r)
		}
	}
	if len(absent) == 0 {
		return
	}
	nums := numbers{"runs": float64(len(absent))}
	for _, r := range absent {
		m := r.mech
		nums[r.name()+".demand_ratio_end"], nums[r.name()+".sessions_end"] = m.DemandRatio, m.Sessions
		nums[r.name()+".reference_sessions"], nums[r.name()+".kv_usage_end_mean"] = m.Reference, r.eng.KVUsageEndMean
	}
	b.found(e, "mechanism-absent", true, runNames(absent), nums,
		fmt.Sprintf("%s persistent by the hit ratio, but without the mechanism of the degraded regime (D/C ≥ %s over the last 5 minutes and at least %s× the sessions in the system of the healthy twin, else of the run before its trigger, §4): %s. A low hit ratio without a working set beyond the pool and a backlog is not the metastable regime: check the workload's reuse and the cache counts.",
			pluralVerb(len(absent)), document.Num(stats.MechanismDemandRatio, -1).Display(), document.Num(stats.MechanismBacklog, -1).Display(),
			listRuns(absent, mechanismText)))
}

// mechanismText is a run's mechanism in words: "D/C 0.40, 40.0 sessions
// against 8.0 (twin), KV usage 0.50".
func mechanismText(r *runInfo) string {
	m := r.mech
	s := fmt.Sprintf("D/C %s, %s sessions", fmtNum(m.DemandRatio, 2), fmtNum(m.Sessions, 1))
	if m.ReferenceFrom != "" {
		s += fmt.Sprintf(" against %s (%s)", fmtNum(m.Reference, 1), m.ReferenceFrom)
	}
	if kv := r.eng.KVUsageEndMean; !math.IsNaN(kv) {
		s += fmt.Sprintf(", engine KV usage %s over the last 10 minutes", fmtNum(kv, 2))
	}
	return s
}
