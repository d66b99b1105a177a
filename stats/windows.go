package stats

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/outlast-dev/outlast/schema"
)

// Window lengths and thresholds fixed by the paper.
const (
	// AnalysisWindowS is the length of the non-overlapping analysis windows
	// of §3 and §6: 5 minutes.
	AnalysisWindowS = 300.0
	// FigureWindowS is the length of the per-minute series of the figures.
	FigureWindowS = 60.0
	// RecoveryStepS is the step of the sliding windows searched for a
	// recovery (§6): 1 minute.
	RecoveryStepS = 60.0
	// EndHitS is the span of the end hit ratio (Table 2, Table 3): the last
	// 10 minutes of a run.
	EndHitS = 600.0
	// EndSessionsS is the span of the end population (Table 2): the last
	// 5 minutes of a run.
	EndSessionsS = 300.0
	// DegradedHit is the hit ratio below which a window is degraded (§3).
	DegradedHit = 0.5
	// RecoveredHit is the hit ratio a window needs to count as recovered
	// (§6), and the end hit ratio below which a run is partially degraded.
	RecoveredHit = 0.8
	// FollowUpS is the follow-up a recovery needs after the start of its
	// window (§6): 10 minutes.
	FollowUpS = 600.0
	// CohortS is the arrival cohort of Table 3: sessions arriving in the
	// 20 minutes after control began.
	CohortS = 1200.0
)

// StatusOK is the turn status of a completed turn; turns with any other
// status (error, aborted) are failed turns. An empty status counts as ok.
const StatusOK = "ok"

// Window is the half-open time interval [Start, End), in seconds since the
// run's t=0.
type Window struct {
	Start float64
	End   float64
}

// Len is the window's length in seconds.
func (w Window) Len() float64 { return w.End - w.Start }

// Contains reports whether t lies in [Start, End).
func (w Window) Contains(t float64) bool { return t >= w.Start && t < w.End }

// AlignedWindows returns the non-overlapping windows of length width whose
// edges are align + k·width for every integer k (so the grid extends from
// align in both directions), keeping only the windows that lie entirely in
// [from, to): partial windows at either end are dropped (run-format.md,
// "Window alignment"; §3). It returns nil when width is not positive or no
// complete window fits.
func AlignedWindows(align, width, from, to float64) []Window {
	if !(width > 0) || !(to > from) || math.IsNaN(align) {
		return nil
	}
	// First edge at or after from; a small tolerance keeps edges that are
	// exact in decimal but not in binary (e.g. 0.1 steps) from slipping.
	k := math.Ceil((from-align)/width - 1e-9)
	var ws []Window
	for {
		s := align + k*width
		e := s + width
		if e > to+1e-9*width {
			break
		}
		if s >= from-1e-9*width {
			ws = append(ws, Window{Start: s, End: e})
		}
		k++
	}
	return ws
}

// SlidingWindows returns the windows [from + i·step, from + i·step + length)
// for i = 0, 1, ... that end at or before to. It returns nil when length or
// step is not positive.
func SlidingWindows(from, to, length, step float64) []Window {
	if !(length > 0) || !(step > 0) {
		return nil
	}
	var ws []Window
	for i := 0; ; i++ {
		s := from + float64(i)*step
		if s+length > to+1e-9*length {
			break
		}
		ws = append(ws, Window{Start: s, End: s + length})
	}
	return ws
}

// RunEnd is the end of a run's observation in seconds since t=0: the
// manifest's planned duration_s when positive, else the latest time recorded
// in any table (a turn's done_s, a session's arrive_s or end_s, an event or
// an engine sample). Sessions without an end_s are in the system until
// RunEnd, and windows are cut at RunEnd.
func RunEnd(rd *schema.RunData) float64 {
	if rd.Run.DurationS > 0 {
		return rd.Run.DurationS
	}
	end := 0.0
	for i := range rd.Turns {
		end = math.Max(end, rd.Turns[i].DoneS)
	}
	for i := range rd.Sessions {
		end = math.Max(end, rd.Sessions[i].ArriveS)
		if rd.Sessions[i].EndS != nil {
			end = math.Max(end, *rd.Sessions[i].EndS)
		}
	}
	for i := range rd.Events {
		end = math.Max(end, rd.Events[i].TS)
	}
	for i := range rd.Engine {
		end = math.Max(end, rd.Engine[i].TS)
	}
	return end
}

// AnalysisWindows returns a run's 5-minute analysis windows: aligned to
// Run.AlignS in both directions, within [0, RunEnd), partial windows at the
// ends dropped (§3, run-format.md).
func AnalysisWindows(rd *schema.RunData) []Window {
	return AlignedWindows(rd.Run.AlignS, AnalysisWindowS, 0, RunEnd(rd))
}

// MinuteWindows returns a run's 1-minute windows for figures, aligned like
// the analysis windows.
func MinuteWindows(rd *schema.RunData) []Window {
	return AlignedWindows(rd.Run.AlignS, FigureWindowS, 0, RunEnd(rd))
}

// turnOK reports whether a turn completed successfully.
func turnOK(t *schema.Turn) bool { return t.Status == StatusOK || t.Status == "" }

// lowCache reports whether less than half of a turn's prompt was cached.
func lowCache(t *schema.Turn) bool { return 2*t.CachedTokens < t.PromptTokens }

// TurnSeries indexes a run's turns by completion time so that any window's
// gateway-side measures cost two binary searches. Build it once per run with
// NewTurnSeries; it does not keep the input slice.
type TurnSeries struct {
	done       []float64 // done_s of ok turns, ascending
	cumPrompt  []int64   // cumPrompt[i] = Σ prompt of the first i ok turns
	cumCached  []int64
	cumLow     []int32 // turns with less than half their prompt cached
	failedDone []float64
	// cacheUnknown: the engine reported no cached tokens, so every measure
	// that needs them (hit ratio, low-cache share, recomputed tokens) is
	// NaN, not what a cached count of 0 would give.
	cacheUnknown bool
}

// NewTurnSeries sorts the turns' completion times once and builds prefix
// sums. Token sums are exact integers, so the result does not depend on the
// order of the input rows.
func NewTurnSeries(turns []schema.Turn) *TurnSeries {
	idx := make([]int, 0, len(turns))
	s := &TurnSeries{}
	for i := range turns {
		if turnOK(&turns[i]) {
			idx = append(idx, i)
		} else {
			s.failedDone = append(s.failedDone, turns[i].DoneS)
		}
	}
	byDone := func(a, b int) int { return cmp.Compare(turns[a].DoneS, turns[b].DoneS) }
	if !slices.IsSortedFunc(idx, byDone) {
		slices.SortStableFunc(idx, byDone)
	}
	sort.Float64s(s.failedDone)
	n := len(idx)
	s.done = make([]float64, n)
	s.cumPrompt = make([]int64, n+1)
	s.cumCached = make([]int64, n+1)
	s.cumLow = make([]int32, n+1)
	for j, i := range idx {
		t := &turns[i]
		s.done[j] = t.DoneS
		s.cumPrompt[j+1] = s.cumPrompt[j] + t.PromptTokens
		s.cumCached[j+1] = s.cumCached[j] + t.CachedTokens
		low := int32(0)
		if lowCache(t) {
			low = 1
		}
		s.cumLow[j+1] = s.cumLow[j] + low
	}
	return s
}

// span returns the index range [i, j) of ok turns completing in w.
func (s *TurnSeries) span(w Window) (int, int) {
	i := sort.SearchFloat64s(s.done, w.Start)
	j := sort.SearchFloat64s(s.done, w.End)
	if j < i {
		j = i
	}
	return i, j
}

// TurnWindow holds the gateway-side measures of one window, over the turns
// completing in it (§3).
type TurnWindow struct {
	Window
	// Turns is the number of ok turns completing in the window.
	Turns int
	// FailedTurns is the number of turns with status error or aborted; they
	// enter no other field.
	FailedTurns int
	// PromptTokens and CachedTokens are Σp_i and Σc_i over the ok turns.
	PromptTokens int64
	CachedTokens int64
	// HitRatio is the token-weighted prefix hit ratio Σc_i / Σp_i (§3); NaN
	// (missing, not 0) when no turn completed or the prompts sum to 0.
	HitRatio float64
	// TurnsPerS is the turn throughput, Turns / window length (§3). It is 0,
	// not missing, for a window in which no turn completed.
	TurnsPerS float64
	// RecomputedTokensPerS is Σ(p_i − c_i) / window length: prompt tokens the
	// engine had to prefill (Figure 4).
	RecomputedTokensPerS float64
	// LowCacheShare is the share of turns with less than half their prompt
	// cached (§4, "99.6–100% of completed turns"); NaN without turns.
	LowCacheShare float64
}

// Window computes the gateway-side measures of one window.
func (s *TurnSeries) Window(w Window) TurnWindow {
	i, j := s.span(w)
	tw := TurnWindow{Window: w, Turns: j - i}
	tw.FailedTurns = sort.SearchFloat64s(s.failedDone, w.End) - sort.SearchFloat64s(s.failedDone, w.Start)
	if tw.FailedTurns < 0 {
		tw.FailedTurns = 0
	}
	tw.PromptTokens = s.cumPrompt[j] - s.cumPrompt[i]
	tw.CachedTokens = s.cumCached[j] - s.cumCached[i]
	tw.HitRatio = math.NaN()
	tw.LowCacheShare = math.NaN()
	if tw.Turns > 0 {
		tw.LowCacheShare = float64(s.cumLow[j]-s.cumLow[i]) / float64(tw.Turns)
		if tw.PromptTokens > 0 {
			tw.HitRatio = float64(tw.CachedTokens) / float64(tw.PromptTokens)
		}
	}
	if l := w.Len(); l > 0 {
		tw.TurnsPerS = float64(tw.Turns) / l
		tw.RecomputedTokensPerS = float64(tw.PromptTokens-tw.CachedTokens) / l
	} else {
		tw.TurnsPerS = math.NaN()
		tw.RecomputedTokensPerS = math.NaN()
	}
	if s.cacheUnknown {
		tw.HitRatio, tw.LowCacheShare, tw.RecomputedTokensPerS = math.NaN(), math.NaN(), math.NaN()
	}
	return tw
}

// Windows computes the gateway-side measures of each window, in order.
func (s *TurnSeries) Windows(ws []Window) []TurnWindow {
	out := make([]TurnWindow, len(ws))
	for k, w := range ws {
		out[k] = s.Window(w)
	}
	return out
}

// HitRatio is the token-weighted hit ratio of the turns completing in w;
// NaN when none did.
func (s *TurnSeries) HitRatio(w Window) float64 { return s.Window(w).HitRatio }

// MeanContext is L̄, the mean prompt length of all ok turns (§4, N* = C/L̄);
// NaN without turns.
func (s *TurnSeries) MeanContext() float64 {
	n := len(s.done)
	if n == 0 {
		return math.NaN()
	}
	return float64(s.cumPrompt[n]) / float64(n)
}
