package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/outlast-dev/outlast/schema"
)

// overview adds the overview section, one row per run, and the runs of
// the summary.
func (b *builder) overview() {
	multi := len(b.exps) > 1
	t := &Table{
		ID:      "overview",
		Caption: "Every run and its outcome. End hit: token-weighted hit ratio over the last 10 minutes; end sessions: mean sessions in the system over the last 5; N* = C/L̄; peak D/C: the largest 1-minute mean of resident demand over the KV pool.",
	}
	t.Columns = append(t.Columns, Column{Name: "Run"})
	if multi {
		t.Columns = append(t.Columns, Column{Name: "Experiment"})
	}
	t.Columns = append(t.Columns, []Column{
		{Name: "Arm"}, {Name: "Seed", Align: AlignRight}, {Name: "Trigger"}, {Name: "Control"}, {Name: "Verdict"},
		{Name: "End hit"}, {Name: "End sessions"}, {Name: "N*"}, {Name: "Peak D/C"},
	}...)
	setup := &Table{
		ID:      "setup",
		Caption: "Every run's engine and workload: KV pool C, arrival rate λ, turns per session T, mean think time Z.",
		Columns: []Column{
			{Name: "Run"}, {Name: "Engine"}, {Name: "Version"}, {Name: "Model"}, {Name: "Prefix caching"},
			{Name: "C", Unit: "tokens"}, {Name: "λ", Unit: "sessions/s"}, {Name: "T", Unit: "turns"}, {Name: "Z", Unit: "s"},
		},
	}
	var warnings []string
	for _, r := range b.runs {
		run, s := &r.rd.Run, r.sum
		row := []Cell{Text(run.Run)}
		if multi {
			row = append(row, Text(run.Experiment))
		}
		row = append(row,
			Text(orDash(run.Arm)), seedCell(run.Seed), Text(triggerLabel(run)), Text(controlLabel(run)), Text(string(s.Verdict)),
			Num(s.EndHit, 2), Num(s.EndSessions, 1), Num(s.NStar, 1), Num(s.PeakDemandRatio, 2))
		t.Rows = append(t.Rows, row)
		caching := "off"
		if run.PrefixCaching {
			caching = "on"
		}
		setup.Rows = append(setup.Rows, []Cell{
			Text(run.Run), Text(orDash(run.EngineName)), Text(orDash(run.EngineVersion)), Text(orDash(run.EngineModel)), Text(caching),
			optInt(run.KVPoolTokens), optNum(run.ArrivalRate, -1), optInt(run.Turns), optNum(run.ThinkMeanS, -1),
		})
		for _, w := range s.Warnings {
			warnings = append(warnings, run.Run+": "+w)
		}
		b.sum.Runs = append(b.sum.Runs, summaryRun(r))
	}
	t.Notes = append(t.Notes, "Verdict: persistent = every 5-minute window from the first degraded one (hit < 0.5) after the trigger to the end is degraded; partial = not persistent but end hit < 0.8; recovered/collapsed = collapsed when control began, then recovered or not (§3, §6); uncached = prefix caching off, every turn is cold by design, so no regime applies.")
	sec := Section{ID: "overview", Title: "Overview", Blocks: []Block{t, setup}}
	sec.Intro = []string{fmt.Sprintf("%d runs. Sections follow each experiment's design; the regime map places every run.", len(b.runs))}
	for _, w := range warnings {
		sec.Blocks = append(sec.Blocks, &Note{Kind: NoteWarning, Text: w})
	}
	b.doc.Sections = append(b.doc.Sections, sec)
}

// provenanceSection lists each run's versions and input hashes.
func (b *builder) provenanceSection() {
	t := &Table{
		ID:      "provenance",
		Caption: "Inputs of every run: dataset schema and ingesting outlast version, engine log dialect and the sha256 (first 12 hex digits) of each input file.",
		Columns: []Column{
			{Name: "Run"}, {Name: "Schema"}, {Name: "outlast"}, {Name: "Engine log"},
			{Name: "run.yaml"}, {Name: "gateway"}, {Name: "engine log"}, {Name: "metrics"}, {Name: "Rejected lines"},
		},
	}
	for _, r := range b.runs {
		run := &r.rd.Run
		t.Rows = append(t.Rows, []Cell{
			Text(run.Run), Text(orDash(run.SchemaVersion)), Text(orDash(run.OutlastVersion)), Text(orDash(run.EngineLogFormat)),
			Text(shortHash(run.ManifestSHA256)), Text(shortHash(run.GatewaySHA256)), Text(shortHash(run.EngineLogSHA256)), Text(shortHash(run.MetricsSHA256)),
			Int(run.RejectedLines),
		})
	}
	b.doc.Sections = append(b.doc.Sections, Section{
		ID: "provenance", Title: "Provenance",
		Intro:  []string{"The full hashes are in summary.json; provenance.inputs_sha256 digests them all."},
		Blocks: []Block{t},
	})
}

func shortHash(h string) string {
	if h == "" {
		return "–"
	}
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func summaryRun(r *runInfo) SummaryRun {
	run, s := &r.rd.Run, r.sum
	sr := SummaryRun{
		Run: run.Run, Experiment: run.Experiment, Design: run.Design, Arm: run.Arm, Seed: run.Seed,
		Engine: run.EngineName, EngineVersion: run.EngineVersion, Model: run.EngineModel, PrefixCaching: run.PrefixCaching,
		KVPoolTokens: Float(s.KVPoolTokens), ArrivalRate: Float(s.ArrivalRate),
		TriggerKind: run.TriggerKind, TriggerStartS: optFloat(run.TriggerStartS), TriggerEndS: optFloat(run.TriggerEndS),
		ControlKind: run.ControlKind, ControlStartS: Float(s.ControlStartS),
		Verdict: string(s.Verdict), EndHitRatio: Float(s.EndHit), EndSessions: Float(s.EndSessions),
		FirstDegradedS: Float(s.FirstDegradedS), RecoveryMin: Float(s.RecoveryMin),
		MeanContext: Float(s.MeanContext), NStar: Float(s.NStar), PeakDemandRatio: Float(s.PeakDemandRatio),
		CohortDone: Float(s.CohortDone.Fraction), Warnings: s.Warnings,
		ManifestSHA256: run.ManifestSHA256, GatewaySHA256: run.GatewaySHA256,
		EngineLogSHA256: run.EngineLogSHA256, MetricsSHA256: run.MetricsSHA256,
	}
	if s.Recovery != nil {
		sr.RecoveryStatus = string(s.Recovery.Status)
		sr.RecoveryLabel = s.Recovery.Label
	}
	if sr.Warnings == nil {
		sr.Warnings = []string{}
	}
	return sr
}

func optFloat(v *float64) Float {
	if v == nil {
		return Float(math.NaN())
	}
	return Float(*v)
}

func optNum(v *float64, prec int) Cell {
	if v == nil {
		return Missing()
	}
	return Num(*v, prec)
}

func optInt(v *int64) Cell {
	if v == nil {
		return Missing()
	}
	return Int(*v)
}

// triggerLabel is e.g. "burst 15–20 min, +0.0525/s".
func triggerLabel(r *schema.Run) string {
	k := r.TriggerKind
	if k == "" || k == "none" {
		return "none"
	}
	s := k
	if r.TriggerStartS != nil {
		s += " " + fmtMin(*r.TriggerStartS)
		if r.TriggerEndS != nil {
			s += "–" + fmtMin(*r.TriggerEndS)
		}
		s += " min"
	}
	if r.TriggerExtraRate != nil {
		s += ", +" + strconv.FormatFloat(*r.TriggerExtraRate, 'g', -1, 64) + "/s"
	}
	if r.TriggerRateAfter != nil {
		s += ", λ→" + strconv.FormatFloat(*r.TriggerRateAfter, 'g', -1, 64) + "/s"
	}
	return s
}

// controlLabel is e.g. "budgeter @20 min".
func controlLabel(r *schema.Run) string {
	k := r.ControlKind
	if k == "" {
		k = "none"
	}
	if k == "none" || r.ControlStartS == nil {
		return k
	}
	return k + " @" + fmtMin(*r.ControlStartS) + " min"
}

// fmtMin prints seconds as minutes, without trailing zeros.
func fmtMin(s float64) string {
	return strconv.FormatFloat(math.Round(s/60*100)/100, 'g', -1, 64)
}
