package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
	"github.com/outlast-dev/outlast/stats"
)

// Engine is the simulated engine fitted to the observed run.
type Engine struct {
	// Name is the engine the simulator plays (vllm or sglang) and
	// PrefixCaching whether it caches.
	Name          string
	PrefixCaching bool
	// Pool is the KV pool C in tokens and PoolFrom its source: the run's
	// kv_pool_source (manifest, engine_log, metrics) or "default".
	Pool     int
	PoolFrom string
	// Prefill and Decode multiply the simulator's default step-time costs
	// (sim.Cost.Scaled), with their standard errors (NaN for a factor held
	// at its default), and Corr is the correlation of the two estimates;
	// Cost is the result. After Correct they are the corrected factors.
	// Each resampled seed draws its own pair from them (Draw).
	Prefill, Decode Factor
	Corr            float64
	Cost            sim.Cost
	// Method is how the factors were fitted (Method*), from Windows
	// windows of Runs (the observed run first, then calibration runs of
	// the same engine and model), with uncentred R²; Cached is where the
	// turns' cached tokens came from (Cached*).
	Method  string
	Windows int
	Runs    []string
	R2      float64
	Cached  string
	// Raw are the regression's own factors. Bias is, per factor, the
	// regression's bias that Correct measured on a replay (the factor
	// refitted on it over the factor it was simulated with); NaN before
	// Correct, or for a factor held at its default.
	Raw        [2]Factor
	Bias       [2]float64
	Corrected  bool
	CorrectRun string
	// ColdCost is c(L) = a + b·L by the paper's regression (§4) over
	// ColdCostFrom, printed beside the fit; nil without three windows.
	ColdCost     *stats.CostFit
	ColdCostFrom string
	Warnings     []string

	kind fitKind // the factors the fit estimates
}

// Factor is a fitted multiple of a default cost and its standard error
// (NaN when the factor is held at its default).
type Factor struct{ Value, SE float64 }

// Fitting methods.
const (
	// MethodBusy regresses the engine's busy time in 2-minute windows on
	// the prefill and decode time the default costs give the tokens it
	// computed in them (busyWindows).
	MethodBusy = "busy windows"
	// MethodLightLoad takes medians over single turns: decode time per
	// token and time to first token against the default costs, which holds
	// when few requests share the engine.
	MethodLightLoad = "light load"
	// MethodDefaults keeps the simulator's costs: the run has nothing to
	// fit them on.
	MethodDefaults = "defaults"
)

// maxRelSE is the largest relative standard error a fitted factor may
// have; a factor the run does not pin down keeps its default.
const maxRelSE = 0.5

// DefaultPool is the KV pool a run without one is replayed with.
const DefaultPool = 400000

// estimate is one fit of the factors.
type estimate struct {
	kind       fitKind
	p, d       Factor
	corr, r2   float64
	windows    int
	lightTurns [2]int // light load: the turns behind each median
}

// fitEngine fits the engine to the observed run and the calibration runs.
func fitEngine(obs *stats.RunIndex, calib []*stats.RunIndex) *Engine {
	r := &obs.Data.Run
	nan := math.NaN()
	e := &Engine{Name: r.EngineName, PrefixCaching: r.PrefixCaching, Pool: DefaultPool, PoolFrom: "default",
		Prefill: Factor{1, nan}, Decode: Factor{1, nan}, Method: MethodDefaults, R2: nan, Bias: [2]float64{nan, nan}, Cached: CachedReported}
	if e.Name != schema.EngineVLLM && e.Name != schema.EngineSGLang {
		e.Warnings = append(e.Warnings, fmt.Sprintf("engine %q: simulated as vllm", e.Name))
		e.Name = schema.EngineVLLM
	}
	if c := r.KVPoolTokens; c != nil && *c > 0 && *c < math.MaxInt32 {
		e.Pool, e.PoolFrom = int(*c), r.KVPoolSource
		if e.PoolFrom == "" {
			e.PoolFrom = "run"
		}
	} else {
		e.Warnings = append(e.Warnings, fmt.Sprintf("the run gives no KV pool size: the simulator's default %d tokens", DefaultPool))
	}
	e.coldCost(obs, calib)
	if !stats.CacheKnown(r) {
		e.Cached = CachedEngineShare
	}
	var ws []costWindow
	cachedOK := true
	for i, x := range append([]*stats.RunIndex{obs}, calib...) {
		got, ok := busyWindows(x, sim.DefaultCost, i)
		if !ok && i == 0 {
			cachedOK = false
			e.Warnings = append(e.Warnings, "the run reports no cached tokens (runs.cache_reported false) and its engine no hit counters: the busy windows cannot tell prefill from hits, so they are not fitted")
			break
		}
		if len(got) > 0 {
			e.Runs = append(e.Runs, x.Data.Run.Run)
		}
		ws = append(ws, got...)
	}
	if cachedOK {
		if est, warnings, ok := fitBusy(ws); ok {
			e.set(est, MethodBusy)
			e.Warnings = append(e.Warnings, warnings...)
			return e
		}
	}
	if est, warnings, ok := fitLightLoad(obs, [2]bool{true, true}); ok {
		e.set(est, MethodLightLoad)
		e.Runs = []string{obs.Data.Run.Run}
		e.Warnings = append(e.Warnings, warnings...)
		return e
	}
	e.Runs = nil
	e.Cost = sim.DefaultCost
	e.Warnings = append(e.Warnings, "the run has no turn timings (first_token_s) to fit the engine: the simulator's default costs (MI300X, Qwen3-8B)")
	return e
}

// set takes est as the engine's factors.
func (e *Engine) set(est estimate, method string) {
	e.Method, e.kind = method, est.kind
	e.Prefill, e.Decode, e.Corr, e.R2, e.Windows = est.p, est.d, est.corr, est.r2, est.windows
	e.Raw = [2]Factor{est.p, est.d}
	e.Cost = sim.DefaultCost.Scaled(e.Prefill.Value, e.Decode.Value)
}

// Fitted reports whether the engine's speeds were fitted to the run (by
// busy windows or at light load), not the simulator's defaults.
func (e *Engine) Fitted() bool { return e.Method != MethodDefaults }

// coldCost fits c(L) by the paper's regression for the printout: over the
// calibration runs when there are any, else over the run's all-miss
// windows.
func (e *Engine) coldCost(obs *stats.RunIndex, calib []*stats.RunIndex) {
	if len(calib) > 0 {
		if fit, err := stats.FitColdCost(stats.CalibrationWindows(calib, stats.ColdCostOptions{})); err == nil {
			e.ColdCost, e.ColdCostFrom = &fit, "windows of calibration runs"
			return
		}
	}
	if fit, err := stats.FitColdCost(obs.ColdCostWindows(stats.ColdCostOptions{MinLowCacheShare: 1})); err == nil {
		e.ColdCost, e.ColdCostFrom = &fit, "all-miss windows of the run"
	}
}

// fitBusy regresses window length on the default prefill and decode time
// through the origin, len = f_p·prefill + f_d·decode, with block-bootstrap
// standard errors. A factor whose estimate is not positive or has a
// relative standard error above maxRelSE keeps its default, the other
// being refitted alone; ok reports whether either factor was fitted.
func fitBusy(ws []costWindow) (est estimate, warnings []string, ok bool) {
	if len(ws) < 3 {
		return est, nil, false
	}
	est, fitted := regress(ws, fitBoth)
	pOK, dOK := fitted && identified(est.p), fitted && identified(est.d)
	switch {
	case pOK && dOK:
		return est, nil, true
	case pOK:
		est, fitted = regress(ws, fitPrefill)
		pOK = fitted && identified(est.p)
	case dOK:
		est, fitted = regress(ws, fitDecode)
		dOK = fitted && identified(est.d)
	}
	if !pOK && !dOK {
		return est, nil, false
	}
	if !pOK {
		warnings = append(warnings, "the run's windows do not pin down the prefill speed: the simulator's default")
	}
	if !dOK {
		warnings = append(warnings, "the run's windows do not pin down the decode speed: the simulator's default")
	}
	return est, warnings, true
}

// regress fits the factors kind names and their bootstrap covariance.
func regress(ws []costWindow, kind fitKind) (estimate, bool) {
	nan := math.NaN()
	est := estimate{kind: kind, p: Factor{1, nan}, d: Factor{1, nan}, windows: len(ws)}
	p, d, ok := ols(ws, kind)
	if !ok {
		return est, false
	}
	est.r2 = r2(ws, p, d)
	vp, vd, cpd, ok := bootstrap(ws, kind)
	if !ok {
		return est, false
	}
	if kind != fitDecode {
		est.p = Factor{p, math.Sqrt(vp)}
	}
	if kind != fitPrefill {
		est.d = Factor{d, math.Sqrt(vd)}
	}
	if kind == fitBoth && vp > 0 && vd > 0 {
		est.corr = cpd / math.Sqrt(vp*vd)
	}
	return est, true
}

func identified(f Factor) bool {
	return f.Value > 0 && !math.IsInf(f.Value, 0) && !(f.SE/f.Value > maxRelSE) && !math.IsNaN(f.SE)
}

// lightLoadMin is the least number of turns a light-load median needs.
const lightLoadMin = 5

// fitLightLoad takes the median, over single turns, of the decode time
// per output token against a default decode step with as many requests as
// were in flight, and of the time to first token against a default
// prefill of the tokens the turn computed (at least a block's worth), the
// factors want asks for; their standard errors are bootstrapped over the
// turns. At light load, with little queueing and few prefills sharing a
// step, these are the engine's speeds; under load they overstate both.
func fitLightLoad(x *stats.RunIndex, want [2]bool) (est estimate, warnings []string, ok bool) {
	c := sim.DefaultCost
	cacheKnown := stats.CacheKnown(&x.Data.Run)
	var dec, pre []float64
	for i := range x.Data.Turns {
		t := &x.Data.Turns[i]
		if !turnOK(t) || t.FirstTokenS == nil {
			continue
		}
		ft, done := *t.FirstTokenS, t.DoneS
		if t.OutputTokens >= 2 && done > ft {
			m := math.Max(1, math.Round(x.InFlight.Mean(stats.Window{Start: ft, End: done})))
			q := float64(t.PromptTokens) + float64(t.OutputTokens)/2
			dec = append(dec, (done-ft)/float64(t.OutputTokens-1)/c.DecodeStepS(int(m), m*q))
		}
		if cacheKnown && t.SentS != nil && ft > *t.SentS && t.PromptTokens-t.CachedTokens >= 16 {
			pre = append(pre, (ft-*t.SentS)/(c.PrefillS(int(t.CachedTokens), int(t.PromptTokens))+c.T0))
		}
	}
	nan := math.NaN()
	est = estimate{kind: fitBoth, p: Factor{1, nan}, d: Factor{1, nan}, r2: nan, lightTurns: [2]int{len(pre), len(dec)}}
	pOK, dOK := want[0] && len(pre) >= lightLoadMin, want[1] && len(dec) >= lightLoadMin
	if !pOK && !dOK {
		return est, nil, false
	}
	if dOK {
		est.d = Factor{stats.Median(slices.Sorted(slices.Values(dec))), medianSE(dec)}
	} else {
		est.kind = fitPrefill
		warnings = append(warnings, "too few turns with decode timings: the simulator's default decode speed")
	}
	if pOK {
		est.p = Factor{stats.Median(slices.Sorted(slices.Values(pre))), medianSE(pre)}
	} else {
		est.kind = fitDecode
		if cacheKnown {
			warnings = append(warnings, "too few turns with sent_s and first_token_s: the simulator's default prefill speed")
		} else {
			warnings = append(warnings, "the run reports no cached tokens: the simulator's default prefill speed")
		}
	}
	warnings = append(warnings, fmt.Sprintf("fewer than 3 %g-minute windows with work to fit: engine speeds from single turns at light load, which queueing would inflate", fitWindowS/60))
	return est, warnings, true
}

// medianSE is the bootstrap standard error of the median of v, resampling
// its values.
func medianSE(v []float64) float64 {
	rng := rand.New(rand.NewPCG(bootstrapSeed, uint64(len(v))))
	meds := make([]float64, bootstrapReps)
	buf := make([]float64, len(v))
	for i := range meds {
		for k := range buf {
			buf[k] = v[rng.IntN(len(v))]
		}
		slices.Sort(buf)
		meds[i] = stats.Median(buf)
	}
	m := mean(meds)
	s := 0.0
	for _, x := range meds {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(meds)-1))
}

// refit fits the run x alone by the engine's own method and factors: how
// the fit reads a replay simulated with known factors (Correct).
func (e *Engine) refit(x *stats.RunIndex) (estimate, bool) {
	switch e.Method {
	case MethodBusy:
		ws, ok := busyWindows(x, sim.DefaultCost, 0)
		if !ok || len(ws) < 3 {
			return estimate{}, false
		}
		return regress(ws, e.kind)
	case MethodLightLoad:
		est, _, ok := fitLightLoad(x, [2]bool{e.kind != fitDecode, e.kind != fitPrefill})
		return est, ok && est.kind == e.kind
	}
	return estimate{}, false
}
