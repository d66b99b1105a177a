package render

import (
	"fmt"
	"math"

	"github.com/outlast-dev/outlast/report/document"
)

// bigSeriesN is the size of the series that must be downsampled.
const bigSeriesN = 200_000

// sampleDoc returns a report with every block kind, shaped like the
// paper's figures: a list of findings, a burst/no-burst pair with a shaded burst and a
// control-start mark, a series with gaps, a 2×10^5-point series, a
// scatter with labels and a fitted line, bars, a grid of small multiples
// and Table 2 with grouped columns, markers and a missing cell.
func sampleDoc() *document.Doc {
	minutes := func(n int, step float64) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i) * step
		}
		return x
	}
	// Per-minute hit ratio: the twin stays near 0.95, the burst run
	// collapses at minute 12 and stays there.
	x := minutes(91, 1)
	twin, burst := make([]float64, len(x)), make([]float64, len(x))
	thrTwin, thrBurst := make([]float64, len(x)), make([]float64, len(x))
	for i, t := range x {
		twin[i] = 0.95 - 0.01*math.Sin(t/5)
		thrTwin[i] = 1200 + 40*math.Sin(t/7)
		if t < 12 {
			burst[i], thrBurst[i] = twin[i], thrTwin[i]
		} else {
			burst[i] = 0.12 + 0.01*math.Cos(t/3)
			thrBurst[i] = 310 + 25*math.Cos(t/4)
		}
	}
	// Gaps: a run with missing minutes (NaN) and one infinite value.
	gappy := make([]float64, len(x))
	for i, t := range x {
		gappy[i] = 40 + 10*math.Sin(t/6)
		if (i >= 30 && i < 38) || i == 60 {
			gappy[i] = math.NaN()
		}
	}
	gappy[75] = math.Inf(1)

	bx := minutes(bigSeriesN, 90.0/bigSeriesN)
	by := make([]float64, bigSeriesN)
	for i, t := range bx {
		by[i] = 20 + 8*math.Sin(t/3) + 3*math.Sin(float64(i)*0.37) // fast wiggle on a slow wave
	}

	pairs := &document.Grid{Caption: "Every pair, hit ratio per minute (small multiples).", Columns: 3}
	for s := 501; s <= 506; s++ {
		y := make([]float64, len(x))
		for i, t := range x {
			y[i] = 0.95
			if s != 505 && t >= 12+float64(s%3) {
				y[i] = 0.11 + 0.01*float64(s%4)
			}
		}
		pairs.Figures = append(pairs.Figures, &document.TimeSeries{
			ID: fmt.Sprintf("pair-%d/hit", s), Title: fmt.Sprintf("seed %d", s),
			YAxes:  []document.Axis{{Name: "hit ratio", Min: 0, Max: 1}},
			Series: []document.Series{{Name: "twin", X: x, Y: twin, Color: "#0072B2"}, {Name: "burst", X: x, Y: y, Color: "#D55E00"}},
			Bands:  []document.Band{{From: 10, To: 15}},
		})
	}

	points := [][2]float64{{0.1, 0.12}, {0.3, 0.11}, {7.2, 0.94}, {12.4, 0.95}, {0.2, 0.93}, {0.4, 0.95}}
	labels := []string{"cap34 s1", "cap34 s2", "cap10 s1", "cap10 s2", "budgeter s1", "budgeter <s2>"}

	return &document.Doc{
		Title:    "Sample report: bursts that outlast themselves",
		Subtitle: "Rendering test of every block kind",
		Provenance: []document.KV{
			{Key: "dataset", Value: "fixtures/sample (sha256 0123abcd…)"},
			{Key: "generated", Value: "1970-01-01 (SOURCE_DATE_EPOCH)"},
		},
		Sections: []document.Section{
			{
				ID: "persistence", Title: "Persistent degradation",
				Intro: []string{"Paired runs share every base session and differ only in an injected burst.", "Second paragraph with <angle brackets> & ampersands."},
				Blocks: []document.Block{
					&document.List{Items: []document.ListItem{
						{Label: "paired-8b", Link: "persistence", Text: "bursts left 5 of 8 servers persistently degraded, their twins 0."},
						{Label: "signals", Link: "signals", Text: "one run had no metrics after minute 80 <and> that changes the reading.", Warning: true},
						{Text: "A finding without a label."},
					}},
					&document.Note{Text: "The burst ran from minute 10 to 15."},
					&document.TimeSeries{
						ID: "fig1", Title: "A burst that outlasts itself", Caption: "Hit ratio (left) and throughput (right), seed 501.",
						YAxes: []document.Axis{{Name: "hit ratio", Min: 0, Max: 1}, {Name: "throughput", Unit: "tok/s"}},
						Series: []document.Series{
							{Name: "no burst: hit", X: x, Y: twin, Color: "#0072B2"},
							{Name: "burst: hit", X: x, Y: burst, Color: "#D55E00"},
							{Name: "no burst: throughput", X: x, Y: thrTwin, Axis: 1, Color: "#0072B2", Dash: true, Style: document.StyleStep},
							{Name: "burst: throughput", X: x, Y: thrBurst, Axis: 1, Color: "#D55E00", Dash: true, Style: document.StyleStep},
						},
						Bands: []document.Band{{From: 10, To: 15, Label: "burst"}},
						Marks: []document.Mark{{At: 20, Label: "control starts"}},
					},
					table2(),
					pairs,
				},
			},
			{
				ID: "signals", Title: "Signals with gaps and many points",
				Blocks: []document.Block{
					&document.TimeSeries{
						ID: "gaps", Title: "Series with gaps", Caption: "Minutes 30–37, 60 and 75 are missing and must show as gaps.",
						YAxes:  []document.Axis{{Name: "sessions in system"}},
						Series: []document.Series{{Name: "sessions", X: x, Y: gappy, Style: document.StyleArea}},
						Marks:  []document.Mark{{At: 45, Label: "shift"}},
					},
					&document.TimeSeries{
						ID: "big-series", Title: "2×10⁵ samples, downsampled", Caption: "LTTB keeps the envelope of the fast oscillation.",
						YAxes:  []document.Axis{{Name: "latency", Unit: "s"}},
						Series: []document.Series{{Name: "latency", X: bx, Y: by}},
						Bands:  []document.Band{{From: 30, To: 34, Label: "flush"}},
					},
					&document.Note{Kind: document.NoteWarning, Text: "Warning note: one run had no metrics after minute 80."},
				},
			},
			{
				ID: "control", Title: "Control",
				Blocks: []document.Block{
					&document.Scatter{
						ID: "fig6", Title: "Workload shift", Caption: "Each point is a run; the dashed line is a fit.",
						XAxis:  document.Axis{Name: "phase-1 first-turn gateway wait, p90", Unit: "min"},
						YAxis:  document.Axis{Name: "hit ratio", Min: 0, Max: 1},
						Groups: []document.ScatterGroup{{Name: "fixed caps", Points: points[:4], Labels: labels[:4]}, {Name: "budgeter", Points: points[4:], Labels: labels[4:]}},
						Lines:  []document.Line{{Name: "fit", X: []float64{0, 12.5}, Y: []float64{0.4, 0.9}, Dash: true, Color: "#555555"}},
					},
					&document.Bar{
						ID: "fig8", Title: "Cohort completion", XName: "arrival cohort (min)",
						Categories: []string{"20–25", "25–30", "30–35", "35–40"},
						YAxis:      document.Axis{Name: "completed", Unit: "fraction", Min: 0, Max: 1},
						Series: []document.BarSeries{
							{Name: "no control", Values: []float64{0, 0, 0, 0}},
							{Name: "budgeter", Values: []float64{1, 0.98, 0.9, math.NaN()}},
						},
					},
				},
			},
		},
	}
}

// table2 mirrors the paper's Table 2 (first rows), with a missing cell.
func table2() *document.Table {
	t := &document.Table{
		ID:      "table2",
		Caption: "Paired runs: token-weighted hit ratio over the last 10 minutes and mean sessions in the system over the last 5 minutes.",
		Columns: []document.Column{
			{Name: "Seed", Align: document.AlignLeft},
			{Group: "No burst (twin)", Name: "Hit"},
			{Group: "No burst (twin)", Name: "Sessions"},
			{Group: "Burst", Name: "Hit"},
			{Group: "Burst", Name: "Sessions"},
		},
		Notes:    []string{"∗ persistently degraded from its first degraded window after the burst to the end of the run.", "Seed 513 has no twin | run."},
		Sortable: true,
	}
	rows := []struct {
		seed   int64
		h0     float64
		s0     float64
		d0     bool
		h1, s1 float64
		d1     bool
	}{
		{501, 0.95, 8, false, 0.12, 109, true},
		{505, 0.95, 6, false, 0.95, 5, false},
		{507, 0.13, 137, true, 0.11, 175, true},
		{513, math.NaN(), math.NaN(), false, 0.1049, 98.5, true},
	}
	for _, r := range rows {
		h0, h1 := document.Num(r.h0, 2), document.Num(r.h1, 2)
		if r.d0 {
			h0 = h0.Mark("∗")
		}
		if r.d1 {
			h1 = h1.Mark("∗")
		}
		t.Rows = append(t.Rows, []document.Cell{document.Int(r.seed), h0, document.Num(r.s0, 0), h1, document.Num(r.s1, 0)})
	}
	return t
}
