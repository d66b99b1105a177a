package replay

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/outlast-dev/outlast/stats"
)

// The printed report of a replay: the fitted model, how well the as-is
// replay matches the observed run, a table per variant and the pool search.

// PrintFit prints the fitted workload and engine, and the warnings.
func PrintFit(w io.Writer, m *Fitted) {
	o := &m.Observed
	degraded := ""
	if !math.IsNaN(o.FirstDegradedS) {
		degraded = " from minute " + num(o.FirstDegradedS/60, -1)
	}
	fmt.Fprintf(w, "observed run %s (%s, arm %s, %s min): %s%s, end hit ratio %s, %s sessions in the system at the end\n\n",
		m.Run, orDash(o.Design), orDash(o.Arm), num(m.DurationS/60, 0), o.Verdict, degraded, num(o.EndHit, 2), num(o.EndSessions, 1))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	wl, a := m.Workload, &m.Arrivals
	fmt.Fprintf(tw, "workload\t%d sessions, %s turns observed\n", len(wl.Sessions), thousands(wl.Turns))
	if a.BaseFrom == "observed" {
		fmt.Fprintf(tw, "  base arrivals\t%s/s (observed)\n", sig(a.BaseRate))
	} else {
		fmt.Fprintf(tw, "  base arrivals\t%s/s (%s; observed %s/s)\n", num(a.BaseRate, -1), a.BaseFrom, sig(a.BaseObserved))
	}
	if b := a.Burst; b != nil {
		fmt.Fprintf(tw, "  burst\t+%s/s over %s–%s s (%s; %d burst sessions observed)\n", sig(b.Rate), num(b.StartS, 0), num(b.EndS, 0), a.BurstFrom, a.BurstSessions)
	}
	if rc := a.RateChange; rc != nil {
		fmt.Fprintf(tw, "  rate change\t%s/s from %s s\n", num(rc.After, -1), num(rc.AtS, -1))
	}
	if a.Refit != nil {
		fmt.Fprintf(tw, "  arrivals fit\t%s (in place of %s, which does not fit them)\n", a.Refit, a.Check.Process)
	}
	if a.FlushS >= 0 {
		fmt.Fprintf(tw, "  cache flush\tat %s s\n", num(a.FlushS, -1))
	}
	if a.ShiftS >= 0 {
		fmt.Fprintf(tw, "  mix shift\tat %s s (resampled sessions come from the same side of it)\n", num(a.ShiftS, -1))
	}
	fmt.Fprintf(tw, "  origins\t%s\n", originList(wl.Origins))
	fmt.Fprintf(tw, "  shared prefix\t%d tokens (%s)\n", wl.SystemTokens, wl.SystemFrom)
	fmt.Fprintf(tw, "  think time\tmedian %s s, mean %s s (%s)\n", num(wl.ThinkMedianS, 2), num(wl.ThinkMeanS, 2), gapSources(wl.Gaps))
	if wl.Extended > 0 {
		fmt.Fprintf(tw, "  open sessions\t%d extended by %s turns (%s)\n", wl.Extended, thousands(wl.ExtendedTurns), wl.ExtendedFrom)
	}
	fmt.Fprintf(tw, "  largest turn\t%s tokens (prompt + output)\n", thousands(wl.MaxContext))
	fmt.Fprintf(tw, "  control\t%s\n", controlString(m.Arm.Control))
	e := m.Engine
	caching := "on"
	if !e.PrefixCaching {
		caching = "off"
	}
	fmt.Fprintf(tw, "engine\t%s, prefix caching %s\n", e.Name, caching)
	fmt.Fprintf(tw, "  KV pool C\t%s tokens (%s)\n", thousands(e.Pool), e.PoolFrom)
	l := o.MeanContext
	if math.IsNaN(l) || l <= 0 {
		l = float64(wl.MaxContext) / 2
	}
	L := int(math.Round(l))
	// The factors multiply step times, not speeds: above 1 is slower.
	fmt.Fprintf(tw, "  prefill\ttime %s the simulator's default: a cold %s-token turn prefills in %s s\n",
		factor(e.Prefill), thousands(L), num(e.Cost.PrefillS(0, L), 2))
	fmt.Fprintf(tw, "  decode\ttime %s the default: %s tokens/s for one request, %s tokens/s each among 32, at %s tokens\n", factor(e.Decode),
		num(1/e.Cost.DecodeStepS(1, l), 0), num(1/e.Cost.DecodeStepS(32, 32*l), 0), thousands(L))
	switch e.Method {
	case MethodBusy:
		fmt.Fprintf(tw, "  fitted on\t%d %s-minute windows of %s (the engine's busy time in each; cached tokens %s); R² %s\n",
			e.Windows, num(fitWindowS/60, -1), strings.Join(e.Runs, ", "), e.Cached, num(e.R2, 3))
	case MethodLightLoad:
		fmt.Fprintf(tw, "  fitted on\tsingle turns of %s at light load\n", strings.Join(e.Runs, ", "))
	default:
		fmt.Fprintf(tw, "  fitted on\tnothing: the simulator's defaults\n")
	}
	if e.Corrected {
		fmt.Fprintf(tw, "  corrected\t%s\n", e.describeCorrection())
	}
	if e.Fitted() {
		fmt.Fprintf(tw, "  seeds\t%s\n", drawNote(e))
	}
	if f := e.ColdCost; f != nil {
		fmt.Fprintf(tw, "  c(L) (§4)\t%s s + %s ms·L over %d %s\n", num(f.A, 3), num(f.B*1e3, 4), f.N, e.ColdCostFrom)
	}
	tw.Flush()
	if len(m.Warnings) > 0 {
		fmt.Fprintln(w, "warnings:")
		for _, s := range m.Warnings {
			fmt.Fprintln(w, "  "+s)
		}
	}
	fmt.Fprintln(w)
}

// drawNote says how the seeds use the fit's uncertainty.
func drawNote(e *Engine) string {
	if math.IsNaN(e.Prefill.SE) && math.IsNaN(e.Decode.SE) {
		return "every seed runs these factors: the fit gives no standard errors to draw from"
	}
	s := "seed 1 runs these factors; every other seed draws its own from their errors"
	if !math.IsNaN(e.Prefill.SE) && !math.IsNaN(e.Decode.SE) {
		s += " (log-normal, correlation " + num(e.Corr, 2) + ")"
	}
	return s + ", the same in every variant"
}

// PrintGrounding prints the as-is gate: the observed run beside the exact
// trace replay and the seeds, the reproduction criterion part by part, and
// whether the variants are grounded.
func PrintGrounding(w io.Writer, g *Grounding) {
	switch {
	case g.Refused != "":
		fmt.Fprintf(w, "as-is replay: NOT GROUNDED, refused: %s\n", g.Refused)
	case g.Grounded:
		fmt.Fprintln(w, "as-is replay against the observed run: reproduced, so the variants below are grounded in it")
	default:
		fmt.Fprintln(w, "as-is replay against the observed run: NOT REPRODUCED, so the variants are not grounded in it")
	}
	n := g.Reproduced.N
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\tobserved\tseed 1 (the trace)\t%s\n", countNoun(n, "seed"))
	o, t, s := &g.Observed, &g.Trace, &g.Outcome
	fmt.Fprintf(tw, "  verdict\t%s\t%s\t%s\n", o.Verdict, t.Verdict, verdictCounts(s.Verdicts))
	fmt.Fprintf(tw, "  end hit ratio\t%s\t%s\t%s\n", num(o.EndHit, 2), num(t.EndHit, 2), spread(s.EndHit, 2))
	fmt.Fprintf(tw, "  end sessions\t%s\t%s\t%s\n", num(o.EndSessions, 1), num(t.EndSessions, 1), spread(s.EndSessions, 1))
	tw.Flush()
	fmt.Fprintf(w, "criterion: a seed reproduces the run when it ends with its verdict, an end hit ratio within %s of its and end\n", num(ReproduceHit, 2))
	fmt.Fprintf(w, "sessions within ×%s (or %s sessions) of its; the run is not reproduced when the one-sided 95%% upper bound of\n",
		num(ReproduceSessions, -1), num(ReproduceSessionsAbs, -1))
	fmt.Fprintf(w, "the share of seeds that reproduce it is below %s\n", num(ReproduceShare, 2))
	fmt.Fprintf(w, "  %d of %d seeds reproduce it (%s, 95%% CI %s; upper bound %s): %s\n", g.Reproduced.K, n, num(g.Reproduced.Share, 2), ci(g.Reproduced),
		num(g.Reproduced.Upper(), 2), strings.Join(g.Parts(), ", "))
	if !g.Grounded {
		fmt.Fprintln(w, "Not grounded: the run's collapse (or health) is not the mechanism the model knows, or the model is")
		fmt.Fprintln(w, "miscalibrated for this run, so what a variant changes says nothing about the run.")
	}
	if o.Verdict == stats.VerdictCacheUnreported {
		fmt.Fprintln(w, "  the observed run reports no cached tokens: its hit ratio and verdict are unknown, so only the sessions in the system compare")
	}
	fmt.Fprintln(w)
}

// PrintNotGrounded lists the variants asked for that were not replayed
// because the run is not grounded.
func PrintNotGrounded(w io.Writer, variants []Variant, findPool bool) {
	var names []string
	for _, v := range variants {
		if v.Name != AsIs {
			names = append(names, v.Name)
		}
	}
	if findPool {
		names = append(names, "--find-pool")
	}
	if len(names) == 0 {
		return
	}
	fmt.Fprintf(w, "not grounded, no verdict: %s (--ungrounded replays them anyway, labelled so)\n\n", strings.Join(names, ", "))
}

// PrintOutcomes prints the variants' outcomes: per variant the seeds by
// verdict, each with the 95% exact interval of its share, and the share
// that did not end persistently degraded; then the end state and recovery,
// and for controls how many seeds control caught before they collapsed.
// Variants of a run that is not grounded are labelled so.
func PrintOutcomes(w io.Writer, outs []Outcome, grounded bool) {
	label := func(o Outcome) string {
		if !grounded && o.Variant != AsIs {
			return o.Variant + " [not grounded]"
		}
		return o.Variant
	}
	var shown []stats.Verdict
	for _, v := range Outcomes {
		for _, o := range outs {
			if o.Verdicts[v] > 0 || v.Judged() {
				shown = append(shown, v)
				break
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"VARIANT", "SEEDS", "NOT PERSISTENT"}
	for _, v := range shown {
		head = append(head, strings.ToUpper(string(v)))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, o := range outs {
		row := []string{label(o), strconv.Itoa(o.Runs), countCI(o.NotPersistent)}
		for _, v := range shown {
			row = append(row, countCI(o.Share(v)))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	fmt.Fprintln(w, "seeds by verdict (outlast report's), each with the 95% exact (Clopper–Pearson) interval of its share; not")
	fmt.Fprintln(w, "persistent: every verdict but persistent (under control or not), a seed not judged counted against it.")
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VARIANT\tEND HIT\tEND SESSIONS\tRECOVERY (MIN)\tCONTROL BEGAN")
	for _, o := range outs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", label(o), spread(o.EndHit, 2), spread(o.EndSessions, 1), recoveryString(o), controlSplit(o))
	}
	tw.Flush()
	fmt.Fprintln(w, "end hit: token-weighted hit ratio over the last 10 minutes; end sessions: mean sessions in the system over the last 5;")
	fmt.Fprintln(w, "median [range] over seeds. Recovery: minutes from control start to the recovery (by the rule of outlast report's")
	fmt.Fprintln(w, "verdicts), over the seeds collapsed when control began that recovered (<5: within the first window). Control began:")
	fmt.Fprintln(w, "how many seeds had not yet collapsed (prevention, not rescue) and how many had (rescue), and what became of each.")
	for _, o := range outs {
		if o.Prevention && o.Control != nil {
			fmt.Fprintf(w, "%s: control from %s s, before the observed run collapsed: it measures prevention, not rescue.\n", o.Variant, num(o.Control.StartS, -1))
		}
	}
}

// controlSplit prints a controlled variant's seeds by their state when
// control began.
func controlSplit(o Outcome) string {
	c := o.Control
	if c == nil {
		return "–"
	}
	var parts []string
	if c.Prevention > 0 {
		parts = append(parts, fmt.Sprintf("before collapse in %d (prevention: %d not persistent)", c.Prevention, c.PreventionNotPersistent))
	}
	if c.Rescue > 0 {
		parts = append(parts, fmt.Sprintf("after collapse in %d (rescue: %d recovered)", c.Rescue, c.RescueRecovered))
	}
	if c.Unjudged > 0 {
		parts = append(parts, fmt.Sprintf("unknown in %d", c.Unjudged))
	}
	return strings.Join(parts, "; ")
}

// PrintPoolSearch prints the find-pool search as a table, in the order
// the pools were tried, and its answer with its confidence.
func PrintPoolSearch(w io.Writer, ps PoolSearch) {
	fmt.Fprintf(w, "find-pool: the smallest KV pool, to within %d%%, at which the one-sided 95%% lower bound of the share of seeds\n",
		int(math.Round((PoolPrecision-1)*100)))
	fmt.Fprintf(w, "that do not end persistently degraded is at least %s (exact binomial bounds; seeds added until they decide, up to %d)\n", num(ps.Target, -1), ps.MaxSeeds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "POOL (TOKENS)\tNOT PERSISTENT\t95% LOWER\t95% UPPER\tDECISION\tEND HIT\tEND SESSIONS\t")
	for _, s := range ps.Steps {
		np := s.Outcome.NotPersistent
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\t%s\t%s\t%s\t\n", thousands(s.Pool), np.K, np.N, num(s.Lower, 3), num(s.Upper, 3), s.Decision,
			spread(s.Outcome.EndHit, 2), spread(s.Outcome.EndSessions, 1))
	}
	tw.Flush()
	below := thousands(ps.Below)
	if ps.BelowDecision == Undecided {
		below += fmt.Sprintf(" could not be decided within %d seeds", ps.MaxSeeds)
	} else {
		below += " falls short"
	}
	switch {
	case ps.Pool == 0 && anyUndecided(ps):
		fmt.Fprintf(w, "answer: none shown: no pool up to %s tokens meets %s with 95%% confidence within %d seeds (some could not be decided; more --max-seeds may)\n",
			thousands(ps.Below), num(ps.Target, -1), ps.MaxSeeds)
	case ps.Pool == 0:
		fmt.Fprintf(w, "answer: none: no pool up to %s tokens meets %s: the arrivals outrun the cache-warm engine, which no pool fixes\n",
			thousands(ps.Below), num(ps.Target, -1))
	case ps.Below == 0:
		fmt.Fprintf(w, "answer: %s tokens, the smallest pool that holds the largest turn, already meets it with 95%% confidence\n", thousands(ps.Pool))
	default:
		fmt.Fprintf(w, "answer: %s tokens meets it with 95%% confidence (%s)\n", thousands(ps.Pool), below)
	}
	backlogNote(w, ps)
	fmt.Fprintln(w)
}

func anyUndecided(ps PoolSearch) bool {
	for _, s := range ps.Steps {
		if s.Decision == Undecided {
			return true
		}
	}
	return false
}

// backlogNote warns when the answer's pool keeps the seeds from
// persistent degradation while far more sessions wait than at the run's
// own pool (the search's first step): a controller that holds sessions
// back keeps the cache warm at any pool, and the hit ratio then hides a
// backlog.
func backlogNote(w io.Writer, ps PoolSearch) {
	if ps.Pool == 0 || len(ps.Steps) == 0 {
		return
	}
	own := ps.Steps[0].Outcome.EndSessions.Median
	for _, s := range ps.Steps {
		if s.Pool != ps.Pool {
			continue
		}
		at := s.Outcome.EndSessions.Median
		if own > 0 && at > 2*own {
			fmt.Fprintf(w, "note: at %s tokens the runs end with %s sessions in the system against %s at the run's own pool (%s): not degraded by the hit ratio, but with a backlog a controller holds back; weigh the answer with END SESSIONS\n",
				thousands(ps.Pool), num(at, 1), num(own, 1), thousands(ps.Steps[0].Pool))
		}
		return
	}
}

// recoveryString prints the recovery times of a variant's recovered runs
// as the paper's Table 3 does: "<5" when all recovered within the first
// window, "≤6" when some did and the slowest took 6, "13–30" otherwise.
func recoveryString(o Outcome) string {
	r := o.Recovery
	s := fmt.Sprintf("%d recovered, ", r.N)
	switch {
	case r.N == 0:
		return "–"
	case r.Max == 0:
		return s + "<5"
	case r.Min == 0:
		return s + "≤" + strconv.Itoa(int(r.Max))
	case r.Min == r.Max:
		return s + strconv.Itoa(int(r.Min))
	}
	return s + strconv.Itoa(int(r.Min)) + "–" + strconv.Itoa(int(r.Max))
}

// verdictCounts prints verdict counts, most frequent first.
func verdictCounts(v map[stats.Verdict]int) string {
	type kv struct {
		v stats.Verdict
		n int
	}
	var all []kv
	for _, k := range Outcomes {
		if v[k] > 0 {
			all = append(all, kv{k, v[k]})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].n > all[j].n })
	var parts []string
	for _, x := range all {
		parts = append(parts, fmt.Sprintf("%d %s", x.n, x.v))
	}
	return strings.Join(parts, ", ")
}

// countCI prints a count with the 95% interval of its share: "3 (0.04–0.46)".
func countCI(iv stats.BinomialCI) string { return strconv.Itoa(iv.K) + " (" + ci(iv) + ")" }

// ci prints an interval's bounds: "0.04–0.46".
func ci(iv stats.BinomialCI) string { return num(iv.Lo, 2) + "–" + num(iv.Hi, 2) }

// countNoun is "1 seed", "16 seeds".
func countNoun(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
