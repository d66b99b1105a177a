package stats

import (
	"errors"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
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
	// Degraded says the run was degraded when the rate changed: the 5
	// minutes before ChangeS were (CollapsedAt); DegradedKnown that some
	// turn completed then, so that it is known.
	Degraded      bool
	DegradedKnown bool
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
	d.Degraded, d.DegradedKnown = x.CollapsedAt(d.ChangeS)
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

// Drain verdicts of a run and of an arrival rate.
const (
	DrainDrains    = "drains"    // the slope's confidence interval lies below 0
	DrainGrows     = "grows"     // it lies above 0
	DrainUndecided = "undecided" // it contains 0 (or, for a rate, its runs disagree)
)

// DrainConfidence is the level of a slope's confidence interval: 95%.
const DrainConfidence = 0.95

// SlopeCI is the two-sided DrainConfidence interval of the slope, slope ±
// t(n−2)·SE over the n samples; NaN without an SE (fewer than 3 samples).
func (d Drain) SlopeCI() (lo, hi float64) {
	n := len(d.Points)
	if n < 3 || math.IsNaN(d.SEPerHour) || math.IsNaN(d.SlopePerHour) {
		return math.NaN(), math.NaN()
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 2)}.Quantile(1 - (1-DrainConfidence)/2)
	return d.SlopePerHour - t*d.SEPerHour, d.SlopePerHour + t*d.SEPerHour
}

// Verdict is the run's drain verdict from SlopeCI: drains, grows or
// undecided ("" without an interval).
func (d Drain) Verdict() string {
	lo, hi := d.SlopeCI()
	switch {
	case math.IsNaN(lo):
		return ""
	case hi < 0:
		return DrainDrains
	case lo > 0:
		return DrainGrows
	}
	return DrainUndecided
}

// DrainRun is one run a rate's verdict used.
type DrainRun struct {
	Run          string
	SlopePerHour float64
	SEPerHour    float64
	// Lo and Hi bound the slope's DrainConfidence interval.
	Lo, Hi  float64
	Verdict string
}

// DrainLeftOut is a run the bracket left out, and why.
type DrainLeftOut struct {
	Run    string
	Rate   float64 // NaN when unknown
	Reason string
}

// DrainRate is the verdict of one arrival rate after the change.
type DrainRate struct {
	Rate float64
	// Runs are the runs degraded when the rate changed, by name; Slopes
	// their slopes, ascending.
	Runs   []DrainRun
	Slopes []float64
	// Verdict is grows when every run's interval lies above 0, drains
	// when every run's lies below 0, undecided otherwise.
	Verdict string
	// LeftOut are the runs at this rate the verdict did not use.
	LeftOut []DrainLeftOut
}

// DrainBracket sets the measured break-even beside the model's 1/S (§4).
type DrainBracket struct {
	// Rates are the rates with a run degraded when the rate changed,
	// ascending, and LeftOut the runs at no such rate (or at none known).
	Rates   []DrainRate
	LeftOut []DrainLeftOut
	// LargestDraining is the largest rate whose verdict is drains;
	// LargestNotGrowing the largest whose verdict is not grows;
	// SmallestGrowing the smallest rate, not below LargestNotGrowing, whose
	// verdict is grows. NaN when no rate qualifies. The paper's bracket
	// (0.010–0.014) is [LargestNotGrowing, SmallestGrowing].
	LargestDraining   float64
	LargestNotGrowing float64
	SmallestGrowing   float64
	// ModelRate is 1/S from the cold-cost fit.
	ModelRate float64
}

// NewDrainBracket finds the bracket from the runs degraded when the rate
// changed (Drain.Degraded: §4 measures drain after collapse; a run that
// never collapsed drains whatever the rate), grouped by RateAfter; each
// run's verdict is from its slope's confidence interval. Every other run
// is left out with the reason.
func NewDrainBracket(drains []Drain, modelRate float64) DrainBracket {
	nan := math.NaN()
	b := DrainBracket{LargestDraining: nan, LargestNotGrowing: nan, SmallestGrowing: nan, ModelRate: modelRate}
	by := map[float64]*DrainRate{}
	rate := func(r float64) *DrainRate {
		if by[r] == nil {
			by[r] = &DrainRate{Rate: r}
		}
		return by[r]
	}
	sorted := append([]Drain(nil), drains...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Run < sorted[j].Run })
	for _, d := range sorted {
		lo, hi := d.SlopeCI()
		reason := ""
		switch {
		case math.IsNaN(d.RateAfter):
			b.LeftOut = append(b.LeftOut, DrainLeftOut{Run: d.Run, Rate: nan, Reason: "no arrival rate after the change (trigger.rate_after)"})
			continue
		case !d.DegradedKnown:
			reason = "no turn completed in the 5 minutes before the rate changed: whether it was degraded is unknown"
		case !d.Degraded:
			reason = "not degraded when the rate changed (the 5 minutes before it had a hit ratio ≥ 0.5): nothing to drain"
		case math.IsNaN(lo):
			reason = "fewer than 3 samples of W(t): no confidence interval for its slope"
		}
		if reason != "" {
			rate(d.RateAfter).LeftOut = append(rate(d.RateAfter).LeftOut, DrainLeftOut{Run: d.Run, Rate: d.RateAfter, Reason: reason})
			continue
		}
		r := rate(d.RateAfter)
		r.Runs = append(r.Runs, DrainRun{Run: d.Run, SlopePerHour: d.SlopePerHour, SEPerHour: d.SEPerHour, Lo: lo, Hi: hi, Verdict: d.Verdict()})
		r.Slopes = append(r.Slopes, d.SlopePerHour)
	}
	rates := make([]float64, 0, len(by))
	for r := range by {
		rates = append(rates, r)
	}
	sort.Float64s(rates)
	for _, rv := range rates {
		r := by[rv]
		if len(r.Runs) == 0 {
			b.LeftOut = append(b.LeftOut, r.LeftOut...)
			continue
		}
		sort.Float64s(r.Slopes)
		r.Verdict = r.Runs[0].Verdict
		for _, run := range r.Runs[1:] {
			if run.Verdict != r.Verdict {
				r.Verdict = DrainUndecided
			}
		}
		b.Rates = append(b.Rates, *r)
		if r.Verdict == DrainDrains {
			b.LargestDraining = rv
		}
		if r.Verdict != DrainGrows {
			b.LargestNotGrowing = rv
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

// DrainTerms is what a run's remaining cold work W(t) (§4) is made of,
// before a cold-turn cost c(L) = a + b·L is chosen: at each sample time,
// every counted session's remaining turns m and the sum ΣL of their
// contexts, so that W(t) = Σ (m·a + b·ΣL). A report measures each run once,
// keeps its terms instead of its tables, and applies the c(L) fitted over
// the whole dataset afterwards (Drain), with the same sums in the same
// order as RemainingColdWork.
type DrainTerms struct {
	Run       string
	ChangeS   float64
	RateAfter float64
	Points    []DrainTermPoint
	// Degraded and DegradedKnown are Drain's.
	Degraded, DegradedKnown bool
}

// DrainTermPoint is one sample time of DrainTerms. Turns[i] and Tokens[i]
// are the i-th counted session's remaining turns and their total context,
// in session arrival order.
type DrainTermPoint struct {
	T        float64
	Sessions int
	Skipped  int
	Turns    []float64
	Tokens   []float64
}

// Drain applies the cost fit: W(t) at every sample time and its slope, as
// RemainingColdWork computes them.
func (d DrainTerms) Drain(fit CostFit) Drain {
	out := Drain{Run: d.Run, ChangeS: d.ChangeS, RateAfter: d.RateAfter, SlopePerHour: math.NaN(), SEPerHour: math.NaN(),
		Degraded: d.Degraded, DegradedKnown: d.DegradedKnown}
	for _, tp := range d.Points {
		p := DrainPoint{T: tp.T, Sessions: tp.Sessions, Skipped: tp.Skipped}
		for i, m := range tp.Turns {
			p.ColdWorkS += m*fit.A + fit.B*tp.Tokens[i]
		}
		out.Points = append(out.Points, p)
	}
	ts := make([]float64, len(out.Points))
	ys := make([]float64, len(out.Points))
	for k, p := range out.Points {
		ts[k], ys[k] = p.T/3600, p.ColdWorkS
	}
	out.SlopePerHour, out.SEPerHour = olsSlope(ts, ys)
	return out
}
