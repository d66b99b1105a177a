package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/outlast-dev/outlast/internal/jsonnum"
	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/stats"
)

// Findings are the report's first section: per experiment, the design's
// result in a sentence (added by its section), the verdict counts and the
// warnings that change how the numbers read. Every sentence is computed
// from the numbers it quotes, which summary.json carries beside it.

// numbers are the values a finding quotes, by name.
type numbers map[string]float64

// found adds a finding about experiment e: text follows "e.label: ".
func (b *builder) found(e *experiment, kind string, warning bool, runs []string, nums numbers, text string) {
	f := SummaryFinding{
		Experiment: e.name, Design: e.design, Engine: e.engine, Kind: kind, Warning: warning,
		Text: e.label + ": " + text, Runs: nonNil(runs), Numbers: map[string]jsonnum.Float{},
	}
	if e.engine != "" {
		f.EngineName, f.EngineVersion = e.engineName, e.engineVersion
	}
	for k, v := range nums {
		f.Numbers[k] = jsonnum.Float(v)
	}
	b.sum.Findings = append(b.sum.Findings, f)
	b.findings = append(b.findings, document.ListItem{Label: e.label, Link: "exp-" + e.slug, Text: text, Warning: warning})
}

// findingsSection puts the findings first in the document.
func (b *builder) findingsSection() {
	sec := document.Section{
		ID: "findings", Title: "Findings",
		Intro: []string{"Computed from the numbers in the sections below, experiment by experiment; warnings (⚠) change how those numbers read. summary.json holds each finding with the numbers it quotes."},
	}
	sec.Blocks = append(sec.Blocks, &document.List{Items: b.findings})
	b.doc.Sections = append([]document.Section{sec}, b.doc.Sections...)
}

// verdictOrder is the order in which verdict counts are told: the worst
// outcomes first.
var verdictOrder = []stats.Verdict{
	stats.VerdictPersistent, stats.VerdictPartial, stats.VerdictRecoveredUnderControl, stats.VerdictRecoveredAlone,
	stats.VerdictUnknown, stats.VerdictCacheUnreported, stats.VerdictNoTurns, stats.VerdictNeverDegraded, stats.VerdictUncached,
}

// verdictFinding counts the verdicts of e's runs.
func (b *builder) verdictFinding(e *experiment) {
	count := map[stats.Verdict]int{}
	for _, r := range e.runs {
		count[r.sum.Verdict]++
	}
	nums := numbers{"runs": float64(len(e.runs))}
	var parts []string
	for _, v := range verdictOrder {
		if n := count[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
			nums[string(v)] = float64(n)
		}
	}
	text := fmt.Sprintf("%s: %s.", plural(len(e.runs), "run"), strings.Join(parts, ", "))
	switch {
	case len(parts) == 1 && len(e.runs) == 1:
		text = fmt.Sprintf("1 run: %s.", e.runs[0].sum.Verdict)
	case len(parts) == 1:
		text = fmt.Sprintf("%d runs, all %s.", len(e.runs), e.runs[0].sum.Verdict)
	}
	b.found(e, "verdicts", false, nil, nums, text)
}

// warningFindings adds the warnings about e's runs that change how its
// numbers read.
func (b *builder) warningFindings(e *experiment) {
	var rejected, noLog, noMetrics, unreported, noTurns, short, cut, disagree, lowPeaks []*runInfo
	lines := int64(0)
	for _, r := range e.runs {
		if r.run.RejectedLines > 0 {
			rejected = append(rejected, r)
			lines += r.run.RejectedLines
		}
		if r.noLogSamples {
			noLog = append(noLog, r)
		}
		if r.noMetricsSamples {
			noMetrics = append(noMetrics, r)
		}
		switch {
		case r.sum.Verdict == stats.VerdictNoTurns:
			noTurns = append(noTurns, r)
		case r.sum.Verdict == stats.VerdictCacheUnreported:
			unreported = append(unreported, r)
		case r.agree.Disagree:
			disagree = append(disagree, r)
		}
		if r.cutShort {
			cut = append(cut, r)
		}
		if r.sum.Short {
			short = append(short, r)
		}
		if lowPeak(r) {
			lowPeaks = append(lowPeaks, r)
		}
	}
	if len(rejected) > 0 {
		b.found(e, "rejected-lines", true, runNames(rejected), numbers{"lines": float64(lines), "runs": float64(len(rejected))},
			fmt.Sprintf("%s rejected in lenient mode: %s. The numbers leave them out (a rejected whole, such as a sampled GuideLLM benchmark read with --lenient, makes its run's numbers a sample's); the dataset's _rejects/ holds each with its reason.",
				linesWere(lines), listRuns(rejected, func(r *runInfo) string { return plural(int(r.run.RejectedLines), "line") })))
	}
	drift := func(runs []*runInfo, what string) {
		if len(runs) == 0 {
			return
		}
		b.found(e, "format-drift", true, runNames(runs), numbers{"runs": float64(len(runs))},
			fmt.Sprintf("the %s of %s gave no engine sample: its format may have drifted from what outlast reads (ingest warned), so the engine's view of %s is empty.",
				what, listRuns(runs, nil), thoseRuns(len(runs))))
	}
	drift(noLog, "engine log")
	drift(noMetrics, "metrics file")
	if len(unreported) > 0 {
		withHits := 0
		for _, r := range unreported {
			if r.eng.RunHit > 0 {
				withHits++
			}
		}
		text := fmt.Sprintf("the gateway logs of %s hold no cached-token counts, so there is no gateway hit ratio and no hit-ratio verdict. An engine reports cached tokens to its clients only when asked (%s), and some load generators do not record them.",
			listRuns(unreported, engineHitNote), cacheFlags)
		b.found(e, "cache-unreported", true, runNames(unreported), numbers{"runs": float64(len(unreported)), "engine_shows_hits": float64(withHits)}, text)
	}
	if len(noTurns) > 0 {
		b.found(e, "no-turns", true, runNames(noTurns), numbers{"runs": float64(len(noTurns))},
			fmt.Sprintf("the gateway logs of %s hold no turn, completed or failed: nothing is measured in %s, and every figure of %s is unknown.",
				listRuns(noTurns, nil), thoseRuns(len(noTurns)), thoseRuns(len(noTurns))))
	}
	if len(short) > 0 {
		b.found(e, "short-runs", true, runNames(short), numbers{"runs": float64(len(short))},
			fmt.Sprintf("%s shorter than the 10-minute end window (%s): the end hit ratio and end sessions of %s cover the whole run, cold start included, and read lower than a longer run's would, so %s no verdict (unknown).",
				pluralVerb(len(short)), listRuns(short, func(r *runInfo) string { return fmt.Sprintf("%s min", minuteText(r.run.DurationS)) }), thoseRuns(len(short)), getsText(len(short))))
	}
	if len(lowPeaks) > 0 {
		b.found(e, "low-peak-hit", true, runNames(lowPeaks), numbers{"runs": float64(len(lowPeaks))},
			fmt.Sprintf("the hit ratio of %s never reached %.1f in any 5-minute window (highest in brackets): the verdicts' thresholds (degraded below %.1f, healthy from %.1f, §3) assume sessions that reuse their context, so a workload that reuses little (single-turn sessions, a small shared prefix) reads degraded without any collapse; compare %s with a twin of the same workload rather than with the thresholds.",
				listRuns(lowPeaks, func(r *runInfo) string { return fmt.Sprintf("%.2f", r.sum.PeakWindowHit) }), stats.RecoveredHit, stats.DegradedHit, stats.RecoveredHit, thoseRuns(len(lowPeaks))))
	}
	if len(cut) > 0 {
		b.found(e, "cut-short", true, runNames(cut), numbers{"runs": float64(len(cut))},
			fmt.Sprintf("%s cut short: the gateway's records end more than 5 minutes before the planned end (%s); the end-of-run measures describe an earlier time.",
				pluralVerb(len(cut)), listRuns(cut, func(r *runInfo) string {
					return fmt.Sprintf("minute %s of %s", minuteText(r.gatewayEnd), minuteText(r.run.DurationS))
				})))
	}
	// One warning per likely cause, naming its runs: a campaign run against
	// a misconfigured gateway disagrees in every run.
	byCause := map[string][]*runInfo{}
	var causes []string
	for _, r := range disagree {
		c := hitSourceText(r.eng.HitSource) + "|" + disagreementCause(r)
		if byCause[c] == nil {
			causes = append(causes, c)
		}
		byCause[c] = append(byCause[c], r)
	}
	for _, key := range causes {
		runs := byCause[key]
		_, c, _ := strings.Cut(key, "|")
		nums := numbers{"runs": float64(len(runs))}
		for _, r := range runs {
			nums[r.name()+".windows"], nums[r.name()+".differing"] = float64(r.agree.Windows), float64(r.agree.Differing)
			nums[r.name()+".mean_diff"] = r.agree.MeanDiff
		}
		subject := "the engine's hit ratio"
		if len(runs) > 1 {
			subject = fmt.Sprintf("in %d runs the engine's hit ratio", len(runs))
		}
		b.found(e, "engine-disagrees", true, runNames(runs), nums,
			fmt.Sprintf("%s (%s) differs from the gateway's by more than %s in several 5-minute windows: %s. Likely cause: %s.",
				subject, hitSourceText(runs[0].eng.HitSource), document.Num(stats.AgreementTolerance, -1).Display(),
				listRuns(runs, func(r *runInfo) string {
					return fmt.Sprintf("%d of %d windows, engine − gateway %s on average", r.agree.Differing, r.agree.Windows, signed(r.agree.MeanDiff))
				}), c))
	}
}

// lowPeak reports whether a judged run's hit ratio never reached 0.8 in
// any 5-minute window. A short run's low peak is its cold start
// (short-runs says so); a longer one's is the workload.
func lowPeak(r *runInfo) bool {
	return r.sum.Judged() && !r.sum.Short && r.sum.PeakWindowHit < stats.RecoveredHit
}

// disagreementCause is the likely cause of an engine/gateway disagreement;
// the engine's hit-ratio source is part of it.
func disagreementCause(r *runInfo) string {
	switch {
	case r.eng.HitSource == stats.EngineHitLog:
		return "the engine log's rate covers the engine's own horizon (vLLM prints it over its most recent requests, the V0 engine since it started), not the window, so it lags and smooths the gateway's"
	case r.agree.MeanDiff > 0:
		return "the gateway received fewer cached tokens than the engine counted: check that the engine reports them to clients (" + cacheFlags + ") and that nothing between them drops the usage details"
	}
	return "the engine also served requests the gateway did not log (other clients, warm-up or health checks), or the two logs' clocks are offset (engine.log_tz)"
}

// engineHitNote is a run's engine hit ratio, for the cache warning.
func engineHitNote(r *runInfo) string {
	if r.eng.HitSource == "" || math.IsNaN(r.eng.RunHit) {
		return "no engine hit count"
	}
	return "engine hit ratio " + document.Num(r.eng.RunHit, 2).Display()
}

// maxNamed is how many runs a finding names before it counts the rest.
const maxNamed = 5

// listRuns names up to maxNamed runs, each with detail(r) in parentheses
// when detail is set, and counts the rest.
func listRuns(runs []*runInfo, detail func(*runInfo) string) string {
	var parts []string
	for i, r := range runs {
		if i == maxNamed {
			parts = append(parts, fmt.Sprintf("and %d more", len(runs)-maxNamed))
			break
		}
		s := r.name()
		if detail != nil {
			s += " (" + detail(r) + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// runNames are the names of runs.
func runNames(runs []*runInfo) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.name()
	}
	return out
}

// linesWere is "1 line was", "3 lines were".
func linesWere(n int64) string {
	if n == 1 {
		return "1 input line was"
	}
	return fmt.Sprintf("%d input lines were", n)
}

// pluralVerb is "1 run was", "3 runs were".
func pluralVerb(n int) string {
	if n == 1 {
		return "1 run was"
	}
	return fmt.Sprintf("%d runs were", n)
}

// getsText is "it gets" or "they get".
func getsText(n int) string {
	if n == 1 {
		return "it gets"
	}
	return "they get"
}

// thoseRuns is "that run" or "those runs".
func thoseRuns(n int) string {
	if n == 1 {
		return "that run"
	}
	return "those runs"
}

// minuteText prints seconds as whole minutes (rounded down), or "?".
func minuteText(s float64) string {
	if math.IsNaN(s) {
		return "?"
	}
	return fmt.Sprintf("%d", int(math.Floor(s/60)))
}

// signed prints a difference with its sign, to 2 decimals.
func signed(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	s := document.Num(v, 2).Display()
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return strings.Replace(s, "-", "−", 1)
}
