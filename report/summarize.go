package report

import (
	"math"

	"github.com/outlast-dev/outlast/internal/jsonnum"
	"github.com/outlast-dev/outlast/stats"
)

// This file converts what the report computes into summary.json's types:
// every jsonnum.Float is made here, so the sections only decide what to
// put in the summary.

// summaryRun is a run's overview row in summary.json.
func summaryRun(r *runInfo) SummaryRun {
	run, s := &r.run, r.sum
	sr := SummaryRun{
		Run: run.Run, Experiment: run.Experiment, Design: run.Design, Arm: run.Arm, Seed: run.Seed,
		Engine: run.EngineName, EngineVersion: run.EngineVersion, Model: run.EngineModel, PrefixCaching: run.PrefixCaching,
		KVPoolTokens: jsonnum.Float(s.KVPoolTokens), ArrivalRate: jsonnum.Float(s.ArrivalRate),
		TriggerKind: run.TriggerKind, TriggerStartS: optFloat(run.TriggerStartS), TriggerEndS: optFloat(run.TriggerEndS),
		ControlKind: run.ControlKind, ControlStartS: jsonnum.Float(s.ControlStartS),
		Verdict: string(s.Verdict), EndHitRatio: jsonnum.Float(s.EndHit), EndSessions: jsonnum.Float(s.EndSessions),
		FirstDegradedS: jsonnum.Float(s.FirstDegradedS), RecoveryMin: jsonnum.Float(s.RecoveryMin),
		MeanContext: jsonnum.Float(s.MeanContext), NStar: jsonnum.Float(s.NStar), PeakDemandRatio: jsonnum.Float(s.PeakDemandRatio),
		CohortDone: jsonnum.Float(s.CohortDone.Fraction), Warnings: nonNil(s.Warnings),
		ManifestSHA256: run.ManifestSHA256, GatewaySHA256: run.GatewaySHA256,
		EngineLogSHA256: run.EngineLogSHA256, MetricsSHA256: run.MetricsSHA256,
	}
	sr.DegradedFromS, sr.RecoveredAtS = jsonnum.Float(s.DegradedFromS), jsonnum.Float(s.RecoveredAtS)
	sr.DegradedMin = jsonnum.Float((s.RecoveredAtS - s.DegradedFromS) / 60)
	sr.RecoveryReason = s.RecoveryReason
	if s.Recovery != nil {
		sr.RecoveryStatus = string(s.Recovery.Status)
		sr.RecoveryLabel = recoveryLabel(*s.Recovery)
	}
	sr.OnsetS = jsonnum.Float(r.onset)
	if r.cacheKnown {
		sr.CacheReported = &r.cacheReported
	}
	sr.EngineHitSource = r.eng.HitSource
	sr.EngineEndHitRatio = jsonnum.Float(r.eng.EndHit)
	sr.KVUsagePeak = jsonnum.Float(r.eng.KVUsagePeak)
	sr.KVUsageEndMean = jsonnum.Float(r.eng.KVUsageEndMean)
	sr.Preemptions = jsonnum.Float(r.eng.Preemptions)
	if a := r.agree; a.Windows > 0 {
		sr.EngineAgreement = &SummaryAgreement{Windows: a.Windows, Differing: a.Differing,
			MeanDiff: jsonnum.Float(a.MeanDiff), MaxAbsDiff: jsonnum.Float(a.MaxAbsDiff), Disagree: a.Disagree}
	}
	sr.GatewayEndS, sr.CutShort = jsonnum.Float(r.gatewayEnd), r.cutShort
	setLatency(&sr.SummaryLatency, r.lat.TurnLatency)
	return sr
}

// pairArm is one arm of a Table 2 row.
func pairArm(a stats.Table2Arm) SummaryPairArm {
	arm := SummaryPairArm{Run: a.Run, EndHitRatio: jsonnum.Float(a.EndHit), EndSessions: jsonnum.Float(a.EndSessions)}
	if a.Judged {
		arm.Persistent = &a.Persistent
	}
	return arm
}

// signSummary is the sign test of Table 2.
func signSummary(t2 stats.Table2) *SummarySign {
	return &SummarySign{NDiscordant: t2.BurstOnly + t2.TwinOnly, BurstOnly: t2.BurstOnly, TwinOnly: t2.TwinOnly,
		Both: t2.Both, Neither: t2.Neither, P: jsonnum.Float(t2.SignP), Pairs: len(t2.Rows) - t2.Unjudged, Unjudged: t2.Unjudged}
}

// summaryArm is one row of Table 3.
func summaryArm(r stats.Table3Row) SummaryArm {
	return SummaryArm{
		Arm: r.Arm, Runs: nonNil(r.Runs), Seeds: nonNil(r.Seeds), Collapsed: r.Collapsed(), Recovered: r.Recovered,
		RecoverMin: jsonnum.Float(r.RecoverMin), RecoverMax: jsonnum.Float(r.RecoverMax), RecoverLabel: recoverRangeLabel(r.RecoverMin, r.RecoverMax),
		EndHitMin: jsonnum.Float(r.EndHitMin), EndHitMax: jsonnum.Float(r.EndHitMax),
		CohortDoneMin: jsonnum.Float(r.CohortDoneMin), CohortDoneMax: jsonnum.Float(r.CohortDoneMax),
	}
}

// pairwiseSummary is the exact paired test of recovery between arms a and
// b; p is NaN without matched seeds.
func pairwiseSummary(a, b string, t stats.Paired2x2, p float64) SummaryPairwise {
	return SummaryPairwise{ArmA: a, ArmB: b, Seeds: t.Both + t.AOnly + t.BOnly + t.Neither,
		Both: t.Both, AOnly: t.AOnly, BOnly: t.BOnly, Neither: t.Neither, P: jsonnum.Float(p)}
}

// fitSummaryOf is a c(L) fit with S and 1/S not yet known.
func fitSummaryOf(fit stats.CostFit, source string) *SummaryFit {
	nan := jsonnum.Float(math.NaN())
	return &SummaryFit{
		A: jsonnum.Float(fit.A), B: jsonnum.Float(fit.B), SEA: jsonnum.Float(fit.SEA), SEB: jsonnum.Float(fit.SEB),
		R2: jsonnum.Float(fit.R2), N: fit.N, S: nan, DrainRate: nan, Source: source, Runs: []string{},
	}
}

// shapeSummary is one workload shape with S and 1/S under fit when ok.
func shapeSummary(label string, shape []int64, fit stats.CostFit, ok bool) *SummaryShape {
	s := &SummaryShape{Shape: label, Turns: int64(len(shape)), Initial: shape[0], S: jsonnum.Float(math.NaN()), DrainRate: jsonnum.Float(math.NaN())}
	if len(shape) > 1 {
		s.Growth = shape[1] - shape[0]
	}
	if ok {
		s.S, s.DrainRate = costSummary(fit.SessionCost(shape))
	}
	return s
}

// costSummary is S, the engine-seconds of one all-miss session, and the
// drain bound 1/S.
func costSummary(sessionCost float64) (s, drainRate jsonnum.Float) {
	if !(sessionCost > 0) {
		// A fit with a negative intercept can sum to no positive cost
		// for short sessions: that is no cost at all, unknown.
		sessionCost = math.NaN()
	}
	return jsonnum.Float(sessionCost), jsonnum.Float(stats.DrainBound(sessionCost))
}

// slopeSummary is the drift of one run's remaining cold work.
func slopeSummary(d stats.Drain) SummarySlope {
	lo, hi := d.SlopeCI()
	s := SummarySlope{Run: d.Run, RateAfter: jsonnum.Float(d.RateAfter), SlopePerHour: jsonnum.Float(d.SlopePerHour),
		SEPerHour: jsonnum.Float(d.SEPerHour), Points: len(d.Points), CILo: jsonnum.Float(lo), CIHi: jsonnum.Float(hi), Verdict: d.Verdict()}
	if d.DegradedKnown {
		s.DegradedAtChange = &d.Degraded
	}
	return s
}

// bracketSummary is the measured drain break-even beside 1/S.
func bracketSummary(b stats.DrainBracket) *SummaryBracket {
	s := &SummaryBracket{
		LargestDraining: jsonnum.Float(b.LargestDraining), LargestNotGrowing: jsonnum.Float(b.LargestNotGrowing),
		SmallestGrowing: jsonnum.Float(b.SmallestGrowing), ModelRate: jsonnum.Float(b.ModelRate), Rates: []SummaryDrainRate{},
		LeftOut: leftOutSummary(b.LeftOut),
	}
	for _, r := range b.Rates {
		slopes := make([]jsonnum.Float, len(r.Slopes))
		for i, v := range r.Slopes {
			slopes[i] = jsonnum.Float(v)
		}
		runs := make([]string, len(r.Runs))
		for i, run := range r.Runs {
			runs[i] = run.Run
		}
		s.Rates = append(s.Rates, SummaryDrainRate{Rate: jsonnum.Float(r.Rate), Runs: runs, Slopes: slopes, Verdict: r.Verdict, LeftOut: leftOutSummary(r.LeftOut)})
	}
	return s
}

// leftOutSummary lists the runs a drain bracket left out, with why.
func leftOutSummary(ls []stats.DrainLeftOut) []SummaryLeftOut {
	out := []SummaryLeftOut{}
	for _, l := range ls {
		out = append(out, SummaryLeftOut{Run: l.Run, Reason: l.Reason})
	}
	return out
}

// waitPoint is one run of Figure 6.
func waitPoint(run, arm string, w stats.WaitSummary, endHit, endTTFT float64) SummaryWaitPoint {
	return SummaryWaitPoint{Run: run, Arm: arm, P90WaitS: jsonnum.Float(w.P90S), Sessions: w.Sessions, Censored: w.Censored, EndHitRatio: jsonnum.Float(endHit),
		EndTTFTP90S: jsonnum.Float(endTTFT)}
}

// regimePoint is one run on the regime map.
func regimePoint(run string, w demandPoint, peak float64, v stats.Verdict) SummaryRegimePoint {
	return SummaryRegimePoint{Run: run, OfferedLoad: jsonnum.Float(w.x), PeakDemandRatio: jsonnum.Float(peak), DrainLoad: jsonnum.Float(w.drainX),
		Verdict: string(v), ShapeContext: w.shape}
}

// optFloat is a nullable manifest value.
func optFloat(v *float64) jsonnum.Float {
	if v == nil {
		return jsonnum.Float(math.NaN())
	}
	return jsonnum.Float(*v)
}

// nonNil returns v, or an empty slice for nil: summary.json writes [] for
// an empty list, never null.
func nonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}
