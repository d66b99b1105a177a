package stats

import (
	"errors"
	"math"
	"sort"
)

// DrainSampleS is the spacing of the remaining-cold-work samples (§4): 10
// minutes.
const DrainSampleS = 600.0

// DrainPoint is the remaining cold work at one time (§4).
type DrainPoint struct {
	T float64
	// ColdWorkS is W(t) = Σ over sessions in the system of Σ over their
	// remaining turns of c(L_k), in engine-seconds.
	ColdWorkS float64
	// Sessions in the system at T, and Skipped of them left out because
	// their planned turns (turns_planned, else workload_turns) are unknown.
	Sessions int
	Skipped  int
}

// Drain is the drift of the remaining cold work after a rate change (§4).
type Drain struct {
	Run string
	// ChangeS is the rate change t0 (Run.TriggerStartS) and RateAfter the
	// arrival rate after it (Run.TriggerRateAfter; NaN when null).
	ChangeS   float64
	RateAfter float64
	Points    []DrainPoint
	// SlopePerHour is the OLS slope of W(t) on t over the points, in
	// engine-seconds per hour, and SEPerHour its standard error (NaN with
	// fewer than 3 points).
	SlopePerHour float64
	SEPerHour    float64
}

// ErrNoRateChange is returned by RemainingColdWork for a run without a
// trigger start time.
var ErrNoRateChange = errors.New("stats: drain needs trigger_start_s (the rate change)")

// ErrNoGrowth is returned by RemainingColdWork when the manifest lacks
// output_tokens or tool_tokens, so later turn contexts are unknown.
var ErrNoGrowth = errors.New("stats: drain needs the workload's output_tokens and tool_tokens")

// RemainingColdWork samples W(t) at t0, t0 + DrainSampleS, ... up to and
// including the run's end when it falls on that grid, and fits its slope
// over them: the whole post-change interval at 10-minute samples (§4). A
// session is in the system at t from its arrive_s until its end_s; one
// still open when the run ends (no end_s) is in the system at the end
// sample too. The contexts of a session's
// remaining turns grow by output_tokens + tool_tokens per turn from its
// latest completed turn's prompt (before its first turn completes, from its
// context_tokens, else its first turn's prompt, else system_tokens +
// task_tokens); a turn counts as done by t when its done_s ≤ t. It is
// DrainTerms followed by DrainTerms.Drain.
func (x *RunIndex) RemainingColdWork(fit CostFit) (Drain, error) {
	terms, err := x.DrainTerms()
	if err != nil {
		return Drain{Run: terms.Run, ChangeS: terms.ChangeS, RateAfter: terms.RateAfter, SlopePerHour: math.NaN(), SEPerHour: math.NaN()}, err
	}
	return terms.Drain(fit), nil
}

// DrainTerms samples what W(t) is made of at the times RemainingColdWork
// samples it, before a cost fit is applied; see RemainingColdWork.
func (x *RunIndex) DrainTerms() (DrainTerms, error) {
	r := &x.Data.Run
	d := DrainTerms{Run: r.Run, RateAfter: math.NaN()}
	if r.TriggerStartS == nil {
		return d, ErrNoRateChange
	}
	if r.OutputTokens == nil || r.ToolTokens == nil {
		return d, ErrNoGrowth
	}
	d.ChangeS = *r.TriggerStartS
	if r.TriggerRateAfter != nil {
		d.RateAfter = *r.TriggerRateAfter
	}
	growth := float64(*r.OutputTokens + *r.ToolTokens)
	// Multiples rather than a running sum, so that an end on the grid is
	// reached exactly.
	for k := 0; ; k++ {
		t := d.ChangeS + float64(k)*DrainSampleS
		if t > x.End {
			break
		}
		d.Points = append(d.Points, x.coldWorkAt(t, growth))
	}
	return d, nil
}

func (x *RunIndex) coldWorkAt(t float64, growth float64) DrainTermPoint {
	p := DrainTermPoint{T: t}
	r := &x.Data.Run
	for _, si := range x.sessions {
		s := &x.Data.Sessions[si]
		if s.ArriveS > t {
			break
		}
		// x.sessionEnd would make an open session leave at the run's end;
		// at the end sample it is still in the system.
		if s.EndS != nil && !(t < *s.EndS) {
			continue
		}
		p.Sessions++
		var planned int64
		switch {
		case s.TurnsPlanned != nil:
			planned = *s.TurnsPlanned
		case r.Turns != nil:
			planned = *r.Turns
		default:
			p.Skipped++
			continue
		}
		ts := x.turnsBySess[s.Session]
		done := sort.Search(len(ts), func(k int) bool { return x.Data.Turns[ts[k]].DoneS > t })
		m := planned - int64(done)
		if m <= 0 {
			continue
		}
		// base context at turn number q.
		var base float64
		var q int64
		found := false
		for k := done - 1; k >= 0; k-- {
			tt := &x.Data.Turns[ts[k]]
			if turnOK(tt) {
				base, q, found = float64(tt.PromptTokens), int64(tt.Turn), true
				break
			}
		}
		if !found {
			switch first := x.firstTurn(s.Session); {
			case s.ContextTokens != nil:
				base = float64(*s.ContextTokens)
			case first != nil:
				base = float64(first.PromptTokens)
			case r.SystemTokens != nil && r.TaskTokens != nil:
				base = float64(*r.SystemTokens + *r.TaskTokens)
			default:
				p.Skipped++
				continue
			}
		}
		j := int64(done) // next turn number
		d0 := float64(j - q)
		mf := float64(m)
		sumL := mf*base + growth*(mf*d0+mf*(mf-1)/2)
		p.Turns = append(p.Turns, mf)
		p.Tokens = append(p.Tokens, sumL)
	}
	return p
}

// olsSlope returns the OLS slope of y on x with an intercept and its
// standard error (NaN with fewer than 3 points; slope NaN with fewer than 2
// or constant x).
func olsSlope(x, y []float64) (slope, se float64) {
	n := len(x)
	slope, se = math.NaN(), math.NaN()
	if n < 2 {
		return
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxx, sxy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
	}
	if !(sxx > 0) {
		return
	}
	slope = sxy / sxx
	if n >= 3 {
		var rss float64
		for i := range x {
			e := y[i] - my - slope*(x[i]-mx)
			rss += e * e
		}
		se = math.Sqrt(rss / float64(n-2) / sxx)
	}
	return
}

// Drain verdicts of an arrival rate.
const (
	DrainDrains = "drains" // every run's slope is negative
	DrainGrows  = "grows"  // every run's slope is positive
	DrainMixed  = "mixed"  // otherwise
)

// DrainRate groups the drain slopes of the runs at one arrival rate.
type DrainRate struct {
	Rate    float64
	Slopes  []float64 // ascending
	Verdict string
}

// DrainBracket sets the measured break-even beside the model's 1/S (§4).
type DrainBracket struct {
	Rates []DrainRate
	// LargestDraining is the largest rate at which every run drained;
	// LargestNotGrowing the largest at which some run did not grow;
	// SmallestGrowing the smallest at which every run grew. NaN when no
	// rate qualifies. The paper's bracket (0.010–0.014) is
	// [LargestNotGrowing, SmallestGrowing].
	LargestDraining   float64
	LargestNotGrowing float64
	SmallestGrowing   float64
	// ModelRate is 1/S from the cold-cost fit.
	ModelRate float64
}

// NewDrainBracket groups drain fits by RateAfter (runs with a NaN rate or
// slope are left out) and finds the bracket.
func NewDrainBracket(drains []Drain, modelRate float64) DrainBracket {
	nan := math.NaN()
	b := DrainBracket{LargestDraining: nan, LargestNotGrowing: nan, SmallestGrowing: nan, ModelRate: modelRate}
	by := map[float64][]float64{}
	for _, d := range drains {
		if math.IsNaN(d.RateAfter) || math.IsNaN(d.SlopePerHour) {
			continue
		}
		by[d.RateAfter] = append(by[d.RateAfter], d.SlopePerHour)
	}
	rates := make([]float64, 0, len(by))
	for r := range by {
		rates = append(rates, r)
	}
	sort.Float64s(rates)
	for _, r := range rates {
		sl := by[r]
		sort.Float64s(sl)
		v := DrainMixed
		switch {
		case sl[len(sl)-1] < 0:
			v = DrainDrains
		case sl[0] > 0:
			v = DrainGrows
		}
		b.Rates = append(b.Rates, DrainRate{Rate: r, Slopes: sl, Verdict: v})
		if v == DrainDrains {
			b.LargestDraining = r
		}
		if v != DrainGrows {
			b.LargestNotGrowing = r
		}
	}
	for _, dr := range b.Rates {
		if dr.Verdict == DrainGrows && !(dr.Rate < b.LargestNotGrowing) {
			b.SmallestGrowing = dr.Rate
			break
		}
	}
	return b
}
