package stats

import (
	"fmt"
	"math"

	"github.com/outlast-dev/outlast/schema"
)

// SeriesPoint is one window of a run's time series, gateway and engine side
// by side (Figures 1, 4, 5).
type SeriesPoint struct {
	TurnWindow
	// Sessions is the time-averaged number of sessions in the system.
	Sessions float64
	// DemandTokens is the time-averaged resident demand D, and DemandRatio
	// D/C (NaN when C is unknown).
	DemandTokens float64
	DemandRatio  float64
	Engine       EngineWindow
}

// Series computes the time series of a run over ws.
func (x *RunIndex) Series(ws []Window) []SeriesPoint {
	eng := x.EngineWindows(ws)
	c, okC := x.KVPool()
	out := make([]SeriesPoint, len(ws))
	for k, w := range ws {
		p := SeriesPoint{TurnWindow: x.Turns.Window(w), Engine: eng[k]}
		p.Sessions = x.Population.Mean(w)
		p.DemandTokens = x.Demand.Mean(w)
		p.DemandRatio = math.NaN()
		if okC {
			p.DemandRatio = p.DemandTokens / c
		}
		out[k] = p
	}
	return out
}

// RunSummary is a run's row in the report's overview and the input of the
// paper's tables. Missing values are NaN (or nil for Recovery).
type RunSummary struct {
	Run         string
	Experiment  string
	Design      string
	Seed        *int64
	Arm         string
	ControlKind string
	Verdict     Verdict
	// ArrivalRate is λ from the manifest (NaN when null); TriggerKind and
	// TriggerExtraRate (a burst's extra sessions/s, NaN when null) place the
	// run on the regime map.
	ArrivalRate      float64
	TriggerKind      string
	TriggerExtraRate float64
	// EndHit is the hit ratio over the last 10 minutes, EndSessions the mean
	// sessions in the system over the last 5 (Table 2).
	EndHit      float64
	EndSessions float64
	// FirstDegradedS and Persistent are from Regime (§3).
	FirstDegradedS float64
	Persistent     bool
	// DegradedFromS is when the run's degradation began: its first
	// degraded window at or after the reference time, or, for a run
	// collapsed when control began, the window that found it so if that is
	// earlier; NaN for a run never degraded. RecoveredAtS is where it
	// recovered (Recovery.AtS), NaN unless its verdict is recovered-alone
	// or recovered-under-control. RecoveryReason says why a degraded run
	// did not recover ("" otherwise).
	DegradedFromS  float64
	RecoveredAtS   float64
	RecoveryReason string
	// CutShort says the gateway's records stop more than a window before
	// the planned end (RunIndex.CutShort): the end figures describe an
	// earlier time.
	CutShort bool
	// TriggerAfterEnd says the run's trigger (or, for a twin, its slot)
	// starts at or after the run's end: the burst never ran, so the run
	// says nothing of what a burst leaves behind (it is not Judged).
	TriggerAfterEnd bool
	// NoWindowAfter says no 5-minute analysis window with a completed
	// turn starts at or after the trigger's end (Regime.ReferenceS): a
	// trigger that ends at the run's end leaves nothing to judge
	// persistence by, so the run is not Judged and its verdict is unknown
	// (a low end hit ratio there is the trigger itself, not what it left).
	NoWindowAfter bool
	// PeakWindowHit is the highest hit ratio of the run's 5-minute analysis
	// windows, NaN when none has a completed turn. Below RecoveredHit
	// (0.8) the run was never healthy by §3's threshold anywhere: a
	// workload that reuses little (single-turn sessions, a small shared
	// prefix) reads "degraded" without any collapse.
	PeakWindowHit float64
	// Short says the run is shorter than the end hit ratio's window (10
	// minutes): its "last 10 minutes" are the whole run, cold start
	// included, so its end figures read lower than a longer run's would,
	// and it gets no verdict from them (unknown).
	Short bool
	// ControlStartS is control_start_s (NaN when null). CollapsedAtControl
	// is CollapsedAt(ControlStartS), false when unknown. ControlJudged
	// says whether it is known: caching on, cached tokens reported, turns
	// in the 5 minutes before control began, and control beginning before
	// the run's end (a control that never ran has nothing to recover).
	ControlStartS      float64
	CollapsedAtControl bool
	ControlJudged      bool
	// Recovery is set for runs collapsed when control began (§6, Table 3),
	// searched from the control start.
	Recovery *Recovery
	// RecoveryMin is Recovery.Minutes, NaN when not recovered or nil.
	RecoveryMin float64
	// CohortDone is the completion of sessions arriving in the 20 minutes
	// after control began (Table 3); N is 0 without control.
	CohortDone Proportion
	// KVPoolTokens is C (NaN when null); MeanContext is L̄ over the run's ok
	// turns; NStar is C/L̄ (§4).
	KVPoolTokens float64
	MeanContext  float64
	NStar        float64
	// PeakDemandRatio is the largest 1-minute mean of D/C (Figure 4); NaN
	// when C is unknown. EndDemandRatio is the mean D/C over the last 5
	// minutes, the span of EndSessions.
	PeakDemandRatio float64
	EndDemandRatio  float64
	// PreSessions and PreDemandRatio are the run's own level before its
	// trigger: the mean sessions in the system and D/C over the 5-minute
	// window before the trigger's start with the fewest sessions (the
	// run's first 5 minutes, its warm-up, left out when it can be); NaN
	// without a trigger start at least 5 minutes in (D/C also without C).
	PreSessions    float64
	PreDemandRatio float64
	// Warnings name what could not be computed and why.
	Warnings []string
}

// Summarize computes a run's overview row.
func (x *RunIndex) Summarize() RunSummary {
	r := &x.Data.Run
	nan := math.NaN()
	s := RunSummary{
		Run: r.Run, Experiment: r.Experiment, Design: r.Design, Seed: r.Seed, Arm: r.Arm,
		ControlKind: r.ControlKind, ArrivalRate: nan, TriggerKind: r.TriggerKind, TriggerExtraRate: nan, ControlStartS: nan, RecoveryMin: nan,
		KVPoolTokens: nan, PeakDemandRatio: nan, EndDemandRatio: nan, CohortDone: NewProportion(0, 0), DegradedFromS: nan, RecoveredAtS: nan,
	}
	if r.ArrivalRate != nil {
		s.ArrivalRate = *r.ArrivalRate
	}
	if r.TriggerExtraRate != nil {
		s.TriggerExtraRate = *r.TriggerExtraRate
	}
	reg := x.Regime()
	s.EndHit, s.FirstDegradedS, s.Persistent = reg.EndHit, reg.FirstDegradedS, reg.Persistent
	s.EndSessions = x.Population.Mean(x.EndWindow(EndSessionsS))
	s.PeakWindowHit = nan
	for _, w := range AnalysisWindows(x.Data) {
		if h := x.Turns.Window(w).HitRatio; h > s.PeakWindowHit || math.IsNaN(s.PeakWindowHit) {
			s.PeakWindowHit = h
		}
	}
	noTurns := len(x.Data.Turns) == 0
	if noTurns && len(x.Data.Sessions) == 0 {
		// No session was recorded at all: how many were in the system is
		// unknown, not 0.
		s.EndSessions = nan
	}
	if x.End < EndHitS && !noTurns && r.PrefixCaching {
		s.Short = true
		s.Warnings = append(s.Warnings, fmt.Sprintf("the run lasts %.0f s, less than the %.0f-minute end window: its end figures cover the whole run, cold start included, and it gets no verdict (unknown)", x.End, EndHitS/60))
	}
	if r.TriggerStartS != nil && *r.TriggerStartS >= x.End {
		s.TriggerAfterEnd = true
		s.Warnings = append(s.Warnings, fmt.Sprintf("the trigger starts at %.0f s, at or after the run's end (%.0f s): it never ran", *r.TriggerStartS, x.End))
	}
	if !noTurns && !s.TriggerAfterEnd && r.TriggerEndS != nil && CacheKnown(r) && !reg.HasData() {
		s.NoWindowAfter = true
		s.Warnings = append(s.Warnings, fmt.Sprintf("no 5-minute window with a completed turn starts after the trigger's end (%.0f s) before the run's end (%.0f s): persistence unknown", *r.TriggerEndS, x.End))
	}
	cacheKnown := CacheKnown(r)
	if noTurns {
		s.Warnings = append(s.Warnings, "the gateway log holds no turn, completed or failed: nothing to measure")
	} else if !cacheKnown {
		s.Warnings = append(s.Warnings, "the engine reported no cached tokens (runs.cache_reported false; vLLM needs --enable-prompt-tokens-details, SGLang --enable-cache-report): no hit ratio, no regime verdict")
	} else if math.IsNaN(s.EndHit) {
		s.Warnings = append(s.Warnings, "no turn completed in the last 10 minutes: end hit ratio missing")
	}
	c, okC := x.KVPool()
	s.MeanContext = x.Turns.MeanContext()
	if okC {
		s.KVPoolTokens = c
		s.NStar = NStar(c, s.MeanContext)
		peak := nan
		for _, w := range MinuteWindows(x.Data) {
			v := x.Demand.Mean(w) / c
			if math.IsNaN(peak) || v > peak {
				peak = v
			}
		}
		s.PeakDemandRatio = peak
		s.EndDemandRatio = x.Demand.Mean(x.EndWindow(EndSessionsS)) / c
		if noTurns {
			// Without a turn no session's context is known, so D is
			// unknown, not 0.
			s.PeakDemandRatio, s.EndDemandRatio = nan, nan
		}
	} else {
		s.NStar = nan
		s.Warnings = append(s.Warnings, "KV pool size C unknown: N*, D/C and healthy-side ratios are missing")
	}
	s.PreSessions, s.PreDemandRatio = x.preTrigger()
	s.CutShort = x.CutShort()
	if x.DemandUnknownSessions > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d sessions without context_tokens or turns add nothing to D", x.DemandUnknownSessions))
	}
	if r.ControlStartS != nil {
		s.ControlStartS = *r.ControlStartS
	}
	// A control that starts at t=0 (prevention, or "none" written as 0) has
	// no window before it to be collapsed in.
	if r.ControlStartS != nil && *r.ControlStartS > 0 && r.PrefixCaching && cacheKnown && !noTurns {
		cs := *r.ControlStartS
		s.CohortDone = x.CohortCompletion(Window{Start: cs, End: cs + CohortS})
		collapsed, ok := x.CollapsedAt(cs)
		s.CollapsedAtControl = collapsed
		s.ControlJudged = ok && cs < x.End
		if !ok {
			s.Warnings = append(s.Warnings, "no turn completed in the 5 minutes before control began: collapse unknown")
		}
		if collapsed {
			rec := x.Recovery(cs)
			s.Recovery = &rec
			s.RecoveryMin = rec.Minutes
		}
	}
	x.judge(&s, reg)
	return s
}

// Judged reports whether the run was judged: it has turns, prefix caching
// on, cached tokens reported, lasts at least the 10-minute end window, its
// trigger (if any) within the run and a window with turns after its end,
// and either turns in the last 10 minutes or a persistent verdict (a
// server that completes no turn at the end of a persistent collapse is no
// less collapsed): its verdict is one of JudgedVerdicts. Persistent says
// nothing of a run not judged: what counts it (Table 2's sign test, a
// comparison's collapse rate, a check) leaves it out and says so.
func (s RunSummary) Judged() bool { return s.Verdict.Judged() }

// RunAnalysis is everything the report shows for one run.
type RunAnalysis struct {
	Summary RunSummary
	Regime  Regime
	// Windows are the 5-minute analysis windows, Minutes the 1-minute
	// series of the figures.
	Windows []SeriesPoint
	Minutes []SeriesPoint
	// Cohorts is the completion of each 5-minute arrival cohort (Figure 8).
	Cohorts []CohortPoint
	// LatencyAfterControl summarizes the sessions arriving in the 20 minutes
	// after control began (zero Sessions without control).
	LatencyAfterControl LatencySummary
	// FirstTurnWaitPhase1 summarizes the first-turn gateway wait of sessions
	// arriving before the trigger started (Figure 6; the whole run without a
	// trigger start).
	FirstTurnWaitPhase1 WaitSummary
}

// Analyze computes a run's analysis.
func Analyze(x *RunIndex) RunAnalysis {
	a := RunAnalysis{Summary: x.Summarize(), Regime: x.Regime()}
	a.Windows = x.Series(AnalysisWindows(x.Data))
	a.Minutes = x.Series(MinuteWindows(x.Data))
	a.Cohorts = x.Cohorts(AnalysisWindows(x.Data))
	a.LatencyAfterControl = LatencySummary{MedianS: math.NaN(), P90S: math.NaN()}
	if cs := x.Data.Run.ControlStartS; cs != nil {
		a.LatencyAfterControl = x.SessionLatency(Window{Start: *cs, End: *cs + CohortS})
	}
	phase := Window{Start: 0, End: x.End}
	if ts := x.Data.Run.TriggerStartS; ts != nil {
		phase.End = *ts
	}
	a.FirstTurnWaitPhase1 = x.FirstTurnWait(phase)
	return a
}

// CacheKnown reports whether a run's turns carry the engine's cached-token
// counts: runs.cache_reported is true, or null (a dataset written before
// the column, whose cached tokens were taken as reported).
func CacheKnown(r *schema.Run) bool { return r.CacheReported == nil || *r.CacheReported }
