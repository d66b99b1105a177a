package report

import (
	"github.com/outlast-dev/outlast/report/model"
	"github.com/outlast-dev/outlast/report/render"
	"github.com/outlast-dev/outlast/stats"
)

// measure is one per-minute measure of a run that figures draw.
type measure int

const (
	mHit        measure = iota // gateway token-weighted hit ratio
	mSessions                  // mean sessions in the system
	mThroughput                // turns/s
	mDemand                    // D/C
	mRecompute                 // recomputed prompt tokens/s
	nMeasures
)

// seriesMaxPoints bounds each kept per-minute series: a day of minutes is
// drawn point for point, longer runs are downsampled (render.Downsample)
// when measured, so a run's figures cost the report the same memory
// whatever its length.
const seriesMaxPoints = 1440

// xy is one measure's points, x in minutes.
type xy struct{ x, y []float64 }

// minuteSeries is a run's per-minute measures as its figures draw them.
// Measures share their x until one is downsampled.
type minuteSeries [nMeasures]xy

// newMinuteSeries keeps the figure measures of a run's per-minute series.
func newMinuteSeries(ps []stats.SeriesPoint) minuteSeries {
	x := mid(pointWindows(ps))
	col := func(f func(stats.SeriesPoint) float64) xy {
		xs, ys := render.Downsample(x, column(ps, f), seriesMaxPoints)
		return xy{xs, ys}
	}
	var m minuteSeries
	m[mHit] = col(func(p stats.SeriesPoint) float64 { return p.HitRatio })
	m[mSessions] = col(func(p stats.SeriesPoint) float64 { return p.Sessions })
	m[mThroughput] = col(func(p stats.SeriesPoint) float64 { return p.TurnsPerS })
	m[mDemand] = col(func(p stats.SeriesPoint) float64 { return p.DemandRatio })
	m[mRecompute] = col(func(p stats.SeriesPoint) float64 { return p.RecomputedTokensPerS })
	return m
}

// runSeries is one measure of a run per minute, as a Series.
func runSeries(name string, r *runInfo, m measure, color string) model.Series {
	s := r.minutes[m]
	return model.Series{Name: name, X: s.x, Y: s.y, Color: color}
}
