package report

import (
	"github.com/outlast-dev/outlast/internal/jsonnum"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// runInfo is what the report keeps of one run: its manifest row, its index
// and analysis and its overview row in summary.json, computed once by
// measureRun from the run alone. Everything after it (experiments, fits,
// sections) aggregates runInfos.
type runInfo struct {
	rd  *schema.RunData
	x   *stats.RunIndex
	an  stats.RunAnalysis
	sum stats.RunSummary
	row SummaryRun
}

// measureRun is the per-run step of a report: it depends on no other run.
func measureRun(rd *schema.RunData) *runInfo {
	x := stats.NewRunIndex(rd)
	an := stats.Analyze(x)
	r := &runInfo{rd: rd, x: x, an: an, sum: an.Summary}
	r.row = summaryRun(&rd.Run, r.sum)
	return r
}

// name is the run's name, unique in a dataset.
func (r *runInfo) name() string { return r.rd.Run.Run }

// seedIs reports whether the run has the given seed.
func (r *runInfo) seedIs(seed int64) bool { return r.rd.Run.Seed != nil && *r.rd.Run.Seed == seed }

// summaryRun is a run's overview row in summary.json.
func summaryRun(run *schema.Run, s stats.RunSummary) SummaryRun {
	sr := SummaryRun{
		Run: run.Run, Experiment: run.Experiment, Design: run.Design, Arm: run.Arm, Seed: run.Seed,
		Engine: run.EngineName, EngineVersion: run.EngineVersion, Model: run.EngineModel, PrefixCaching: run.PrefixCaching,
		KVPoolTokens: jsonnum.Float(s.KVPoolTokens), ArrivalRate: jsonnum.Float(s.ArrivalRate),
		TriggerKind: run.TriggerKind, TriggerStartS: optFloat(run.TriggerStartS), TriggerEndS: optFloat(run.TriggerEndS),
		ControlKind: run.ControlKind, ControlStartS: jsonnum.Float(s.ControlStartS),
		Verdict: string(s.Verdict), EndHitRatio: jsonnum.Float(s.EndHit), EndSessions: jsonnum.Float(s.EndSessions),
		FirstDegradedS: jsonnum.Float(s.FirstDegradedS), RecoveryMin: jsonnum.Float(s.RecoveryMin),
		MeanContext: jsonnum.Float(s.MeanContext), NStar: jsonnum.Float(s.NStar), PeakDemandRatio: jsonnum.Float(s.PeakDemandRatio),
		CohortDone: jsonnum.Float(s.CohortDone.Fraction), Warnings: s.Warnings,
		ManifestSHA256: run.ManifestSHA256, GatewaySHA256: run.GatewaySHA256,
		EngineLogSHA256: run.EngineLogSHA256, MetricsSHA256: run.MetricsSHA256,
	}
	if s.Recovery != nil {
		sr.RecoveryStatus = string(s.Recovery.Status)
		sr.RecoveryLabel = recoveryLabel(*s.Recovery)
	}
	if sr.Warnings == nil {
		sr.Warnings = []string{}
	}
	return sr
}
