package check

import (
	"math"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// latencyBounds are the run requirements on latency: every selected run's
// value within the bound; a run without the value (no first-token time,
// no turn sent in the last 10 minutes) fails it, as no data is no pass.
var latencyBounds = []struct {
	key, what string
	upper     bool // an upper bound, else a lower one
	value     func(stats.TurnLatency) float64
}{
	{ReqMaxTTFTP90, "TTFT p90", true, func(l stats.TurnLatency) float64 { return l.TTFT.P90 }},
	{ReqMaxEndTTFTP90, "TTFT p90 over the last 10 minutes", true, func(l stats.TurnLatency) float64 { return l.EndTTFT.P90 }},
	{ReqMaxTPOTP90, "TPOT p90", true, func(l stats.TurnLatency) float64 { return l.TPOT.P90 }},
	{ReqMaxE2EP90, "end-to-end p90", true, func(l stats.TurnLatency) float64 { return l.E2E.P90 }},
	{ReqMinGoodput, "goodput (TTFT ≤ 2s, TPOT ≤ 100ms)", false, func(l stats.TurnLatency) float64 { return l.Goodput.Fraction }},
}

// latency returns the latency of rd's completed turns, computed once.
func (ev *evaluator) latency(rd *schema.RunData) stats.TurnLatency {
	l, ok := ev.latencies[rd]
	if !ok {
		l, _ = stats.NewRunIndex(rd).Latency(stats.DefaultSLO)
		ev.latencies[rd] = l
	}
	return l
}

// latencyRequirements checks r's latency requirements over the selected
// runs, recording each with add.
func (ev *evaluator) latencyRequirements(r *Rule, sel []*schema.RunData, add func(pass bool, key string, value, limit float64, runs []string, format string, args ...any)) {
	for _, b := range latencyBounds {
		limit, ok := r.Require[b.key]
		if !ok {
			continue
		}
		worst, run, known, knownRun := math.NaN(), "", math.NaN(), ""
		for _, rd := range sel {
			x := b.value(ev.latency(rd))
			if math.IsNaN(x) {
				if run == "" || !math.IsNaN(worst) {
					worst, run = x, rd.Run.Run
				}
				continue
			}
			if knownRun == "" || b.upper && x > known || !b.upper && x < known {
				known, knownRun = x, rd.Run.Run
			}
			if run == "" || !math.IsNaN(worst) && (b.upper && x > worst || !b.upper && x < worst) {
				worst, run = x, rd.Run.Run
			}
		}
		extreme, bound, unit := "largest", "at most %s%s allowed", " s"
		pass := worst <= limit
		if !b.upper {
			extreme, bound, unit = "smallest", "at least %s%s required", ""
			pass = worst >= limit
		}
		also := ""
		switch {
		case !math.IsNaN(worst):
		case knownRun == "":
			also = "; no run has the value"
		default:
			also = "; of the runs with one, " + fmtNum(known) + unit + " (" + knownRun + ")"
		}
		add(pass, b.key, worst, limit, []string{run}, "%s %s %s%s (%s)%s, "+bound, extreme, b.what, fmtNum(worst), unitOf(worst, unit), run, also, fmtNum(limit), unit)
	}
}

// unitOf is unit after a value, none after "missing".
func unitOf(v float64, unit string) string {
	if math.IsNaN(v) {
		return ""
	}
	return unit
}
