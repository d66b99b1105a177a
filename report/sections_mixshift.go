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
	sec.Blocks = append(sec.Blocks, f, b.figure6TTFT(e, all), t)
	b.mixShiftFinding(e, all)
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
