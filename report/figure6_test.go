package report

import (
	"fmt"
	"math"
	"testing"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/schema"
)

// overlapping reports the first two points of f's groups that would be
// drawn on one another: closer than 1.5% of the x axis's span (in log10
// on a log axis, whose span is whole decades) and 0.03 in y. The axis runs
// from 0 (a linear one) to the largest x.
func overlapping(f *document.Scatter) (a, b string, ok bool) {
	type pt struct {
		x, y  float64
		label string
	}
	var pts []pt
	for _, g := range f.Groups {
		for i, p := range g.Points {
			if math.IsNaN(p[0]) || math.IsNaN(p[1]) {
				continue
			}
			x := p[0]
			if f.XAxis.Log {
				x = math.Log10(x)
			}
			pts = append(pts, pt{x, p[1], g.Labels[i]})
		}
	}
	lo, hi := 0.0, 0.0
	if f.XAxis.Log && len(pts) > 0 {
		lo, hi = math.Inf(1), math.Inf(-1)
	}
	for _, p := range pts {
		lo, hi = math.Min(lo, p.x), math.Max(hi, p.x)
	}
	span := hi - lo
	if f.XAxis.Log {
		span = math.Max(1, math.Ceil(hi)-math.Floor(lo))
	}
	for i := range pts {
		for j := range i {
			if math.Abs(pts[i].x-pts[j].x) < 0.015*span-1e-9 && math.Abs(pts[i].y-pts[j].y) < 0.03-1e-9 {
				return pts[j].label, pts[i].label, true
			}
		}
	}
	return "", "", false
}

// TestFigure6PointsApart: the dodge of Figure 6 spread coincident points
// over at most 0.4 min whatever their number and the axis (15 points of
// five seeds lay 0.03 min, a pixel, apart on a 15-minute axis; a dodged
// point could land on another's exact place), and the TTFT panel beside it
// had no dodge at all. Every point is now at least 1.5% of its axis from
// any other within 0.03 in hit ratio, in both panels, and moved right
// only: the tables keep the exact values.
func TestFigure6PointsApart(t *testing.T) {
	var runs []*schema.RunData
	for seed := int64(1); seed <= 5; seed++ {
		for _, arm := range []string{"none", "cap-22", "cap-34", "cap-10"} {
			m := fakeRun{Name: fmt.Sprintf("m%d-%s", seed, arm), Experiment: "mix", Design: "mix-shift", Arm: arm, Seed: seed, Sessions: 2,
				DropS: inf, RecoverS: inf, TriggerKind: "mix-shift", TriggerStartS: 1800, TriggerEndS: 1800,
				ControlKind: "session-cap", ControlStartS: 0, DurationS: 3600}.build()
			// Every run's first-phase sessions are served at once (wait 0),
			// but cap-10's, which wait 15 min: the axis spans 15 minutes.
			wait := 0.0
			if arm == "cap-10" {
				wait = 900
			}
			for i, s := range []string{"s000", "s001"} {
				ready, sent, first := float64(i), float64(i)+wait, float64(i)+wait+0.5
				m.Turns = append(m.Turns, schema.Turn{Run: m.Run.Run, Session: s, Turn: 0, Origin: "base", ReadyS: &ready, SentS: &sent,
					FirstTokenS: &first, DoneS: first + 1, PromptTokens: 1000, CachedTokens: 950, Status: "ok"})
			}
			runs = append(runs, m)
		}
	}
	doc, _, err := Build(runs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"fig6-mix", "fig6-ttft-mix"} {
		f := findFigure(t, doc, id).(*document.Scatter)
		if a, b, ok := overlapping(f); ok {
			t.Errorf("%s: %s and %s are drawn on one another", id, a, b)
		}
	}
	exact := map[string]float64{}
	for _, row := range findTable(t, doc, "fig6-data-mix").Rows {
		exact[row[0].Display()] = row[4].Value()
	}
	f := findFigure(t, doc, "fig6-mix").(*document.Scatter)
	for _, g := range f.Groups {
		for i, p := range g.Points {
			if x := exact[g.Labels[i]]; p[0] < x-0.05 {
				t.Errorf("%s drawn at %v, left of its wait %v", g.Labels[i], p[0], x)
			}
		}
	}
}
