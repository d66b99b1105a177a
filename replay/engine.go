package replay

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

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
	// (sim.Cost.Scaled); Cost is the result.
	Prefill, Decode Factor
	Cost            sim.Cost
	// Method is how the factors were fitted (Method*), from Windows
	// windows of Runs (the observed run first, then calibration runs of
	// the same engine and model), with uncentred R².
	Method  string
	Windows int
	Runs    []string
	R2      float64
	// ColdCost is c(L) = a + b·L by the paper's regression (§4) over
	// ColdCostFrom, printed beside the fit; nil without three windows.
	ColdCost     *stats.CostFit
	ColdCostFrom string
	Warnings     []string
}

// Factor is a fitted multiple of a default cost and its standard error
// (NaN when the method gives none).
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
	// MethodDefaults keeps the simulator's costs: the run has no turn
	// timings to fit.
	MethodDefaults = "defaults"
)

// fitWindowS is the length of the fitting windows: the paper's
// calibration windows (§4).
const fitWindowS = stats.CalibrationWindowS

// maxRelSE is the largest relative standard error a fitted factor may
// have; a factor the run does not pin down keeps its default.
const maxRelSE = 0.5

// DefaultPool is the KV pool a run without one is replayed with.
const DefaultPool = 400000

// fitEngine fits the engine to the observed run and the calibration runs.
func fitEngine(obs *stats.RunIndex, calib []*stats.RunIndex) *Engine {
	r := &obs.Data.Run
	e := &Engine{Name: r.EngineName, PrefixCaching: r.PrefixCaching, Pool: DefaultPool, PoolFrom: "default",
		Prefill: Factor{1, math.NaN()}, Decode: Factor{1, math.NaN()}, Method: MethodDefaults, R2: math.NaN()}
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
	runs := append([]*stats.RunIndex{obs}, calib...)
	var ws []costWindow
	for _, x := range runs {
		got := busyWindows(x, sim.DefaultCost)
		if len(got) > 0 {
			e.Runs = append(e.Runs, x.Data.Run.Run)
		}
		ws = append(ws, got...)
	}
	cacheKnown := stats.CacheKnown(r)
	if !cacheKnown {
		e.Warnings = append(e.Warnings, "the run reports no cached tokens (runs.cache_reported false): the prefill speed is the simulator's default, and the decode fit takes every turn after a session's first to hit its previous turn")
	}
	if e.fitBusy(ws, cacheKnown) || e.fitLightLoad(obs, cacheKnown) {
		e.Cost = sim.DefaultCost.Scaled(e.Prefill.Value, e.Decode.Value)
		return e
	}
	e.Runs = nil
	e.Cost = sim.DefaultCost
	e.Warnings = append(e.Warnings, "the run has no turn timings (first_token_s) to fit the engine: the simulator's default costs (MI300X, Qwen3-8B)")
	return e
}

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

// costWindow is one window: the time the engine was busy in it, and the
// prefill and decode seconds the default costs give the work it did then.
type costWindow struct{ len, prefill, decode float64 }

// busyWindows returns a run's fitting windows with the default-cost time
// of the work done in each. The windows are the 2-minute windows of the
// run; the engine is busy while any turn is in flight (sent and not done),
// when the gateway gives sent_s for nearly every turn. Otherwise only the
// windows in which the engine's running samples never fell below one
// count, as wholly busy (stats.ColdCostWindows), which misses idle spells
// between samples. A turn's prefill, A·n + B·(p² − c²)/2 for the p − c
// tokens it computed, falls in the window of its first token; its other
// output tokens are spread evenly over [first token, done], each costing a
// decode K1 + K2·q at the turn's mid-decode context q, and every decode step
// a fixed T0 (decodeSteps counts them). A window with a turn lacking
// first_token_s is left out. A run that reports no cached tokens is taken
// to hit its previous turns (cachedTokens).
func busyWindows(x *stats.RunIndex, c sim.Cost) []costWindow {
	ws, gateway := fitWindows(x)
	n := len(ws)
	if n == 0 {
		return nil
	}
	cached := cachedTokens(x.Data)
	out := make([]costWindow, n)
	spans := make([][]decodeSpan, n)
	flight := make([][][2]float64, n)
	bad := make([]bool, n)
	at := func(t float64) int { // the window holding t, or -1
		k := sort.Search(n, func(i int) bool { return ws[i].End > t })
		if k < n && ws[k].Start <= t {
			return k
		}
		return -1
	}
	clip := func(a, b float64, fn func(k int, a, b float64)) {
		for k := sort.Search(n, func(i int) bool { return ws[i].End > a }); k < n && ws[k].Start < b; k++ {
			if lo, hi := math.Max(a, ws[k].Start), math.Min(b, ws[k].End); hi > lo {
				fn(k, lo, hi)
			}
		}
	}
	for i := range x.Data.Turns {
		t := &x.Data.Turns[i]
		if gateway && t.SentS != nil {
			clip(*t.SentS, t.DoneS, func(k int, a, b float64) { flight[k] = append(flight[k], [2]float64{a, b}) })
		}
		if !turnOK(t) {
			continue
		}
		if t.FirstTokenS == nil {
			if k := at(t.DoneS); k >= 0 {
				bad[k] = true
			}
			continue
		}
		ft, done := *t.FirstTokenS, t.DoneS
		if k := at(ft); k >= 0 {
			out[k].prefill += c.PrefillS(int(cached(t)), int(t.PromptTokens))
		}
		if t.OutputTokens < 2 || !(done > ft) {
			continue
		}
		rate := float64(t.OutputTokens-1) / (done - ft)
		per := c.K1 + c.K2*(float64(t.PromptTokens)+float64(t.OutputTokens)/2)
		clip(ft, done, func(k int, a, b float64) {
			out[k].decode += rate * (b - a) * per
			spans[k] = append(spans[k], decodeSpan{a, b, rate})
		})
	}
	kept := out[:0]
	for k := range out {
		if bad[k] {
			continue
		}
		out[k].len = ws[k].Len()
		if gateway {
			out[k].len = union(flight[k])
		}
		out[k].decode += c.T0 * decodeSteps(spans[k])
		if out[k].len > 0 && out[k].prefill+out[k].decode > 0 {
			kept = append(kept, out[k])
		}
	}
	return kept
}

// fitWindows returns the windows to fit on and whether the gateway's
// in-flight turns tell the busy time in them (see busyWindows).
func fitWindows(x *stats.RunIndex) ([]stats.Window, bool) {
	ok := 0
	for i := range x.Data.Turns {
		if turnOK(&x.Data.Turns[i]) {
			ok++
		}
	}
	if float64(x.InFlightTurns) >= 0.9*float64(ok) {
		return stats.AlignedWindows(x.Data.Run.AlignS, fitWindowS, 0, x.End), true
	}
	var ws []stats.Window
	for _, w := range x.ColdCostWindows(stats.ColdCostOptions{WindowS: fitWindowS, MinRunning: 1}) {
		ws = append(ws, w.Window)
	}
	return ws, false
}

// cachedTokens returns a turn's cached prompt tokens: as the engine
// reported them, or, when the run reports none (runs.cache_reported
// false), those a warm cache would give it: the previous turn's prompt and
// output, in whole blocks, and nothing for a session's first turn.
func cachedTokens(rd *schema.RunData) func(*schema.Turn) int64 {
	if stats.CacheKnown(&rd.Run) {
		return func(t *schema.Turn) int64 { return t.CachedTokens }
	}
	warm := make(map[*schema.Turn]int64, len(rd.Turns))
	for _, ts := range turnsBySession(rd) {
		for k := 1; k < len(ts); k++ {
			prev := ts[k-1].PromptTokens + ts[k-1].OutputTokens
			warm[ts[k]] = min(prev, ts[k].PromptTokens-1) / blockTokens * blockTokens
		}
	}
	return func(t *schema.Turn) int64 { return max(warm[t], 0) }
}

// decodeSpan is a turn decoding over [a, b) at rate tokens per second.
type decodeSpan struct{ a, b, rate float64 }

// decodeSteps counts the decode steps over spans: every running request
// decodes one token per step, so while requests decode the engine steps at
// their token rate, taken as the mean rate of those decoding at the time.
func decodeSteps(spans []decodeSpan) float64 {
	type edge struct {
		t, rate float64
		d       int
	}
	ev := make([]edge, 0, 2*len(spans))
	for _, s := range spans {
		ev = append(ev, edge{s.a, s.rate, 1}, edge{s.b, -s.rate, -1})
	}
	slices.SortFunc(ev, func(x, y edge) int { return cmp.Compare(x.t, y.t) })
	steps, sum, n, last := 0.0, 0.0, 0, 0.0
	for _, e := range ev {
		if n > 0 {
			steps += sum / float64(n) * (e.t - last)
		}
		sum, n, last = sum+e.rate, n+e.d, e.t
	}
	return steps
}

// union is the total length of the union of intervals.
func union(iv [][2]float64) float64 {
	slices.SortFunc(iv, func(a, b [2]float64) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
	total, end := 0.0, math.Inf(-1)
	for _, v := range iv {
		if v[0] > end {
			total += v[1] - v[0]
			end = v[1]
		} else if v[1] > end {
			total += v[1] - end
			end = v[1]
		}
	}
	return total
}

// fitBusy regresses window length on the default prefill and decode time
// through the origin, len = f_p·prefill + f_d·decode. A factor whose
// estimate is not positive or has a relative standard error above
// maxRelSE keeps its default, the other being refitted alone; it reports
// whether either factor was fitted.
func (e *Engine) fitBusy(ws []costWindow, cacheKnown bool) bool {
	if len(ws) < 3 {
		return false
	}
	x1 := func(w costWindow) float64 { return w.prefill }
	x2 := func(w costWindow) float64 { return w.decode }
	fp, fd, r2, ok := fit2(ws)
	pOK, dOK := ok && identified(fp) && cacheKnown, ok && identified(fd)
	if !cacheKnown {
		dOK = true // fitted alone below, prefill at its default
	}
	switch {
	case pOK && dOK:
	case pOK:
		fp, r2 = fit1(ws, x1, x2, 1)
		fd = Factor{1, math.NaN()}
		pOK = identified(fp)
	case dOK:
		fd, r2 = fit1(ws, x2, x1, 1)
		fp = Factor{1, math.NaN()}
		dOK = identified(fd)
	}
	if !pOK && !dOK {
		return false
	}
	if !pOK && cacheKnown {
		fp = Factor{1, math.NaN()}
		e.Warnings = append(e.Warnings, "the run's windows do not pin down the prefill speed: the simulator's default")
	}
	if !dOK {
		fd = Factor{1, math.NaN()}
		e.Warnings = append(e.Warnings, "the run's windows do not pin down the decode speed: the simulator's default")
	}
	e.Prefill, e.Decode, e.R2 = fp, fd, r2
	e.Method, e.Windows = MethodBusy, len(ws)
	return true
}

func identified(f Factor) bool {
	return f.Value > 0 && !math.IsInf(f.Value, 0) && !(f.SE/f.Value > maxRelSE)
}

// fit2 is the two-regressor least squares through the origin, with
// standard errors σ̂·√diag((XᵀX)⁻¹), σ̂² = RSS/(n−2), and the uncentred R².
func fit2(ws []costWindow) (fp, fd Factor, r2 float64, ok bool) {
	var s11, s12, s22, b1, b2, yy float64
	for _, w := range ws {
		s11 += w.prefill * w.prefill
		s12 += w.prefill * w.decode
		s22 += w.decode * w.decode
		b1 += w.prefill * w.len
		b2 += w.decode * w.len
		yy += w.len * w.len
	}
	det := s11*s22 - s12*s12
	if !(det > 1e-12*s11*s22) {
		return fp, fd, math.NaN(), false
	}
	p := (s22*b1 - s12*b2) / det
	d := (s11*b2 - s12*b1) / det
	rss := 0.0
	for _, w := range ws {
		r := w.len - p*w.prefill - d*w.decode
		rss += r * r
	}
	sigma2 := rss / float64(len(ws)-2)
	return Factor{p, math.Sqrt(sigma2 * s22 / det)}, Factor{d, math.Sqrt(sigma2 * s11 / det)}, 1 - rss/yy, true
}

// fit1 fits len = f·x(w) + fixed·other(w) through the origin for f.
func fit1(ws []costWindow, x, other func(costWindow) float64, fixed float64) (Factor, float64) {
	var sxx, sxy, yy float64
	for _, w := range ws {
		y := w.len - fixed*other(w)
		sxx += x(w) * x(w)
		sxy += x(w) * y
		yy += w.len * w.len
	}
	if !(sxx > 0) {
		return Factor{math.NaN(), math.NaN()}, math.NaN()
	}
	f := sxy / sxx
	rss := 0.0
	for _, w := range ws {
		r := w.len - f*x(w) - fixed*other(w)
		rss += r * r
	}
	return Factor{f, math.Sqrt(rss / float64(len(ws)-1) / sxx)}, 1 - rss/yy
}

// lightLoadMin is the least number of turns a light-load median needs.
const lightLoadMin = 5

// fitLightLoad takes the median, over single turns, of the decode time
// per output token against a default decode step with as many requests as
// were in flight, and of the time to first token against a default
// prefill of the tokens the turn computed (at least a block's worth). At
// light load, with little queueing and few prefills sharing a step, these
// are the engine's speeds; under load they overstate both.
func (e *Engine) fitLightLoad(x *stats.RunIndex, cacheKnown bool) bool {
	c := sim.DefaultCost
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
	if len(dec) < lightLoadMin && len(pre) < lightLoadMin {
		return false
	}
	e.Method = MethodLightLoad
	if len(dec) >= lightLoadMin {
		e.Decode = Factor{stats.Median(dec), math.NaN()}
	} else {
		e.Warnings = append(e.Warnings, "too few turns with decode timings: the simulator's default decode speed")
	}
	if len(pre) >= lightLoadMin {
		e.Prefill = Factor{stats.Median(pre), math.NaN()}
	} else if cacheKnown {
		e.Warnings = append(e.Warnings, "too few turns with sent_s and first_token_s: the simulator's default prefill speed")
	}
	e.Warnings = append(e.Warnings, fmt.Sprintf("fewer than 3 %g-minute windows with work to fit: engine speeds from single turns at light load, which queueing would inflate", fitWindowS/60))
	e.Runs = []string{x.Data.Run.Run}
	return true
}
