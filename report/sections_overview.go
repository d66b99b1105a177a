package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/stats"
)

// overview adds the overview section, one row per run, and the runs of
// the summary.
func (b *builder) overview() {
	multi := len(b.exps) > 1
	t := &document.Table{
		ID:       "overview",
		Caption:  "Every run and its outcome. End hit: token-weighted hit ratio over the last 10 minutes at the gateway, and the engine's own over the same minutes; end sessions: mean sessions in the system over the last 5; onset: start of the first degraded 5-minute window; N* = C/L̄; peak D/C: the largest 1-minute mean of resident demand over the KV pool; end D/C: its mean over the last 5 minutes. Mechanism, for a run that ended degraded: present when end D/C ≥ 1 and the end sessions are at least twice the healthy twin's (else the run's own before its trigger), absent when one of them does not hold (§4: the degraded regime is a working set beyond the pool and a backlog, not a low hit ratio alone), unknown when one is unknown.",
		Sortable: true,
	}
	t.Columns = append(t.Columns, document.Column{Name: "Run"})
	if multi {
		t.Columns = append(t.Columns, document.Column{Name: "Experiment"})
	}
	t.Columns = append(t.Columns, []document.Column{
		{Name: "Arm"}, {Name: "Seed", Align: document.AlignRight}, {Name: "Trigger"}, {Name: "Control"}, {Name: "Verdict"}, {Name: "Degraded", Unit: "min"},
		{Name: "End hit"}, {Name: "Engine end hit"}, {Name: "End sessions"}, {Name: "Onset", Unit: "min"}, {Name: "N*"}, {Name: "Peak D/C"},
		{Name: "End D/C"}, {Name: "Mechanism"},
	}...)
	t.Columns = append(t.Columns, latencyColumns()...)
	t.Caption += b.latencyOverviewCaption()
	setup := &document.Table{
		ID:       "setup",
		Caption:  "Every run's engine and workload: KV pool C, arrival rate λ, turns per session T, mean think time Z.",
		Sortable: true,
		Columns: []document.Column{
			{Name: "Run"}, {Name: "Engine"}, {Name: "Version"}, {Name: "Model"}, {Name: "Prefix caching"},
			{Name: "C", Unit: "tokens"}, {Name: "λ", Unit: "sessions/s"}, {Name: "T", Unit: "turns"}, {Name: "Z", Unit: "s"},
		},
	}
	var warnings []string
	warned := map[string][]string{}
	for _, r := range b.runs {
		run, s := &r.run, r.sum
		row := []document.Cell{document.Text(run.Run)}
		if multi {
			row = append(row, document.Text(run.Experiment))
		}
		row = append(row,
			document.Text(orDash(run.Arm)), seedCell(run.Seed), document.Text(triggerLabel(run)), document.Text(controlLabel(run)), document.Text(string(s.Verdict)), degradedCell(s),
			document.Num(s.EndHit, 2), document.Num(r.eng.EndHit, 2), document.Num(s.EndSessions, 1), minuteCell(r.onset), document.Num(s.NStar, 1), document.Num(s.PeakDemandRatio, 2),
			document.Num(s.EndDemandRatio, 2), mechanismCell(r.mech))
		row = append(row, latencyCells(r)...)
		t.Rows = append(t.Rows, row)
		caching := "off"
		if run.PrefixCaching {
			caching = "on"
		}
		setup.Rows = append(setup.Rows, []document.Cell{
			document.Text(run.Run), document.Text(orDash(run.EngineName)), document.Text(orDash(run.EngineVersion)), document.Text(orDash(run.EngineModel)), document.Text(caching),
			optInt(run.KVPoolTokens), optNum(run.ArrivalRate, -1), optInt(run.Turns), optNum(run.ThinkMeanS, -1),
		})
		for _, w := range s.Warnings {
			if warned[w] == nil {
				warnings = append(warnings, w)
			}
			warned[w] = append(warned[w], run.Run)
		}
		b.sum.Runs = append(b.sum.Runs, r.row)
	}
	t.Notes = append(t.Notes, verdictNote)
	sec := document.Section{ID: "overview", Title: "Overview", Blocks: []document.Block{t, setup, b.runLatencyTable()}}
	sec.Intro = []string{fmt.Sprintf("%d runs. Sections follow each experiment's design; the regime map places every run.", len(b.runs))}
	// One note per distinct warning, naming its runs: a campaign's runs
	// often share one (an unknown KV pool), which would otherwise fill the
	// page.
	for _, w := range warnings {
		runs := warned[w]
		names := strings.Join(runs, ", ")
		if len(runs) > maxWarnedRuns {
			names = strings.Join(runs[:maxWarnedRuns], ", ") + fmt.Sprintf(" and %d more (summary.json lists each run's warnings)", len(runs)-maxWarnedRuns)
		}
		sec.Blocks = append(sec.Blocks, &document.Note{Kind: document.NoteWarning, Text: names + ": " + w})
	}
	b.doc.Sections = append(b.doc.Sections, sec)
}

// maxWarnedRuns is how many runs a warning note names.
const maxWarnedRuns = 20

// minuteCell shows seconds as minutes to 2 decimals at most.
func minuteCell(s float64) document.Cell {
	return document.Num(math.Round(minutes(s)*100)/100, -1)
}

// verdictNote is the overview's "how to read" note: every verdict and the
// recovery rule, with their thresholds (stats.Verdict defines them).
var verdictNote = fmt.Sprintf("How to read the verdicts. Windows are 5-minute windows aligned to the trigger's end; a window is degraded when its token-weighted hit ratio is below %.1f (§3); the end hit ratio is over the last 10 minutes. "+
	"never-degraded: no window after the trigger's end was degraded, the run was not collapsed when control began, and the end hit ratio is at least %.1f. "+
	"recovered-alone: degraded after the trigger (or collapsed when control began), then recovered by the rule below with no controller acting before the recovery; Degraded gives the minutes from the start of its degradation to the recovery (\"20–45\"; \"20–\" when it did not recover). "+
	"recovered-under-control: the same, with a controller that began before the recovery. "+
	"persistent: every window from the first degraded one to the end of the run is degraded (§3), under control or not. "+
	"partial: neither persistent, recovered nor never degraded: the end hit ratio is below %.1f, or the run degraded and the rule below does not hold (summary.json's recovery_reason says which part). "+
	"Recovery rule, from the control start (a run collapsed when control began) or the first degraded window: recovered from the first whole minute t whose 5-minute window has a hit ratio of at least %.1f, after which no 5-minute window (stepped by a minute) is degraded and the hit ratio over the rest of the run is at least %.1f, with at least %.0f minutes of the run after t; "+
	"and then the end hit ratio is at least %.1f and at least %.0f%% of the sessions arriving in the %.0f minutes after the start (those that had %.0f minutes to finish) completed. A dip of a window to between %.1f and %.1f after the recovery does not undo it; a single crossing of %.1f does not make it. "+
	"Not judged: unknown = not degraded as far as the windows show, but the run is shorter than the 10-minute end window (its end is its cold start), no turn completed in its last 10 minutes, its trigger never ran, or no 5-minute window follows the trigger's end; "+
	"uncached = prefix caching off, every turn is cold by design, so no regime applies; cache-unreported = the engine reported no cached tokens (vLLM --enable-prompt-tokens-details, SGLang --enable-cache-report), so the hit ratio is unknown and shown as –, not 0; no-turns = the gateway log holds no turn, so every figure is unknown.",
	stats.DegradedHit, stats.RecoveredHit, stats.RecoveredHit, stats.RecoveredHit, stats.RecoveredHit, stats.FollowUpS/60,
	stats.RecoveredHit, 100*stats.CohortServed, stats.CohortS/60, stats.CohortFinishS/60, stats.DegradedHit, stats.RecoveredHit, stats.RecoveredHit)

// degradedCell is the span of a run's degradation in minutes: "20–45"
// when it recovered, "20–" when it did not, missing when it never
// degraded.
func degradedCell(s stats.RunSummary) document.Cell {
	if math.IsNaN(s.DegradedFromS) {
		return document.Missing()
	}
	from := minuteText(s.DegradedFromS)
	if math.IsNaN(s.RecoveredAtS) {
		return document.Text(from + "–")
	}
	return document.Text(from + "–" + minuteText(s.RecoveredAtS))
}
