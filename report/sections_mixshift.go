package report

import (
	"fmt"
	"math"
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
	if dodge(f.Groups) {
		f.Caption += fmt.Sprintf(" Points that would fall on one another (within %s min and %s in hit ratio) are offset to the right by up to %s min for visibility, as in the paper; the table gives the exact values.",
			document.Num(dodgeNearX, -1).Display(), document.Num(dodgeNearY, -1).Display(), document.Num(dodgeMaxX, -1).Display())
	}
	sec.Blocks = append(sec.Blocks, f, b.figure6TTFT(e, all), t)
	b.mixShiftFinding(e, all)
}

// Coincident points of Figure 6: within dodgeNearX minutes and dodgeNearY
// in hit ratio of one another, they are spread over dodgeMaxX minutes to
// the right (the paper offsets by ≤ 0.4 min).
const (
	dodgeNearX = 0.05
	dodgeNearY = 0.02
	dodgeMaxX  = 0.4
)

// dodge spreads the points of groups that fall on one another: each
// cluster of k points (near its first point, in group and point order)
// gets x offsets 0, dodgeMaxX/(k−1), ..., dodgeMaxX. It reports whether it
// moved any.
func dodge(groups []document.ScatterGroup) bool {
	type ref struct{ g, p int }
	var anchors [][2]float64
	var members [][]ref
	for gi, g := range groups {
		for pi, pt := range g.Points {
			if math.IsNaN(pt[0]) || math.IsNaN(pt[1]) {
				continue
			}
			c := -1
			for k, a := range anchors {
				if math.Abs(pt[0]-a[0]) <= dodgeNearX && math.Abs(pt[1]-a[1]) <= dodgeNearY {
					c = k
					break
				}
			}
			if c < 0 {
				anchors, members = append(anchors, pt), append(members, nil)
				c = len(anchors) - 1
			}
			members[c] = append(members[c], ref{gi, pi})
		}
	}
	moved := false
	for _, ms := range members {
		if len(ms) < 2 {
			continue
		}
		for i, m := range ms {
			groups[m.g].Points[m.p][0] += dodgeMaxX * float64(i) / float64(len(ms)-1)
		}
		moved = true
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
