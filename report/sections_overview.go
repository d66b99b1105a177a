package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
)

// overview adds the overview section, one row per run, and the runs of
// the summary.
func (b *builder) overview() {
	multi := len(b.exps) > 1
	t := &document.Table{
		ID:       "overview",
		Caption:  "Every run and its outcome. End hit: token-weighted hit ratio over the last 10 minutes at the gateway, and the engine's own over the same minutes; end sessions: mean sessions in the system over the last 5; onset: start of the first degraded 5-minute window; N* = C/L̄; peak D/C: the largest 1-minute mean of resident demand over the KV pool.",
		Sortable: true,
	}
	t.Columns = append(t.Columns, document.Column{Name: "Run"})
	if multi {
		t.Columns = append(t.Columns, document.Column{Name: "Experiment"})
	}
	t.Columns = append(t.Columns, []document.Column{
		{Name: "Arm"}, {Name: "Seed", Align: document.AlignRight}, {Name: "Trigger"}, {Name: "Control"}, {Name: "Verdict"},
		{Name: "End hit"}, {Name: "Engine end hit"}, {Name: "End sessions"}, {Name: "Onset", Unit: "min"}, {Name: "N*"}, {Name: "Peak D/C"},
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
			document.Text(orDash(run.Arm)), seedCell(run.Seed), document.Text(triggerLabel(run)), document.Text(controlLabel(run)), document.Text(string(s.Verdict)),
			document.Num(s.EndHit, 2), document.Num(r.eng.EndHit, 2), document.Num(s.EndSessions, 1), minuteCell(r.onset), document.Num(s.NStar, 1), document.Num(s.PeakDemandRatio, 2))
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
	t.Notes = append(t.Notes, "Verdict: persistent = every 5-minute window from the first degraded one (hit < 0.5) after the trigger to the end is degraded; partial = not persistent but end hit < 0.8; recovered/collapsed = collapsed when control began, then recovered or not (§3, §6); uncached = prefix caching off, every turn is cold by design, so no regime applies; cache-unreported = the engine reported no cached tokens (vLLM --enable-prompt-tokens-details, SGLang --enable-cache-report), so the hit ratio is unknown and shown as –, not 0; no-turns = the gateway log holds no turn, so every figure is unknown; unknown = not degraded as far as the windows show, but no turn in the last 10 minutes (a run cut short), a trigger that never ran, or no 5-minute window after the trigger's end, so not known healthy.")
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
