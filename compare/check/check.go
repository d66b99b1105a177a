package check

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/compare"
	"github.com/outlast-dev/outlast/internal/jsonnum"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// Verdict is a rule's outcome with the numbers behind it.
type Verdict struct {
	Rule string `json:"rule"`
	Pass bool   `json:"pass"`
	// Details are the numbers behind the verdict, one line of the text
	// output each; a detail that is not OK is a reason the rule failed.
	Details []Detail `json:"details"`
}

// Detail is one number behind a verdict.
type Detail struct {
	OK bool `json:"ok"`
	// Dataset is the label of the dataset it is about when the rule
	// covers several; "" otherwise.
	Dataset string `json:"dataset,omitempty"`
	// Text is the line as printed, without its mark and dataset.
	Text string `json:"text"`
	// Measure is what was checked: a run requirement (min_runs,
	// persistent_runs, min_end_hit_ratio, max_end_sessions,
	// max_recovery_min, max_ttft_p90_s, max_end_ttft_p90_s,
	// max_tpot_p90_s, max_e2e_p90_s, min_goodput) or a comparison measure
	// (collapse_rate, end_hit_ratio, turns_per_s, ttft_p90_s,
	// end_ttft_p90_s, tpot_p90_s, e2e_p90_s, goodput) in the configuration
	// Config.
	Measure string `json:"measure"`
	Config  string `json:"config,omitempty"`
	// Value is the value found (for a comparison, candidate minus
	// baseline), Limit the bound a run requirement sets and P a
	// comparison's Holm-adjusted p-value (raw with NoHolm); null where
	// they do not apply or are missing.
	Value jsonnum.Float `json:"value"`
	Limit jsonnum.Float `json:"limit"`
	P     jsonnum.Float `json:"p"`
	// Runs are the runs behind Value (the worst run, the runs that
	// failed).
	Runs []string `json:"runs,omitempty"`
}

// Report is the outcome of every rule, in rule order.
type Report struct {
	Verdicts []Verdict `json:"verdicts"`
}

// Failed is the number of rules that do not hold.
func (r *Report) Failed() int {
	n := 0
	for _, v := range r.Verdicts {
		if !v.Pass {
			n++
		}
	}
	return n
}

// Evaluate checks every rule against the columns (one per dataset, the
// first the baseline of comparison rules without compare:). opts are the
// comparison options of comparison rules (By, Ignore, NoHolm); a rule's
// alpha overrides opts.Alpha. An error means the rules do not fit the
// input (an unknown column label, a comparison with one dataset); it is
// not a failed rule.
func Evaluate(rules *Rules, columns []compare.Column, opts compare.Options) (*Report, error) {
	ev := &evaluator{columns: columns, by: opts.By, summaries: map[*schema.RunData]stats.RunSummary{}, latencies: map[*schema.RunData]stats.TurnLatency{}}
	rep := &Report{}
	for i := range rules.Rules {
		r := &rules.Rules[i]
		var v Verdict
		var err error
		if r.IsComparison() {
			v, err = ev.comparison(r, opts)
		} else {
			v, err = ev.runs(r)
		}
		if err != nil {
			return nil, fmt.Errorf("rule %q: %w", r.Name, err)
		}
		rep.Verdicts = append(rep.Verdicts, v)
	}
	return rep, nil
}

type evaluator struct {
	columns   []compare.Column
	by        string // the runs column the columns were split by, if any
	summaries map[*schema.RunData]stats.RunSummary
	latencies map[*schema.RunData]stats.TurnLatency
}

func (ev *evaluator) summary(rd *schema.RunData) stats.RunSummary {
	s, ok := ev.summaries[rd]
	if !ok {
		s = stats.NewRunIndex(rd).Summarize()
		ev.summaries[rd] = s
	}
	return s
}

func (ev *evaluator) column(label string) (compare.Column, error) {
	var labels []string
	for _, c := range ev.columns {
		if c.Label == label {
			return c, nil
		}
		labels = append(labels, c.Label)
	}
	return compare.Column{}, fmt.Errorf("no dataset labelled %q (have %s)", label, strings.Join(labels, ", "))
}

// selectRuns returns the runs matching every condition.
func selectRuns(runs []*schema.RunData, where []Cond) ([]*schema.RunData, error) {
	var out []*schema.RunData
	for _, rd := range runs {
		ok := true
		for _, c := range where {
			v, err := compare.RunsColumn(&rd.Run, c.Column)
			if err != nil {
				return nil, err
			}
			if !sameValue(v, c.Value) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, rd)
		}
	}
	return out, nil
}

// sameValue compares as numbers when both are numbers, else as strings.
func sameValue(a, b string) bool {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		return x == y
	}
	return a == b
}

func whereText(where []Cond) string {
	if len(where) == 0 {
		return "all runs"
	}
	parts := make([]string, len(where))
	for i, c := range where {
		parts[i] = c.Column + "=" + c.Value
	}
	return "where " + strings.Join(parts, " ")
}

func fmtNum(v float64) string {
	if math.IsNaN(v) {
		return "missing"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// names lists up to four run names, then how many more.
func names(runs []string) string {
	if len(runs) <= 4 {
		return strings.Join(runs, ", ")
	}
	return strings.Join(runs[:4], ", ") + fmt.Sprintf(" and %d more", len(runs)-4)
}

// runs evaluates a rule over runs in every dataset (or its Dataset).
func (ev *evaluator) runs(r *Rule) (Verdict, error) {
	v := Verdict{Rule: r.Name, Pass: true}
	cols := ev.columns
	if r.Dataset != "" {
		c, err := ev.column(r.Dataset)
		if err != nil {
			return v, err
		}
		cols = []compare.Column{c}
	}
	for _, col := range cols {
		sel, err := selectRuns(col.Runs, r.Where)
		if err != nil {
			return v, err
		}
		dataset := ""
		if len(ev.columns) > 1 {
			dataset = col.Label
		}
		// add records a detail comparing value with limit under the
		// requirement key.
		add := func(pass bool, key string, value, limit float64, runs []string, format string, args ...any) {
			v.Pass = v.Pass && pass
			v.Details = append(v.Details, Detail{OK: pass, Dataset: dataset, Text: fmt.Sprintf(format, args...),
				Measure: key, Value: jsonnum.Float(value), Limit: jsonnum.Float(limit), P: jsonnum.Float(math.NaN()), Runs: runs})
		}
		minRuns := 1.0
		if m, ok := r.Require[ReqMinRuns]; ok {
			minRuns = m
		}
		add(float64(len(sel)) >= minRuns, ReqMinRuns, float64(len(sel)), minRuns, nil, "%s: %d runs (need at least %d)", whereText(r.Where), len(sel), int(minRuns))
		if len(sel) == 0 {
			continue
		}
		var sums []stats.RunSummary
		for _, rd := range sel {
			sums = append(sums, ev.summary(rd))
		}
		if limit, ok := r.Require[ReqPersistentRuns]; ok {
			// A run without a prefix cache is cold throughout, not
			// collapsed (its verdict is uncached), as in compare; a run
			// whose persistence is unknown is not counted either, and a
			// rule whose runs are all unknown fails: no data is no pass.
			var bad, unknown, uncached []string
			for _, s := range sums {
				switch {
				case s.Verdict == stats.VerdictUncached:
					uncached = append(uncached, s.Run)
				case !s.Judged():
					unknown = append(unknown, s.Run)
				case s.Persistent:
					bad = append(bad, s.Run)
				}
			}
			judged := len(sums) - len(uncached) - len(unknown)
			detail := fmt.Sprintf("persistently degraded runs: %d of %d, at most %d allowed", len(bad), judged, int(limit))
			if len(bad) > 0 {
				detail += " (" + names(bad) + ")"
			}
			if len(uncached) > 0 {
				detail += fmt.Sprintf("; %d caching-off run(s) not counted (uncached: %s)", len(uncached), names(uncached))
			}
			if len(unknown) > 0 {
				detail += fmt.Sprintf("; %d run(s) whose persistence is unknown not counted (%s)", len(unknown), names(unknown))
			}
			noData := judged == 0 // caching off or persistence unknown: no data is no pass
			if noData {
				detail += "; no run could be judged"
			}
			add(float64(len(bad)) <= limit && !noData, ReqPersistentRuns, float64(len(bad)), limit, bad, "%s", detail)
		}
		if limit, ok := r.Require[ReqMinEndHitRatio]; ok {
			value := func(s stats.RunSummary) float64 { return s.EndHit }
			worst, run := extreme(sums, value, true)
			add(worst >= limit, ReqMinEndHitRatio, worst, limit, []string{run}, "smallest end hit ratio %s (%s)%s, at least %s required", fmtNum(worst), run, knownToo(sums, value, true, worst), fmtNum(limit))
		}
		if limit, ok := r.Require[ReqMaxEndSessions]; ok {
			value := func(s stats.RunSummary) float64 { return s.EndSessions }
			worst, run := extreme(sums, value, false)
			add(worst <= limit, ReqMaxEndSessions, worst, limit, []string{run}, "largest end sessions in the system %s (%s)%s, at most %s allowed", fmtNum(worst), run, knownToo(sums, value, false, worst), fmtNum(limit))
		}
		if limit, ok := r.Require[ReqMaxRecoveryMin]; ok {
			n, allOK := 0, true
			for _, s := range sums {
				if s.Recovery == nil {
					continue
				}
				n++
				ok := s.Recovery.Status == stats.Recovered && s.Recovery.Minutes <= limit
				allOK = allOK && ok
				switch {
				case s.Recovery.Status != stats.Recovered:
					add(false, ReqMaxRecoveryMin, math.NaN(), limit, []string{s.Run}, "%s: %s after control began at %s s", s.Run, s.Recovery.Status, fmtNum(s.ControlStartS))
				case s.Recovery.Minutes > limit:
					add(false, ReqMaxRecoveryMin, s.Recovery.Minutes, limit, []string{s.Run}, "%s: recovered after %s min, at most %s allowed", s.Run, fmtNum(s.Recovery.Minutes), fmtNum(limit))
				}
			}
			controlled := 0
			for _, s := range sums {
				if s.ControlJudged {
					controlled++
				}
			}
			switch {
			case controlled == 0:
				// No run's state when control began is known (no control,
				// one that began at 0 or after the run's end, caching
				// off, no turns before it), so nothing could be judged to
				// recover: no data is no pass.
				add(false, ReqMaxRecoveryMin, math.NaN(), limit, nil, "no selected run has a control whose start could be judged (control.start_s after t=0 and before the run's end, caching on, cached tokens reported, turns in the 5 minutes before it): no recovery to check")
			case allOK:
				add(true, ReqMaxRecoveryMin, math.NaN(), limit, nil, "%d runs collapsed when control began, all recovered within %s min", n, fmtNum(limit))
			}
		}
		ev.latencyRequirements(r, sel, add)
	}
	return v, nil
}

// extreme returns the smallest (or largest) value and its run; a run
// without a value is the worst of all (NaN).
func extreme(sums []stats.RunSummary, value func(stats.RunSummary) float64, smallest bool) (float64, string) {
	best, run := math.NaN(), ""
	for _, s := range sums {
		x := value(s)
		if math.IsNaN(x) {
			return x, s.Run
		}
		if run == "" || (smallest && x < best) || (!smallest && x > best) {
			best, run = x, s.Run
		}
	}
	return best, run
}

// knownToo is what a detail adds when the worst value is missing (NaN):
// the worst of the known values, which may fail the requirement too and
// would otherwise go unsaid; "" otherwise.
func knownToo(sums []stats.RunSummary, value func(stats.RunSummary) float64, smallest bool, worst float64) string {
	if !math.IsNaN(worst) {
		return ""
	}
	var known []stats.RunSummary
	for _, s := range sums {
		if !math.IsNaN(value(s)) {
			known = append(known, s)
		}
	}
	if len(known) == 0 {
		return "; no run has the value"
	}
	x, run := extreme(known, value, smallest)
	return fmt.Sprintf("; of the runs with one, %s (%s)", fmtNum(x), run)
}

// comparisons maps the comparison requirements to their measures and to
// whether a higher candidate value is worse.
var comparisons = []struct {
	key, measure  string
	higherIsWorse bool
}{
	{ReqCollapseNotWorse, compare.MeasureCollapseRate, true},
	{ReqHitNotWorse, compare.MeasureEndHit, false},
	{ReqTputNotWorse, compare.MeasureTurnsPerS, false},
	{ReqTTFTNotWorse, compare.MeasureTTFTP90, true},
	{ReqEndTTFTNotWorse, compare.MeasureEndTTFTP90, true},
	{ReqTPOTNotWorse, compare.MeasureTPOTP90, true},
	{ReqE2ENotWorse, compare.MeasureE2EP90, true},
	{ReqGoodputNotWorse, compare.MeasureGoodput, false},
}

// comparison evaluates a rule comparing a candidate column with a
// baseline: it fails where the candidate is significantly worse (the
// two-sided test of compare at the rule's alpha, Holm-adjusted across the
// configurations unless opts.NoHolm), where too few runs were compared
// for any outcome to be significant (the smallest p the test could give
// with them, Holm-adjusted, exceeds alpha: no data is no pass), and where
// nothing could be compared.
func (ev *evaluator) comparison(r *Rule, opts compare.Options) (Verdict, error) {
	v := Verdict{Rule: r.Name, Pass: true}
	var pairs [][2]compare.Column
	switch {
	case r.Baseline != "":
		b, err := ev.column(r.Baseline)
		if err != nil {
			return v, err
		}
		c, err := ev.column(r.Candidate)
		if err != nil {
			return v, err
		}
		pairs = append(pairs, [2]compare.Column{b, c})
	case len(ev.columns) == 1 && ev.by != "":
		return v, fmt.Errorf("a comparison needs two columns, and --by %s gives one: every run has %s %q", ev.by, ev.by, ev.columns[0].Label)
	case len(ev.columns) < 2:
		return v, fmt.Errorf("a comparison needs two datasets (or --by)")
	default:
		for _, c := range ev.columns[1:] {
			pairs = append(pairs, [2]compare.Column{ev.columns[0], c})
		}
	}
	if a, ok := r.Require[ReqAlpha]; ok {
		opts.Alpha = a
	}
	for _, p := range pairs {
		var cols []compare.Column
		for _, c := range p {
			sel, err := selectRuns(c.Runs, r.Where)
			if err != nil {
				return v, err
			}
			cols = append(cols, compare.Column{Label: c.Label, Runs: sel})
		}
		res, err := compare.Compare(cols, opts)
		if err != nil {
			return v, err
		}
		for _, cmp := range comparisons {
			if r.Require[cmp.key] != 1 {
				continue
			}
			m, _ := compare.MeasureByID(cmp.measure)
			tested := 0
			for _, t := range res.Tables {
				if t.Measure.ID != cmp.measure {
					continue
				}
				// Holm multiplies the smallest p of the table's tests by
				// their number, and no adjusted p is below that, nor
				// below its own: the smallest p a row could reach after
				// Holm is the larger of its own smallest and that
				// number times the table's smallest (stats.Holm counts
				// the tests with a p). A significant row is testable
				// whatever the bound says (a test with ties can go below
				// the exact floor).
				tests, floor := 0, math.Inf(1)
				for _, row := range t.Rows {
					if vs := row.Cells[1].Vs; vs != nil && !math.IsNaN(float64(vs.P)) {
						tests++
						floor = min(floor, vs.DesignMinP())
					}
				}
				if !res.Holm {
					tests = 1
				}
				for _, row := range t.Rows {
					base, cand := row.Cells[0], row.Cells[1]
					if cand.Vs == nil {
						continue
					}
					tested++
					worse := cand.Vs.Significant && cand.Vs.Higher == cmp.higherIsWorse && float64(cand.Vs.Diff) != 0
					text := fmt.Sprintf("%s, %s: %s %s, %s %s: %s", m.ID, row.Config, base.Column, m.CellText(base), cand.Column, m.CellText(cand), m.DeltaText(cand.Vs))
					if minP := max(cand.Vs.DesignMinP(), float64(tests)*floor); !cand.Vs.Significant && minP > res.Alpha {
						// No outcome of these runs could be significant, so
						// the rule can neither pass nor fail on them: a gate
						// that cannot fail would pass anything, and no data
						// is no pass.
						worse = true
						text += fmt.Sprintf(" (too few runs to test at alpha = %g: the smallest p these runs could give is %.3f", res.Alpha, cand.Vs.DesignMinP())
						if minP > cand.Vs.DesignMinP() {
							text += fmt.Sprintf(", %.3f after Holm over %d configurations", minP, tests)
						}
						text += "; the rule cannot pass on them)"
					}
					v.Pass = v.Pass && !worse
					v.Details = append(v.Details, Detail{OK: !worse, Measure: m.ID, Config: row.Config,
						Text:  text,
						Value: jsonnum.Float(cand.Vs.Diff), Limit: jsonnum.Float(math.NaN()), P: jsonnum.Float(cand.Vs.PAdjusted)})
				}
			}
			if tested == 0 {
				v.Pass = false
				v.Details = append(v.Details, Detail{Measure: m.ID, Text: fmt.Sprintf("%s: %s vs %s: no configuration with runs on both sides to compare", m.ID, p[0].Label, p[1].Label),
					Value: jsonnum.Float(math.NaN()), Limit: jsonnum.Float(math.NaN()), P: jsonnum.Float(math.NaN())})
			}
		}
	}
	return v, nil
}
