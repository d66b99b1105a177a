package report

import (
	"math"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/report/render"
	"github.com/outlast-dev/outlast/stats"
)

// measure is one per-minute measure of a run that figures draw.
type measure int

const (
	mHit         measure = iota // gateway token-weighted hit ratio
	mSessions                   // mean sessions in the system
	mThroughput                 // turns/s
	mDemand                     // D/C
	mRecompute                  // recomputed prompt tokens/s
	mEngineHit                  // the engine's hit ratio (stats.RunIndex.EngineHitRatios)
	mKVUsage                    // engine KV-pool usage, fraction
	mRunning                    // engine requests running
	mWaiting                    // engine requests waiting
	mPreemptions                // engine preemptions in the minute
	mTTFTP50                    // TTFT p50 of the turns sent in the minute
	mTTFTP90                    // TTFT p90 of the turns sent in the minute
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

// newMinuteSeries keeps the figure measures of a run's per-minute series;
// engineHit is the engine's hit ratio of each minute, ttft the TTFT
// percentiles of the turns sent in it. A measure the run
// never has (no engine data, no KV pool size) keeps no points: a report
// without Options.Reload holds every run's series until its figures are
// laid out.
func newMinuteSeries(ps []stats.SeriesPoint, engineHit []float64, ttft []stats.Percentiles) minuteSeries {
	x := mid(pointWindows(ps))
	keep := func(y []float64) xy {
		if !anyFinite(y) {
			return xy{}
		}
		xs, ys := render.Downsample(x, y, seriesMaxPoints)
		return xy{xs, ys}
	}
	col := func(f func(stats.SeriesPoint) float64) xy { return keep(column(ps, f)) }
	var m minuteSeries
	m[mHit] = col(func(p stats.SeriesPoint) float64 { return p.HitRatio })
	m[mSessions] = col(func(p stats.SeriesPoint) float64 { return p.Sessions })
	m[mThroughput] = col(func(p stats.SeriesPoint) float64 { return p.TurnsPerS })
	m[mDemand] = col(func(p stats.SeriesPoint) float64 { return p.DemandRatio })
	m[mRecompute] = col(func(p stats.SeriesPoint) float64 { return p.RecomputedTokensPerS })
	m[mEngineHit] = keep(engineHit)
	m[mKVUsage] = col(func(p stats.SeriesPoint) float64 { return p.Engine.KVUsage })
	m[mRunning] = col(func(p stats.SeriesPoint) float64 { return p.Engine.Running })
	m[mWaiting] = col(func(p stats.SeriesPoint) float64 { return p.Engine.Waiting })
	m[mPreemptions] = col(func(p stats.SeriesPoint) float64 { return p.Engine.Preemptions })
	p50, p90 := make([]float64, len(ttft)), make([]float64, len(ttft))
	for i, q := range ttft {
		p50[i], p90[i] = q.P50, q.P90
	}
	m[mTTFTP50], m[mTTFTP90] = keep(p50), keep(p90)
	return m
}

// anyFinite reports whether some value of y is a number.
func anyFinite(y []float64) bool {
	for _, v := range y {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			return true
		}
	}
	return false
}

// engineWindows returns the engine side of each point.
func engineWindows(ps []stats.SeriesPoint) []stats.EngineWindow {
	out := make([]stats.EngineWindow, len(ps))
	for i, p := range ps {
		out[i] = p.Engine
	}
	return out
}

// gatewayHit returns the gateway's hit ratio of each point.
func gatewayHit(ps []stats.SeriesPoint) []float64 {
	return column(ps, func(p stats.SeriesPoint) float64 { return p.HitRatio })
}

// runSeries is one measure of a run per minute, as a Series.
func runSeries(name string, r *runInfo, m measure, color string) document.Series {
	s := r.series()[m]
	return document.Series{Name: name, X: s.x, Y: s.y, Color: color}
}

// series returns the run's per-minute series, read again the first time
// when they were not kept (runInfo.reload). A run that cannot be read
// again draws no points; its error is the report's (builder.finish).
func (r *runInfo) series() *minuteSeries {
	if r.minutes == nil {
		ms, err := r.reload()
		if err != nil {
			r.reloadErr = err
			ms = new(minuteSeries)
		}
		r.minutes = ms
	}
	return r.minutes
}
