package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/stats"
)

// mixShiftSection adds Figure 6: each run's p90 first-phase first-turn
// wait against its end hit ratio.
func (b *builder) mixShiftSection(e *experiment, sec *document.Section, se *SummaryExperiment) {
	all := arms(e.runs)
	f := &document.Scatter{
		ID: "fig6-" + e.slug, Title: "Wait before the shift against hit ratio after it",
		Caption: "Figure 6. Each point is a run: p90 gateway wait of the first turns of sessions arriving before the shift (sessions never served count as waiting until the end) against the hit ratio over the last 10 minutes.",
		XAxis:   document.Axis{Name: "phase-1 first-turn gateway wait, p90", Unit: "min"},
		YAxis:   document.Axis{Name: "hit ratio (end)", Min: 0, Max: 1},
	}
	t := &document.Table{
		ID:      "fig6-data-" + e.slug,
		Caption: "Figure 6 data: first-phase first-turn wait, end hit ratio and TTFT p90 over the last 10 minutes per run.",
		Columns: []document.Column{{Name: "Run"}, {Name: "Arm"}, {Name: "Sessions"}, {Name: "Censored"}, {Name: "p90 wait", Unit: "min"}, {Name: "End hit"}, {Name: "End TTFT p90", Unit: "s"}},
	}
	se.Points = []SummaryWaitPoint{}
	for _, a := range all {
		g := document.ScatterGroup{Name: a, Color: armColor(all, a)}
		for _, r := range e.runs {
			if r.run.Arm != a {
				continue
			}
			w := r.wait
			g.Points = append(g.Points, [2]float64{minutes(w.P90S), r.sum.EndHit})
			g.Labels = append(g.Labels, r.name())
			t.Rows = append(t.Rows, []document.Cell{document.Text(r.name()), document.Text(a), document.Int(int64(w.Sessions)), document.Int(int64(w.Censored)), document.Num(minutes(w.P90S), 1), document.Num(r.sum.EndHit, 2), secCell(r.lat.EndTTFT.P90)})
			se.Points = append(se.Points, waitPoint(r.name(), a, w, r.sum.EndHit, r.lat.EndTTFT.P90))
		}
		f.Groups = append(f.Groups, g)
	}
	if moved := dodge(f.Groups, false); moved > 0 {
		f.Caption += fmt.Sprintf(" Points that would be drawn on one another (closer than %s and %s in hit ratio) are moved to the right, each by the least that clears the others (here at most %s min), as the paper offsets them; the table gives the exact values.",
			sepText, document.Num(dodgeSepY, -1).Display(), document.Num(moved, 2).Display())
	}
	sec.Blocks = append(sec.Blocks, f, b.figure6TTFT(e, all), t)
	b.mixShiftFinding(e, all)
}

// Points of Figure 6 closer than dodgeSepX of the x axis's span and
// dodgeSepY in hit ratio are drawn on one another (a point is about 1% of
// the plot's width); the paper offsets them.
const (
	dodgeSepX = 0.015
	dodgeSepY = 0.03
	sepText   = "1.5% of the axis" // dodgeSepX
)

// dodge moves points of groups that would be drawn on one another to the
// right, in order of x (then group and point order), each by the least
// that puts it dodgeSepX of the span from every point already placed within
// dodgeSepY in y; logX works in log10 x, whose span is whole decades. The
// span is the axis's as drawn, the moved points included: from 0 (or the
// lowest decade) to the largest x. It returns the largest move, in x's
// units (a factor on a log axis; 0 when none moved).
func dodge(groups []document.ScatterGroup, logX bool) float64 {
	type ref struct {
		g, p int
		x    float64
	}
	var pts []ref
	lo, hi := 0.0, 0.0
	if logX {
		lo, hi = math.Inf(1), math.Inf(-1)
	}
	for gi, g := range groups {
		for pi, pt := range g.Points {
			x := pt[0]
			if logX {
				x = math.Log10(x)
			}
			if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(pt[1]) {
				continue
			}
			pts = append(pts, ref{gi, pi, x})
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	if len(pts) < 2 {
		return 0
	}
	span := hi - lo
	if logX {
		span = math.Max(1, math.Ceil(hi)-math.Floor(lo))
	}
	if !(span > 0) {
		span = 1 // every point at x = 0: the axis ECharts draws is about 1 wide
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].x < pts[j].x })
	// Moving points right widens the axis, and the separation with it:
	// place again on the wider span until it holds (a few rounds).
	var xs []float64
	for round := 0; round < 8; round++ {
		sep := dodgeSepX * span
		xs = xs[:0]
		for i, p := range pts {
			y := groups[p.g].Points[p.p][1]
			x := p.x
			for clear := false; !clear; {
				clear = true
				for j := range i {
					// (q + sep) − q may round below sep: a margin ends the loop.
					if math.Abs(x-xs[j]) < sep*(1-1e-9) && math.Abs(y-groups[pts[j].g].Points[pts[j].p][1]) < dodgeSepY {
						x, clear = xs[j]+sep, false
					}
				}
			}
			xs = append(xs, x)
		}
		wide := span
		for _, x := range xs {
			if logX {
				wide = math.Max(wide, math.Ceil(x)-math.Floor(lo))
			} else {
				wide = math.Max(wide, x-lo)
			}
		}
		if !(wide > span) {
			break
		}
		span = wide
	}
	moved := 0.0
	for i, p := range pts {
		if x := xs[i]; x != p.x {
			if logX {
				groups[p.g].Points[p.p][0] = math.Pow(10, x)
				moved = math.Max(moved, math.Pow(10, x-p.x))
			} else {
				groups[p.g].Points[p.p][0] = x
				moved = math.Max(moved, x-p.x)
			}
		}
	}
	return moved
}

// mixShiftFinding tells which arms ended degraded after the shift and how
// long the others made first-phase sessions wait.
func (b *builder) mixShiftFinding(e *experiment, all []string) {
	var degraded []string
	nDeg := 0
	worstWait, worstArm := math.NaN(), ""
	for _, a := range all {
		armDegraded := false
		for _, r := range e.runs {
			if r.run.Arm != a {
				continue
			}
			if r.sum.EndHit < stats.DegradedHit {
				armDegraded = true
				nDeg++
				continue
			}
			if w := r.wait.P90S; !math.IsNaN(w) && !(w <= worstWait) {
				worstWait, worstArm = w, a
			}
		}
		if armDegraded {
			degraded = append(degraded, a)
		}
	}
	nums := numbers{"runs": float64(len(e.runs)), "degraded_runs": float64(nDeg), "max_p90_wait_s": worstWait}
	text := "no arm ended degraded after the shift"
	if len(degraded) > 0 {
		text = fmt.Sprintf("%s ended degraded after the shift (end hit ratio below 0.5 in %d of %d runs)", strings.Join(degraded, ", "), nDeg, len(e.runs))
	}
	if worstArm != "" {
		text += fmt.Sprintf("; the runs that kept the cache made first-phase sessions wait up to %s min at the 90th percentile (%s)", document.Num(minutes(worstWait), 1).Display(), worstArm)
	}
	b.found(e, "mix-shift", false, nil, nums, text+".")
}
