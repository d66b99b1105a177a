package replay

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
	"github.com/outlast-dev/outlast/stats"
)

// fitWindowS is the length of the fitting windows: the paper's
// calibration windows (§4).
const fitWindowS = stats.CalibrationWindowS

// Where a fit takes each turn's cached prompt tokens from.
const (
	// CachedReported: the engine's count on each turn, as the gateway
	// recorded it.
	CachedReported = "reported per turn"
	// CachedEngineShare: the run reports no cached tokens per turn, so
	// each turn is given the engine's own hit ratio in its window (its
	// prefix-cache counters, or SGLang's prefill lines) times its prompt.
	CachedEngineShare = "the engine's hit ratio per window"
)

// busyWindows returns a run's fitting windows with the default-cost time
// of the work done in each, numbered run; ok is false when the turns'
// cached tokens are unknown (cachedTokens). The windows are the 2-minute
// windows of the run; the engine is busy while any turn is in flight
// (sent and not done), when the gateway gives sent_s for nearly every
// turn. Otherwise only the windows in which the engine's running samples
// never fell below one count, as wholly busy (stats.ColdCostWindows),
// which misses idle spells between samples. A turn's prefill,
// A·n + B·(p² − c²)/2 for the p − c tokens it computed, falls in the
// window of its first token; its other output tokens are spread evenly
// over [first token, done], each costing a decode K1 + K2·q at the turn's
// mid-decode context q, and every decode step a fixed T0 (decodeSteps
// counts them). A window with a turn lacking first_token_s, or without
// the engine's hit ratio when that stands in for the turns' cached
// tokens, is left out.
func busyWindows(x *stats.RunIndex, c sim.Cost, run int) ([]costWindow, bool) {
	ws, gateway := fitWindows(x)
	n := len(ws)
	if n == 0 {
		return nil, true
	}
	cached, bad, ok := cachedTokens(x, ws)
	if !ok {
		return nil, false
	}
	out := make([]costWindow, n)
	spans := make([][]decodeSpan, n)
	flight := make([][][2]float64, n)
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
			out[k].prefill += c.PrefillS(cached(t, k), int(t.PromptTokens))
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
		out[k].run = run
		if out[k].len > 0 && out[k].prefill+out[k].decode > 0 {
			kept = append(kept, out[k])
		}
	}
	return kept, true
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

// cachedTokens returns a turn's cached prompt tokens, given the window k
// of its first token, and the windows it cannot tell (bad). A run that
// reports them (runs.cache_reported) gives them per turn. One that does
// not is fitted with the engine's own hit ratio of the window times the
// turn's prompt (in whole blocks, at most all but its last token): that
// ratio is the run's, where taking every turn to hit its previous one
// would fit a collapsed run as a healthy one. ok is false when the run
// reports neither (the engine gives no hit counters or SGLang prefill
// lines); its prefill cannot then be told from its hits.
func cachedTokens(x *stats.RunIndex, ws []stats.Window) (cached func(t *schema.Turn, k int) int, bad []bool, ok bool) {
	bad = make([]bool, len(ws))
	if !x.Data.Run.PrefixCaching {
		return func(*schema.Turn, int) int { return 0 }, bad, true
	}
	if stats.CacheKnown(&x.Data.Run) {
		return func(t *schema.Turn, _ int) int { return int(t.CachedTokens) }, bad, true
	}
	hit, src := x.EngineHitRatios(x.EngineWindows(ws))
	if src == "" || src == stats.EngineHitLog {
		// The printed rate covers the engine's last 1,000 requests, not
		// the window: too smooth to split a window's prefill by.
		return nil, nil, false
	}
	for k, h := range hit {
		bad[k] = math.IsNaN(h)
	}
	return func(t *schema.Turn, k int) int {
		h := hit[k]
		if math.IsNaN(h) {
			return 0
		}
		c := int(h*float64(t.PromptTokens)) / blockTokens * blockTokens
		return max(min(c, int(t.PromptTokens)-1), 0)
	}, bad, true
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
	slices.SortFunc(iv, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
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
