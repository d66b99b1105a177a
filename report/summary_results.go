package report

import (
	"github.com/outlast-dev/outlast/internal/jsonnum"
	"github.com/outlast-dev/outlast/stats"
)

// The results of summary.json's experiments, by design: Table 2's pairs,
// Table 3's arms, the cost fit and drain bracket, Figure 6, the verdict
// counts and the regime map.

// SummaryPair is one row of Table 2.
type SummaryPair struct {
	Seed  int64          `json:"seed"`
	Twin  SummaryPairArm `json:"twin"`
	Burst SummaryPairArm `json:"burst"`
}

// SummaryPairArm is one arm of a Table 2 row.
type SummaryPairArm struct {
	Run         string        `json:"run"`
	EndHitRatio jsonnum.Float `json:"end_hit_ratio"`
	EndSessions jsonnum.Float `json:"end_sessions"`
	// Persistent is null for a run whose persistence was not judged
	// (stats.RunSummary.Judged): false would count it healthy.
	Persistent *bool `json:"persistent"`
}

// SummarySign is the sign test over discordant pairs of Table 2.
type SummarySign struct {
	NDiscordant int           `json:"n_discordant"`
	BurstOnly   int           `json:"burst_only"`
	TwinOnly    int           `json:"twin_only"`
	Both        int           `json:"both"`
	Neither     int           `json:"neither"`
	P           jsonnum.Float `json:"p"`
	// Pairs counts the pairs of two judged runs the test is over, and
	// Unjudged the pairs left out, a run's persistence unknown.
	Pairs    int `json:"pairs"`
	Unjudged int `json:"unjudged"`
}

// SummaryArm is one row of Table 3.
type SummaryArm struct {
	Arm           string        `json:"arm"`
	Runs          []string      `json:"runs"`
	Seeds         []int64       `json:"seeds"`
	Collapsed     int           `json:"collapsed"`
	Recovered     int           `json:"recovered"`
	RecoverMin    jsonnum.Float `json:"recover_min"`
	RecoverMax    jsonnum.Float `json:"recover_max"`
	RecoverLabel  string        `json:"recover_label"`
	EndHitMin     jsonnum.Float `json:"end_hit_min"`
	EndHitMax     jsonnum.Float `json:"end_hit_max"`
	CohortDoneMin jsonnum.Float `json:"cohort_done_min"`
	CohortDoneMax jsonnum.Float `json:"cohort_done_max"`
}

// SummaryPairwise is the exact paired (McNemar) test of recovery between
// two arms over the seeds collapsed in every arm.
type SummaryPairwise struct {
	ArmA    string        `json:"arm_a"`
	ArmB    string        `json:"arm_b"`
	Seeds   int           `json:"seeds"`
	Both    int           `json:"both"`
	AOnly   int           `json:"a_only"`
	BOnly   int           `json:"b_only"`
	Neither int           `json:"neither"`
	P       jsonnum.Float `json:"p"`
}

// SummaryFit is a cold-turn cost fit c(L) = a + b·L (seconds, seconds per
// token) with S and 1/S for the shape of the runs it was fitted on.
type SummaryFit struct {
	A   jsonnum.Float `json:"a"`
	B   jsonnum.Float `json:"b"`
	SEA jsonnum.Float `json:"se_a"`
	SEB jsonnum.Float `json:"se_b"`
	R2  jsonnum.Float `json:"r2"`
	N   int           `json:"n"`
	// S is the engine-seconds of one all-miss session of Shape, DrainRate
	// 1/S in sessions/s.
	S         jsonnum.Float `json:"S"`
	DrainRate jsonnum.Float `json:"drain_rate"`
	Shape     string        `json:"shape"`
	// Source is "calibration" (caching-off runs) or "all-miss" (the
	// alternative fit on degraded cache-on runs).
	Source string   `json:"source"`
	Runs   []string `json:"runs"`
}

// SummaryShape is S and 1/S for one workload shape.
type SummaryShape struct {
	Shape     string        `json:"shape"`
	Turns     int64         `json:"turns"`
	Initial   int64         `json:"initial_tokens"`
	Growth    int64         `json:"growth_tokens"`
	S         jsonnum.Float `json:"S"`
	DrainRate jsonnum.Float `json:"drain_rate"`
	Runs      []string      `json:"runs"`
}

// SummarySlope is the drift of one run's remaining cold work.
type SummarySlope struct {
	Run          string        `json:"run"`
	RateAfter    jsonnum.Float `json:"rate_after"`
	SlopePerHour jsonnum.Float `json:"slope_per_hour"`
	SEPerHour    jsonnum.Float `json:"se_per_hour"`
	Points       int           `json:"points"`
	// CILo and CIHi bound the slope's 95% confidence interval (slope ±
	// t(points − 2)·SE; null with fewer than 3 points), and Verdict is
	// drains (below 0), grows (above 0) or undecided (containing 0).
	CILo    jsonnum.Float `json:"ci_lo"`
	CIHi    jsonnum.Float `json:"ci_hi"`
	Verdict string        `json:"verdict"`
	// DegradedAtChange says the run was degraded when the rate changed
	// (the 5 minutes before it had a hit ratio below 0.5); null when no
	// turn completed then.
	DegradedAtChange *bool `json:"degraded_at_change"`
}

// SummaryBracket is the measured drain break-even beside 1/S, from the
// runs degraded when the rate changed.
type SummaryBracket struct {
	LargestDraining   jsonnum.Float      `json:"largest_draining"`
	LargestNotGrowing jsonnum.Float      `json:"largest_not_growing"`
	SmallestGrowing   jsonnum.Float      `json:"smallest_growing"`
	ModelRate         jsonnum.Float      `json:"model_rate"`
	Rates             []SummaryDrainRate `json:"rates"`
	// LeftOut are the runs at no rate with a run the bracket used.
	LeftOut []SummaryLeftOut `json:"left_out"`
}

// SummaryDrainRate is the verdict of one arrival rate after the change.
type SummaryDrainRate struct {
	Rate jsonnum.Float `json:"rate"`
	// Runs are the runs the verdict used (degraded when the rate
	// changed, with a confidence interval), Slopes theirs, ascending.
	Runs   []string        `json:"runs"`
	Slopes []jsonnum.Float `json:"slopes_per_hour"`
	// Verdict is grows (every run's interval above 0), drains (every
	// run's below 0) or undecided.
	Verdict string `json:"verdict"`
	// LeftOut are the runs at this rate the verdict did not use.
	LeftOut []SummaryLeftOut `json:"left_out"`
}

// SummaryLeftOut is a run left out of a result, and why.
type SummaryLeftOut struct {
	Run    string `json:"run"`
	Reason string `json:"reason"`
}

// SummaryWaitPoint is one run of Figure 6.
type SummaryWaitPoint struct {
	Run         string        `json:"run"`
	Arm         string        `json:"arm"`
	P90WaitS    jsonnum.Float `json:"p90_first_turn_wait_s"`
	Sessions    int           `json:"sessions"`
	Censored    int           `json:"censored"`
	EndHitRatio jsonnum.Float `json:"end_hit_ratio"`
	// EndTTFTP90S is the run's TTFT p90 over the last 10 minutes, beside
	// the wait.
	EndTTFTP90S jsonnum.Float `json:"end_ttft_p90_s"`
}

// SummaryCount counts the verdicts of the runs of one trigger and control
// (of one variant, in a replay).
type SummaryCount struct {
	Trigger               string `json:"trigger"`
	Control               string `json:"control"`
	Runs                  int    `json:"runs"`
	NeverDegraded         int    `json:"never_degraded"`
	RecoveredAlone        int    `json:"recovered_alone"`
	RecoveredUnderControl int    `json:"recovered_under_control"`
	Partial               int    `json:"partial"`
	Persistent            int    `json:"persistent"`
	// NotJudged counts the runs with a verdict that judges nothing
	// (unknown, no-turns, uncached, cache-unreported).
	NotJudged int `json:"not_judged"`
}

// add counts one run of verdict v.
func (c *SummaryCount) add(v stats.Verdict) {
	c.Runs++
	switch v {
	case stats.VerdictNeverDegraded:
		c.NeverDegraded++
	case stats.VerdictRecoveredAlone:
		c.RecoveredAlone++
	case stats.VerdictRecoveredUnderControl:
		c.RecoveredUnderControl++
	case stats.VerdictPartial:
		c.Partial++
	case stats.VerdictPersistent:
		c.Persistent++
	default:
		c.NotJudged++
	}
}

// SummaryRegimePoint is one run on the regime map.
type SummaryRegimePoint struct {
	Run string `json:"run"`
	// OfferedLoad is λ·T·Z·L̄/C, the workload's offered resident demand
	// over the KV pool (Little's law without the server's response time),
	// after the trigger: the rate after a rate change, the mix after a mix
	// shift. It is the same for every arm of one workload.
	OfferedLoad     jsonnum.Float `json:"offered_load"`
	PeakDemandRatio jsonnum.Float `json:"peak_demand_ratio"`
	// DrainLoad is where λ = 1/S falls on the same axis for this run's
	// workload.
	DrainLoad jsonnum.Float `json:"drain_load"`
	Verdict   string        `json:"verdict"`
	// ShapeContext says L̄ is the workload shape's mean context; false:
	// the manifest gives no shape, and L̄ is the run's own mean context.
	ShapeContext bool `json:"shape_context"`
}
