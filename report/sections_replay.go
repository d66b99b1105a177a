package report

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/stats"
)

// The replay section: an observed run beside its replays (outlast replay,
// design replay). Each arm of the experiment is a variant simulated over
// several seeds; the as-is arm is the run itself, replayed, and how well
// it matches the observed run is the caveat of every other arm.

// replayAsIs is the arm of the unchanged replay.
const replayAsIs = "as-is"

// observedColor draws the observed run in every replay figure.
const observedColor = "#000000"

// replayConfidence is the level of the replay table's exact intervals,
// the level outlast replay prints.
const replayConfidence = 0.95

// replayVerdicts are the verdict columns of the replay table.
var replayVerdicts = stats.JudgedVerdicts

// replaySection adds the variant table (the observed run first), the
// as-is caveat, and hit ratio and sessions in the system per minute: the
// observed run beside each variant's median over seeds; and the replay
// finding: whether outlast replay's as-is gate grounded the variants, a
// warning when it did not.
func (b *builder) replaySection(e *experiment, sec *document.Section, se *SummaryExperiment) {
	obs, name := b.observedOf(e)
	gate := replayGate(e.runs)
	variants := arms(e.runs)
	sort.SliceStable(variants, func(i, j int) bool { return variants[i] == replayAsIs && variants[j] != replayAsIs })
	byArm := map[string][]*runInfo{}
	for _, r := range e.runs {
		byArm[r.run.Arm] = append(byArm[r.run.Arm], r)
	}
	t := &document.Table{
		ID:      "replay-" + e.slug,
		Caption: "The observed run and its replays: per variant, the verdicts over seeds, the share not persistent with its exact 95% interval (Clopper–Pearson; the share of judged seeds that did not end persistently degraded, over all seeds), the hit ratio over the last 10 minutes and the mean sessions in the system over the last 5 (median and range over seeds), and the recovery time of the runs that recovered.",
		Columns: []document.Column{{Name: "Variant"}, {Name: "Runs"}},
	}
	for _, v := range replayVerdicts {
		t.Columns = append(t.Columns, document.Column{Name: string(v)})
	}
	t.Columns = append(t.Columns, document.Column{Group: "Not persistent", Name: "k/n"}, document.Column{Group: "Not persistent", Name: "95% CI"},
		document.Column{Group: "End hit", Name: "median"}, document.Column{Group: "End hit", Name: "range"},
		document.Column{Group: "End sessions", Name: "median"}, document.Column{Group: "End sessions", Name: "range"}, document.Column{Name: "Recovery", Unit: "min"})
	if obs != nil {
		row := []document.Cell{document.Text("observed: " + obs.name()), document.Int(1)}
		for _, v := range replayVerdicts {
			row = append(row, document.Int(b2i(obs.sum.Verdict == v)))
		}
		row = append(row, document.Missing(), document.Missing(), document.Num(obs.sum.EndHit, 2), document.Missing(), document.Num(obs.sum.EndSessions, 1), document.Missing(), document.Text(runRecovery(obs.sum)))
		t.Rows = append(t.Rows, row)
	}
	se.Counts = []SummaryCount{}
	for _, v := range variants {
		runs := byArm[v]
		c := SummaryCount{Trigger: orNone(runs[0].run.TriggerKind), Control: v}
		var hit, sess, rec []float64
		counts := map[stats.Verdict]int{}
		notPersistent := 0
		for _, r := range runs {
			counts[r.sum.Verdict]++
			if r.sum.Verdict != stats.VerdictPersistent && r.sum.Judged() {
				notPersistent++
			}
			c.add(r.sum.Verdict)
			hit, sess = append(hit, r.sum.EndHit), append(sess, r.sum.EndSessions)
			if r.sum.Verdict.Recovered() && !math.IsNaN(r.sum.RecoveryMin) {
				rec = append(rec, r.sum.RecoveryMin)
			}
		}
		se.Counts = append(se.Counts, c)
		label := v
		if gate.known && !gate.grounded && v != replayAsIs {
			label += " (not grounded)"
		}
		row := []document.Cell{document.Text(label), document.Int(int64(len(runs)))}
		for _, vd := range replayVerdicts {
			row = append(row, document.Int(int64(counts[vd])))
		}
		ci := stats.ClopperPearson(notPersistent, len(runs), replayConfidence)
		row = append(row, document.Text(fmt.Sprintf("%d/%d", notPersistent, len(runs))), document.Range(ci.Lo, ci.Hi, 2))
		hm, hlo, hhi := medianRange(hit)
		sm, slo, shi := medianRange(sess)
		_, rlo, rhi := medianRange(rec)
		row = append(row, document.Num(hm, 2), document.Range(hlo, hhi, 2), document.Num(sm, 1), document.Range(slo, shi, 1), document.Text(recoverRangeLabel(rlo, rhi)))
		t.Rows = append(t.Rows, row)
	}
	t.Notes = append(t.Notes, "Seed 1 of every variant replays the observed sessions; the other seeds resample whole sessions and draw arrivals from the run's own arrival process. Recovery: minutes from control start to the recovery by the rule of the overview's note on verdicts (<5: within the first window).")
	sec.Blocks = append(sec.Blocks, t)
	caveat := b.replayCaveat(obs, name, byArm[replayAsIs])
	if gate.known && gate.grounded {
		sec.Blocks = append(sec.Blocks, &document.Note{Kind: document.NoteInfo, Text: caveat})
	} else {
		sec.Blocks = append(sec.Blocks, &document.Note{Kind: document.NoteWarning, Text: caveat})
		se.Warnings = append(se.Warnings, caveat)
	}
	b.replayFinding(e, gate, name, variants, len(byArm[replayAsIs]))
	for _, f := range []struct {
		id, title string
		axis      document.Axis
		of        measure
	}{
		{"replay-hit-", "Hit ratio per minute", document.Axis{Name: "hit ratio", Min: 0, Max: 1}, mHit},
		{"replay-sessions-", "Sessions in the system per minute", document.Axis{Name: "sessions"}, mSessions},
	} {
		fig := &document.TimeSeries{ID: f.id + e.slug, Title: f.title, YAxes: []document.Axis{f.axis},
			Caption: f.title + ": the observed run (black) and each variant's median over its seeds; trigger shaded, control start marked."}
		all := append([]*runInfo{obs}, e.runs...)
		if obs != nil {
			fig.Series = append(fig.Series, runSeries("observed", obs, f.of, observedColor))
		} else {
			all = all[1:]
		}
		for _, v := range variants {
			fig.Series = append(fig.Series, medianSeries(v, byArm[v], f.of, armColor(variants, v)))
		}
		fig.Bands, fig.Marks = annotate(all...)
		sec.Blocks = append(sec.Blocks, runSpan(fig, all...))
	}
}

// replayGateResult is the as-is gate's result as outlast replay wrote it
// into its runs' labels (grounded, grounding).
type replayGateResult struct {
	known, grounded bool
	reason          string
}

// replayGate reads the gate's result from the replays' labels: the first
// run that carries one (replay writes the same into every run).
func replayGate(runs []*runInfo) replayGateResult {
	for _, r := range runs {
		var labels map[string]any
		if json.Unmarshal([]byte(r.run.Labels), &labels) != nil {
			continue
		}
		if g, ok := labels["grounded"].(string); ok && (g == "true" || g == "false") {
			reason, _ := labels["grounding"].(string)
			return replayGateResult{known: true, grounded: g == "true", reason: reason}
		}
	}
	return replayGateResult{}
}

// replayFinding says whether the variants are grounded in the observed
// run, as outlast replay's as-is gate decided: a warning when they are
// not, or when the replays do not say.
func (b *builder) replayFinding(e *experiment, gate replayGateResult, name string, variants []string, asIs int) {
	var others []string
	for _, v := range variants {
		if v != replayAsIs {
			others = append(others, v)
		}
	}
	nums := numbers{"as_is_seeds": float64(asIs), "variants": float64(len(others))}
	of := "the observed run"
	if name != "" {
		of += " " + name
	}
	what := "its variants say nothing about the run"
	if len(others) > 0 {
		what = fmt.Sprintf("its variants (%s) say nothing about the run", strings.Join(others, ", "))
	}
	switch {
	case !gate.known:
		b.found(e, "replay-grounding", true, nil, nums, fmt.Sprintf("the replays do not say whether their as-is replay reproduced %s (no grounded label: made before outlast replay's as-is gate), so how far to trust the variants is unknown.", of))
	case gate.grounded:
		nums["grounded"] = 1
		b.found(e, "replay-grounding", false, nil, nums, fmt.Sprintf("the as-is replay reproduces %s, so the variants are grounded in it (%s).", of, gate.reason))
	default:
		nums["grounded"] = 0
		b.found(e, "replay-grounding", true, nil, nums, fmt.Sprintf("the variants are not grounded in %s (%s): the run's collapse is not the mechanism the model knows, or the model is miscalibrated for it, and %s.", of, gate.reason, what))
	}
}

// observedOf returns the run the experiment's replays were made from (the
// replay_of label) when the dataset holds it, and its name.
func (b *builder) observedOf(e *experiment) (*runInfo, string) {
	name := ""
	for _, r := range e.runs {
		var labels map[string]any
		if json.Unmarshal([]byte(r.run.Labels), &labels) == nil {
			if s, ok := labels["replay_of"].(string); ok && s != "" {
				name = s
				break
			}
		}
	}
	for _, r := range b.runs {
		if name != "" && r.name() == name {
			return r, name
		}
	}
	return nil, name
}

// replayCaveat says how well the as-is replay matched the observed run.
func (b *builder) replayCaveat(obs *runInfo, name string, asIs []*runInfo) string {
	switch {
	case name == "":
		return "The replays do not name the run they were made from (label replay_of): nothing to compare them with."
	case obs == nil:
		return fmt.Sprintf("The observed run %s is not in the dataset: ingest it beside its replays to see how well the as-is replay matches it, which bounds how far to trust the other variants.", name)
	case len(asIs) == 0:
		return fmt.Sprintf("No as-is replay of %s: how well the replay matches the observed run is unknown, and so is how far to trust the other variants.", name)
	}
	same := 0
	var trace *runInfo
	for _, r := range asIs {
		if r.sum.Verdict == obs.sum.Verdict {
			same++
		}
		if r.seedIs(1) {
			trace = r
		}
	}
	s := fmt.Sprintf("How far to trust the variants: %d of %d as-is replays end %s like the observed run %s", same, len(asIs), obs.sum.Verdict, name)
	if obs.sum.Verdict == stats.VerdictCacheUnreported {
		s = fmt.Sprintf("How far to trust the variants: the observed run %s reports no cached tokens, so its hit ratio and verdict are unknown and only the sessions in the system compare", name)
	}
	if trace != nil {
		s += fmt.Sprintf("; the replay of its own sessions (seed 1) ends %s with an end hit ratio of %s and %s sessions in the system (observed: %s and %s)",
			trace.sum.Verdict, fmtNum(trace.sum.EndHit, 2), fmtNum(trace.sum.EndSessions, 1), fmtNum(obs.sum.EndHit, 2), fmtNum(obs.sum.EndSessions, 1))
	}
	return s + ". A variant's outcome is the simulator's answer for an engine fitted to this run, no better than that match."
}

// medianSeries is a measure per minute, the median over runs (NaN where
// none has a value), on the first run's minutes; runs of another length
// are left out.
func medianSeries(name string, runs []*runInfo, m measure, color string) document.Series {
	first := runs[0].series()[m]
	y := make([]float64, len(first.x))
	for k := range y {
		var v []float64
		for _, r := range runs {
			if s := r.series()[m]; len(s.x) == len(first.x) {
				v = append(v, s.y[k])
			}
		}
		y[k], _, _ = medianRange(v)
	}
	return document.Series{Name: name, X: first.x, Y: y, Color: color}
}

// medianRange returns the median, least and largest of v, NaNs left out
// (all NaN when none is left).
func medianRange(v []float64) (med, lo, hi float64) {
	var x []float64
	for _, f := range v {
		if !math.IsNaN(f) {
			x = append(x, f)
		}
	}
	if len(x) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	sort.Float64s(x)
	return stats.Median(x), x[0], x[len(x)-1]
}

// runRecovery is a run's recovery as the paper prints it, "–" when it had
// none to make.
func runRecovery(s stats.RunSummary) string {
	if s.Recovery == nil {
		return "–"
	}
	return recoveryLabel(*s.Recovery)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// fmtNum prints v with prec decimals, "–" when missing.
func fmtNum(v float64, prec int) string { return document.Num(v, prec).Display() }
