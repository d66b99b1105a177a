package stats

import (
	"math"
	"sort"
)

// EngineHitLog is the engine hit-ratio source of last resort: the mean of
// the hit rates the engine log printed in the window (vLLM's "Prefix cache
// hit rate"). Its horizon is the engine's, not the window's: vLLM's V1
// engine prints the rate over its most recent requests (1,000 by default),
// the V0 engine since it started, so it lags the gateway's per-window ratio
// and smooths it. It is used only when the run has neither counter deltas
// (EngineHitCounters) nor SGLang prefill lines (EngineHitPrefill).
const EngineHitLog = "log"

// EngineHitRatios returns the engine's prefix-cache hit ratio in each of
// eng's windows (from EngineWindows) and where it comes from: eng's own
// HitRatio when the run has counter deltas or SGLang prefill lines, else
// the mean of the rates printed in the window (EngineHitLog). A window
// without a value is NaN; the source is "" when the run has none.
func (x *RunIndex) EngineHitRatios(eng []EngineWindow) ([]float64, string) {
	out := make([]float64, len(eng))
	src := x.sources().hit
	if src != "" {
		for i, ew := range eng {
			out[i] = ew.HitRatio
		}
		return out, src
	}
	if !x.hasLoggedHitRate() {
		for i := range out {
			out[i] = math.NaN()
		}
		return out, ""
	}
	for i, ew := range eng {
		var sum float64
		n := 0
		lo := sort.SearchFloat64s(x.engineTS, ew.Start)
		for k := lo; k < len(x.engine) && x.engineTS[k] <= ew.End; k++ {
			e := x.engineSample(k)
			if x.useSample(e) && e.LoggedHitRate != nil && x.pointIn(e.TS, ew.Window) {
				sum += *e.LoggedHitRate
				n++
			}
		}
		out[i] = meanOrNaN(sum, n)
	}
	return out, EngineHitLog
}

// hasLoggedHitRate reports whether any engine sample of the run carries a
// printed hit rate.
func (x *RunIndex) hasLoggedHitRate() bool {
	for k := range x.engine {
		if e := x.engineSample(k); x.useSample(e) && e.LoggedHitRate != nil {
			return true
		}
	}
	return false
}

// EngineSummary is the engine's side of a run's overview row, to set
// beside the gateway's RunSummary.
type EngineSummary struct {
	// Samples is the number of engine samples in the run, [0, End].
	Samples int
	// HitSource is where the engine's hit ratio comes from
	// (EngineHitRatios); "" when the engine gives none.
	HitSource string
	// EndHit is the engine's hit ratio over the last EndHitS of the run,
	// the window of RunSummary.EndHit; RunHit over the whole run. NaN
	// without a value.
	EndHit float64
	RunHit float64
	// KVUsagePeak is the largest KV-pool usage fraction of any engine
	// sample in the run; NaN when no sample carries one.
	KVUsagePeak float64
	// KVUsageEndMean is the mean KV-pool usage fraction of the engine's
	// samples over the last EndHitS of the run, [End − 10 min, End]: a
	// single sample's maximum reaches 1 in healthy runs too, the mean over
	// the end separates a full pool from a busy one. NaN without samples.
	KVUsageEndMean float64
	// Preemptions is the number of preemptions (SGLang: retractions) the
	// engine reported over the run (EngineWindow.Preemptions of the whole
	// run); NaN when it reports none.
	Preemptions float64
}

// EngineSummary computes the engine's side of the run's overview row.
func (x *RunIndex) EngineSummary() EngineSummary {
	run, end := Window{Start: 0, End: x.End}, x.EndWindow(EndHitS)
	eng := x.EngineWindows([]Window{run, end})
	hits, src := x.EngineHitRatios(eng)
	s := EngineSummary{Samples: eng[0].Samples, HitSource: src, RunHit: hits[0], EndHit: hits[1], KVUsagePeak: math.NaN(), KVUsageEndMean: math.NaN(), Preemptions: eng[0].Preemptions}
	lo := sort.SearchFloat64s(x.engineTS, run.Start)
	for k := lo; k < len(x.engine) && x.engineTS[k] <= run.End; k++ {
		if e := x.engineSample(k); x.useSample(e) && e.KVUsage != nil && x.pointIn(e.TS, run) && !(*e.KVUsage <= s.KVUsagePeak) {
			s.KVUsagePeak = *e.KVUsage
		}
	}
	s.KVUsageEndMean = eng[1].KVUsage
	return s
}
