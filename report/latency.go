package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/internal/jsonnum"
	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/stats"
)

// Latency, what users feel (stats.RunIndex.Latency): per run, the exact
// percentiles of its completed turns' queue wait, TTFT, TPOT and
// end-to-end latency, the TTFT of the turns sent in its last 10 minutes
// and its goodput under the report's SLO. A run keeps those numbers and,
// for the figures that pool an arm's turns, its TTFT and end-to-end
// percentiles 0, 1, …, 100: a few hundred numbers, whatever its length,
// so that the report's memory does not grow with the turns of every run.

// gridPoints is how many percentiles of a run's TTFT and end-to-end
// latency are kept for its arm's distribution (0, 1, …, 100).
const gridPoints = 101

// runLatency is what the report keeps of a run's latency.
type runLatency struct {
	stats.TurnLatency
	// ttftGrid and e2eGrid are the percentiles 0, 1, …, 100 of the run's
	// TTFT and end-to-end latency (nil without any).
	ttftGrid, e2eGrid []float64
}

// measureLatency measures the run indexed by x under slo.
func measureLatency(x *stats.RunIndex, slo stats.SLO) runLatency {
	l, s := x.Latency(slo)
	return runLatency{TurnLatency: l, ttftGrid: quantileGrid(s.TTFT), e2eGrid: quantileGrid(s.E2E)}
}

// quantileGrid returns the percentiles 0, 1, …, 100 of sorted, nil when
// it is empty.
func quantileGrid(sorted []float64) []float64 {
	if len(sorted) == 0 {
		return nil
	}
	g := make([]float64, gridPoints)
	for i := range g {
		g[i] = stats.Quantile(sorted, float64(i)/float64(gridPoints-1))
	}
	return g
}

// gridCDF is the share of a run's values at or below v, read off its
// percentile grid (linear between percentiles, as the percentiles are).
func gridCDF(g []float64, v float64) float64 {
	n := len(g) - 1
	switch {
	case v < g[0]:
		return 0
	case v >= g[n]:
		return 1
	}
	// The last percentile at or below v.
	j := sort.Search(len(g), func(i int) bool { return g[i] > v }) - 1
	return (float64(j) + (v-g[j])/(g[j+1]-g[j])) / float64(n)
}

// pooledCDF is the distribution of the turns of runs, each run's weighted
// by its number of turns, at xs points spaced evenly on a log scale over
// the positive values the grids reach. ok is false when no run has a
// positive value.
func pooledCDF(runs []*runInfo, grid func(*runInfo) ([]float64, int), points int) (xs, ys []float64, ok bool) {
	lo, hi := math.Inf(1), 0.0
	for _, r := range runs {
		g, _ := grid(r)
		for _, v := range g {
			if v > 0 {
				lo = min(lo, v)
				hi = max(hi, v)
			}
		}
	}
	if !(hi > 0) {
		return nil, nil, false
	}
	if !(hi > lo) {
		hi = lo * 1.01
	}
	for i := range points {
		x := lo * math.Pow(hi/lo, float64(i)/float64(points-1))
		w, sum := 0.0, 0.0
		for _, r := range runs {
			g, n := grid(r)
			if g == nil {
				continue
			}
			w += float64(n)
			sum += float64(n) * gridCDF(g, x)
		}
		xs, ys = append(xs, x), append(ys, sum/w)
	}
	return xs, ys, true
}

// ParseSLO parses an SLO as `outlast report --slo` takes it:
// comma-separated KEY=DURATION with keys ttft, tpot and e2e and Go
// durations ("2s", "100ms", "1.5s"), e.g. "ttft=2s,tpot=100ms". The
// measures not named are not bounded.
func ParseSLO(s string) (stats.SLO, error) {
	var slo stats.SLO
	seen := map[string]bool{}
	for part := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok {
			return slo, fmt.Errorf("--slo %q: want KEY=DURATION, e.g. ttft=2s,tpot=100ms", part)
		}
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d <= 0 {
			return slo, fmt.Errorf("--slo %s: want a positive duration such as 2s or 100ms, have %q", k, v)
		}
		if seen[k] {
			return slo, fmt.Errorf("--slo: %s given twice", k)
		}
		seen[k] = true
		switch k {
		case "ttft":
			slo.TTFTS = d.Seconds()
		case "tpot":
			slo.TPOTS = d.Seconds()
		case "e2e":
			slo.E2ES = d.Seconds()
		default:
			return slo, fmt.Errorf("--slo: unknown measure %q (want ttft, tpot or e2e)", k)
		}
	}
	return slo, nil
}

// sloText states an SLO: "TTFT ≤ 2s, TPOT ≤ 100ms".
func sloText(s stats.SLO) string {
	var parts []string
	for _, b := range []struct {
		name string
		v    float64
	}{{"TTFT", s.TTFTS}, {"TPOT", s.TPOTS}, {"end-to-end", s.E2ES}} {
		if b.v > 0 {
			parts = append(parts, b.name+" ≤ "+durText(b.v))
		}
	}
	if len(parts) == 0 {
		return "no bound"
	}
	return strings.Join(parts, ", ")
}

// durText prints seconds as a Go duration, "2s", "100ms".
func durText(s float64) string {
	return time.Duration(math.Round(s * 1e9)).String()
}

// summarySLO is the SLO as summary.json states it.
func summarySLO(s stats.SLO) SummarySLO {
	b := func(v float64) jsonnum.Float {
		if v > 0 {
			return jsonnum.Float(v)
		}
		return jsonnum.Float(math.NaN())
	}
	return SummarySLO{TTFTS: b(s.TTFTS), TPOTS: b(s.TPOTS), E2ES: b(s.E2ES), Text: sloText(s)}
}

// setLatency puts a run's latency in its summary row.
func setLatency(sr *SummaryLatency, l stats.TurnLatency) {
	f := func(v float64) jsonnum.Float { return jsonnum.Float(v) }
	sr.TTFTP50S, sr.TTFTP90S, sr.TTFTP99S = f(l.TTFT.P50), f(l.TTFT.P90), f(l.TTFT.P99)
	sr.TPOTP50S, sr.TPOTP90S, sr.TPOTP99S = f(l.TPOT.P50), f(l.TPOT.P90), f(l.TPOT.P99)
	sr.E2EP50S, sr.E2EP90S, sr.E2EP99S = f(l.E2E.P50), f(l.E2E.P90), f(l.E2E.P99)
	sr.QueueP50S, sr.QueueP90S, sr.QueueP99S = f(l.Queue.P50), f(l.Queue.P90), f(l.Queue.P99)
	sr.EndTTFTP90S, sr.Goodput, sr.GoodputTurns = f(l.EndTTFT.P90), f(l.Goodput.Fraction), l.Goodput.N
	sr.TurnsCompleted, sr.TurnsAborted, sr.TurnsErrored, sr.TurnsFirstToken = l.Completed, l.Aborted, l.Errored, l.WithFirstToken
}

// armLatency is the latency of one arm of an experiment: the median over
// its runs of each run's value (a run without the value left out), and
// goodput over the arm's turns pooled.
type armLatency struct {
	arm                                     string
	runs                                    []*runInfo
	completed, aborted, errored, firstToken int
	ttft, tpot, e2e, queue                  [3]float64 // p50, p90, p99
	endTTFT                                 float64
	goodput                                 stats.Proportion
}

// armLatencies returns the latency of each arm of runs, in order.
func armLatencies(runs []*runInfo, armsInOrder []string) []armLatency {
	var out []armLatency
	for _, a := range armsInOrder {
		al := armLatency{arm: a}
		good, judged := 0, 0
		for _, r := range runs {
			if r.run.Arm != a {
				continue
			}
			al.runs = append(al.runs, r)
			l := r.lat
			al.completed += l.Completed
			al.aborted += l.Aborted
			al.errored += l.Errored
			al.firstToken += l.WithFirstToken
			good += l.Goodput.K
			judged += l.Goodput.N
		}
		if len(al.runs) == 0 {
			continue
		}
		al.goodput = stats.NewProportion(good, judged)
		med := func(f func(stats.TurnLatency) float64) float64 {
			var v []float64
			for _, r := range al.runs {
				if x := f(r.lat.TurnLatency); !math.IsNaN(x) {
					v = append(v, x)
				}
			}
			return stats.Median(v)
		}
		for i, p := range []func(stats.Percentiles) float64{
			func(p stats.Percentiles) float64 { return p.P50 },
			func(p stats.Percentiles) float64 { return p.P90 },
			func(p stats.Percentiles) float64 { return p.P99 },
		} {
			al.ttft[i] = med(func(l stats.TurnLatency) float64 { return p(l.TTFT) })
			al.tpot[i] = med(func(l stats.TurnLatency) float64 { return p(l.TPOT) })
			al.e2e[i] = med(func(l stats.TurnLatency) float64 { return p(l.E2E) })
			al.queue[i] = med(func(l stats.TurnLatency) float64 { return p(l.Queue) })
		}
		al.endTTFT = med(func(l stats.TurnLatency) float64 { return l.EndTTFT.P90 })
		out = append(out, al)
	}
	return out
}

// summary is the arm's latency as summary.json gives it.
func (al armLatency) summary() SummaryArmLatency {
	f := func(v float64) jsonnum.Float { return jsonnum.Float(v) }
	return SummaryArmLatency{Arm: al.arm, Runs: len(al.runs), SummaryLatency: SummaryLatency{
		TurnsCompleted: al.completed, TurnsAborted: al.aborted, TurnsErrored: al.errored, TurnsFirstToken: al.firstToken,
		TTFTP50S: f(al.ttft[0]), TTFTP90S: f(al.ttft[1]), TTFTP99S: f(al.ttft[2]),
		TPOTP50S: f(al.tpot[0]), TPOTP90S: f(al.tpot[1]), TPOTP99S: f(al.tpot[2]),
		E2EP50S: f(al.e2e[0]), E2EP90S: f(al.e2e[1]), E2EP99S: f(al.e2e[2]),
		QueueP50S: f(al.queue[0]), QueueP90S: f(al.queue[1]), QueueP99S: f(al.queue[2]),
		EndTTFTP90S: f(al.endTTFT), Goodput: f(al.goodput.Fraction), GoodputTurns: al.goodput.N,
	}}
}

// secCell shows seconds to 3 significant digits: 0.132, 1.22, 155.
func secCell(v float64) document.Cell {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return document.Missing()
	}
	return sig3Cell(v)
}

// secText prints seconds for prose: "155 s", "0.4 s", or "unknown".
func secText(v float64) string {
	c := secCell(v)
	if c.IsMissing() {
		return "unknown"
	}
	return c.String() + " s"
}

// pctText prints a fraction for prose: "12%", or "unknown".
func pctText(v float64) string {
	if math.IsNaN(v) {
		return "unknown"
	}
	return strconv.FormatFloat(math.Round(100*v), 'f', 0, 64) + "%"
}
