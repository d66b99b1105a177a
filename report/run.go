package report

import (
	"fmt"
	"math"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// runInfo is what the report keeps of one run once its tables are gone:
// its manifest row, its overview row, the per-minute series its figures
// draw (or, when the source can read runs again, the means to read them
// for the few runs the figures pick) and the few windows the dataset-wide parts need (calibration and
// all-miss windows for the c(L) fit, the remaining-cold-work terms of a
// drain run). measureRun computes it from the run alone, so a report holds
// one run's tables at a time, however many runs the dataset has; everything
// after it (experiments, fits, sections) aggregates runInfos.
type runInfo struct {
	run schema.Run
	// end is the run's end (stats.RunEnd), in seconds.
	end float64
	sum stats.RunSummary
	row SummaryRun
	// minutes are the per-minute series of the figures, downsampled: kept
	// from the start when the report cannot read a run again
	// (Options.Reload is nil), else read again by reload when a figure
	// first draws the run (series). has says which measures they have.
	minutes   *minuteSeries
	has       [nMeasures]bool
	reload    func() (*minuteSeries, error)
	reloadErr error
	// cohorts is the completion of each 5-minute arrival cohort (Figure 8).
	cohorts []stats.CohortPoint
	// wait is the first-turn wait before the trigger (Figure 6).
	wait stats.WaitSummary
	// shape is the manifest's synthetic workload shape, when complete.
	shape   []int64
	shapeOK bool
	// kvPool is C in tokens, kvPoolOK whether it is known.
	kvPool   float64
	kvPoolOK bool
	// calibration holds the run's calibration windows when prefix caching
	// is off, allMiss its all-miss windows when it is on and persistently
	// degraded: the inputs of the dataset's c(L) fit.
	calibration []stats.CostWindow
	allMiss     []stats.CostWindow
	// drain is the remaining cold work of a drain run before a c(L) fit is
	// applied; drainErr says why there is none.
	drain    *stats.DrainTerms
	drainErr error

	// eng is the engine's side of the overview row.
	eng stats.EngineSummary
	// mech is the run's check against the mechanism of the degraded
	// regime, set once its twin is known (builder.mechanisms).
	mech stats.Mechanism
	// cacheReported says whether the gateway saw cached-token counts
	// (stats.RunIndex.CacheReported); cacheKnown is false without turns to
	// tell from.
	cacheReported, cacheKnown bool
	// onset is the start of the first degraded 5-minute window (stats.OnsetS).
	onset float64
	// agree compares the engine's and the gateway's hit ratio over the
	// 5-minute analysis windows.
	agree stats.Agreement
	// gatewayEnd is the time of the last gateway record and cutShort
	// whether it falls more than a window before the planned end.
	gatewayEnd float64
	cutShort   bool
	// lat is the run's latency under the report's SLO.
	lat runLatency
	// noLogSamples and noMetricsSamples say that an engine log or a
	// metrics file was read but gave no engine sample: its format may have
	// drifted from what the readers know.
	noLogSamples, noMetricsSamples bool
}

// measureRun is the per-run step of a report: it depends on no other run,
// and what it returns keeps no reference to rd's tables. Goodput is
// judged by slo.
func measureRun(rd *schema.RunData, keepMinutes bool, slo stats.SLO) *runInfo {
	x := runIndex(rd)
	an := stats.Analyze(x)
	r := &runInfo{run: rd.Run, end: x.End, sum: an.Summary, cohorts: an.Cohorts, wait: an.FirstTurnWaitPhase1}
	r.lat = measureLatency(x, slo)
	r.eng = x.EngineSummary()
	r.cacheReported, r.cacheKnown = x.CacheReported()
	// Without a cache every window reads as degraded: there is no onset
	// to tell. Without cached-token counts the windows have no hit ratio.
	r.onset = math.NaN()
	if rd.Run.PrefixCaching {
		r.onset = stats.OnsetS(turnWindows(an.Windows))
	}
	engHit, _ := x.EngineHitRatios(engineWindows(an.Windows))
	r.agree = stats.HitAgreement(gatewayHit(an.Windows), engHit)
	r.gatewayEnd, r.cutShort = x.GatewayEndS(), x.CutShort()
	r.noLogSamples, r.noMetricsSamples = rd.Run.EngineLogSHA256 != "", rd.Run.MetricsSHA256 != ""
	for i := range rd.Engine {
		switch rd.Engine[i].Source {
		case schema.SourceLog:
			r.noLogSamples = false
		case schema.SourceMetrics:
			r.noMetricsSamples = false
		}
	}
	r.row = summaryRun(r)
	// Without keepMinutes the series are read again for the few runs the
	// figures draw, and only has is kept of them: the TTFT per minute,
	// which no has is asked of, is left to then.
	ms := minutesOf(x, an, keepMinutes)
	for m := range ms {
		r.has[m] = anyFinite(ms[m].y)
	}
	if keepMinutes {
		r.minutes = &ms
	}
	r.shape, r.shapeOK = x.WorkloadShape()
	r.kvPool, r.kvPoolOK = x.KVPool()
	one := []*stats.RunIndex{x}
	r.calibration = stats.CalibrationWindows(one, stats.ColdCostOptions{})
	r.allMiss = stats.AllMissWindows(one, stats.ColdCostOptions{})
	if normDesign(rd.Run.Design) == schema.DesignDrain {
		d, err := x.DrainTerms()
		r.drain, r.drainErr = &d, err
	}
	return r
}

// runIndex indexes rd for the statistics. A run of a dataset written
// before runs.cache_reported is first given what ingest now records for
// it (cacheNotReported).
func runIndex(rd *schema.RunData) *stats.RunIndex {
	x := stats.NewRunIndex(rd)
	if cacheNotReported(rd, x) {
		f := false
		rd.Run.CacheReported = &f
		x = stats.NewRunIndex(rd)
	}
	return x
}

// minutesOf returns the per-minute series of the figures of the run
// indexed by x and analysed as an, its TTFT per minute when withTTFT.
func minutesOf(x *stats.RunIndex, an stats.RunAnalysis, withTTFT bool) minuteSeries {
	minuteHit, _ := x.EngineHitRatios(engineWindows(an.Minutes))
	var ttft []stats.Percentiles
	if withTTFT {
		ttft = x.TTFTWindows(pointWindows(an.Minutes))
	}
	return newMinuteSeries(an.Minutes, minuteHit, ttft)
}

// reloadMinutes reads a run again through reload and returns its
// per-minute series, as measureRun would have kept them.
func reloadMinutes(reload func(string) (*schema.RunData, error), run string) (*minuteSeries, error) {
	rd, err := reload(run)
	if err != nil {
		return nil, fmt.Errorf("report: reading run %s again for its figures: %w", run, err)
	}
	x := runIndex(rd)
	ms := minutesOf(x, stats.Analyze(x), true)
	return &ms, nil
}

// cacheNotReported says whether a run of a dataset written before
// runs.cache_reported did not receive cached-token counts: prefix caching
// is on, no turn carried one, and the engine does not confirm that there
// were no hits (it shows hits, or has no hit count of its own). Such a run
// then gets what ingest now records for it (cache_reported false), and
// stats its verdict (stats.VerdictCacheUnreported).
func cacheNotReported(rd *schema.RunData, x *stats.RunIndex) bool {
	if rd.Run.CacheReported != nil || !rd.Run.PrefixCaching {
		return false
	}
	if reported, known := x.CacheReported(); reported || !known {
		return false
	}
	eng := x.EngineSummary()
	return !(eng.HitSource != "" && eng.RunHit == 0)
}

// cacheFlags names the engine flags that make an engine report cached
// tokens to its clients.
const cacheFlags = "vLLM --enable-prompt-tokens-details, SGLang --enable-cache-report"

// turnWindows returns the gateway side of each point.
func turnWindows(ps []stats.SeriesPoint) []stats.TurnWindow {
	out := make([]stats.TurnWindow, len(ps))
	for i, p := range ps {
		out[i] = p.TurnWindow
	}
	return out
}

// name is the run's name, unique in a dataset.
func (r *runInfo) name() string { return r.run.Run }

// seedIs reports whether the run has the given seed.
func (r *runInfo) seedIs(seed int64) bool { return r.run.Seed != nil && *r.run.Seed == seed }
