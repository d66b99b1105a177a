package replay

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
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
		fmt.Fprintf(tw, "  fitted on\t%d %s-minute windows of %s (the engine's busy time in each); R² %s\n", e.Windows, num(fitWindowS/60, -1), strings.Join(e.Runs, ", "), num(e.R2, 3))
	case MethodLightLoad:
		fmt.Fprintf(tw, "  fitted on\tsingle turns of %s at light load\n", strings.Join(e.Runs, ", "))
	default:
		fmt.Fprintf(tw, "  fitted on\tnothing: the simulator's defaults\n")
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

// PrintMatch prints how far the as-is replay lands from the observed run.
func PrintMatch(w io.Writer, mt Match) {
	fmt.Fprintf(w, "as-is replay against the observed run: %d of %d seeds reproduce its verdict\n", mt.Same, mt.Seeds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\tobserved\tseed 1 (the trace)\t%d seeds\n", mt.Seeds)
	o, t, s := &mt.Observed, &mt.Trace, &mt.Outcome
	fmt.Fprintf(tw, "  verdict\t%s\t%s\t%s\n", o.Verdict, t.Verdict, verdictCounts(s.Verdicts))
	fmt.Fprintf(tw, "  end hit ratio\t%s\t%s\t%s\n", num(o.EndHit, 2), num(t.EndHit, 2), spread(s.EndHit, 2))
	fmt.Fprintf(tw, "  end sessions\t%s\t%s\t%s\n", num(o.EndSessions, 1), num(t.EndSessions, 1), spread(s.EndSessions, 1))
	tw.Flush()
	if o.Verdict == stats.VerdictCacheUnreported {
		fmt.Fprintln(w, "  the observed run reports no cached tokens: its hit ratio and verdict are unknown, so only the sessions in the system compare")
	}
	fmt.Fprintln(w)
}

// PrintOutcomes prints one line per variant: verdict counts, end hit ratio
// and end sessions (median [range]) and the recovery time of the runs that
// recovered.
func PrintOutcomes(w io.Writer, outs []Outcome) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"VARIANT", "RUNS"}
	var shown []stats.Verdict
	for _, v := range Verdicts {
		for _, o := range outs {
			if o.Verdicts[v] > 0 || v != stats.VerdictUncached {
				shown = append(shown, v)
				break
			}
		}
	}
	for _, v := range shown {
		head = append(head, strings.ToUpper(string(v)))
	}
	head = append(head, "END HIT", "END SESSIONS", "RECOVERY (MIN)")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, o := range outs {
		row := []string{o.Variant, strconv.Itoa(o.Runs)}
		for _, v := range shown {
			row = append(row, strconv.Itoa(o.Verdicts[v]))
		}
		row = append(row, spread(o.EndHit, 2), spread(o.EndSessions, 1), recoveryString(o))
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	fmt.Fprintln(w, "end hit: token-weighted hit ratio over the last 10 minutes; end sessions: mean sessions in the system over the last 5;")
	fmt.Fprintln(w, "median [range] over seeds. Recovery: minutes from control start to the first 5-minute window from which the hit")
	fmt.Fprintln(w, "ratio stays at 0.8 or above, over the runs that recovered (<5: within the first window).")
}

// PrintPoolSearch prints the find-pool search as a table, in the order
// the pools were tried, and its answer.
func PrintPoolSearch(w io.Writer, ps PoolSearch, seeds int) {
	fmt.Fprintf(w, "find-pool: the smallest KV pool at which at least %d%% of %d seeds stay healthy, to within %d%%\n",
		int(HealthyShare*100), seeds, int(math.Round((PoolPrecision-1)*100)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "POOL (TOKENS)\tHEALTHY\tEND HIT\tEND SESSIONS\t")
	for _, s := range ps.Steps {
		mark := ""
		if s.OK {
			mark = " ok"
		}
		fmt.Fprintf(tw, "%s\t%d/%d%s\t%s\t%s\t\n", thousands(s.Pool), s.Outcome.Healthy(), s.Outcome.Runs, mark, spread(s.Outcome.EndHit, 2), spread(s.Outcome.EndSessions, 1))
	}
	tw.Flush()
	switch {
	case ps.Pool == 0:
		fmt.Fprintf(w, "no pool up to %s tokens keeps %d%% of the seeds healthy: the arrivals outrun the cache-warm engine, which no pool fixes\n",
			thousands(ps.Below), int(HealthyShare*100))
	case ps.Below == 0:
		fmt.Fprintf(w, "answer: %s tokens, the smallest pool that holds the largest turn, already keeps them healthy\n", thousands(ps.Pool))
	default:
		fmt.Fprintf(w, "answer: %s tokens (%s falls short)\n", thousands(ps.Pool), thousands(ps.Below))
	}
	backlogNote(w, ps)
	fmt.Fprintln(w)
}

// backlogNote warns when the answer's pool keeps the seeds healthy by the
// hit ratio while far more sessions wait than at the run's own pool (the
// search's first step): a controller that holds sessions back keeps the
// cache warm at any pool, and "healthy" then hides a backlog.
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
			fmt.Fprintf(w, "note: at %s tokens the runs end with %s sessions in the system against %s at the run's own pool (%s): healthy by the hit ratio, but with a backlog a controller holds back; weigh the answer with END SESSIONS\n",
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

func verdictCounts(v map[stats.Verdict]int) string {
	type kv struct {
		v stats.Verdict
		n int
	}
	var all []kv
	for _, k := range Verdicts {
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

func controlString(c sim.Control) string {
	if c.Kind == schema.ControlNone || c.Kind == "" {
		return "none"
	}
	s := c.Kind + " from " + num(c.StartS, -1) + " s"
	switch c.Kind {
	case schema.ControlBudgeter, schema.ControlAdaptiveCap:
		s += fmt.Sprintf(" (low %s, high %s)", num(c.Low, -1), num(c.High, -1))
	case schema.ControlSessionCap:
		s += fmt.Sprintf(" (k %d, k_hi %d)", c.K, c.KHi)
	case schema.ControlAdmissionCap:
		s += fmt.Sprintf(" (k %d)", c.K)
	case schema.ControlAIMD:
		s += fmt.Sprintf(" (k0 %d)", c.K)
	}
	return s
}

func gapSources(g map[string]int) string {
	var parts []string
	for _, k := range []string{GapFromReady, GapFromSent, GapFromFilled} {
		if g[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", k, thousands(g[k])))
		}
	}
	if len(parts) == 0 {
		return "no second turns"
	}
	return "from " + strings.Join(parts, ", ")
}

func factor(f Factor) string {
	s := "×" + num(f.Value, 3)
	if !math.IsNaN(f.SE) {
		s += " ± " + num(f.SE, 3)
	}
	return s
}

func spread(s Spread, prec int) string {
	if s.N == 0 {
		return "–"
	}
	if s.N == 1 {
		return num(s.Median, prec)
	}
	return num(s.Median, prec) + " [" + num(s.Min, prec) + "–" + num(s.Max, prec) + "]"
}

// num prints v with prec decimals (-1: as few as needed), "–" for NaN.
func num(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	if prec < 0 {
		return strconv.FormatFloat(math.Round(v*1e9)/1e9, 'f', -1, 64)
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// sig prints v to 4 significant digits, "–" for NaN.
func sig(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// thousands prints n with thousands separators: 400,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
