package stats

import (
	"math"
	"sort"
)

// HealthySide is the healthy-side condition of §4: the cache-warm
// population's resident demand λ·T·(Z+R₀)·L̄ against the KV pool C.
type HealthySide struct {
	// Population is λ·T·(Z+R₀), the sessions in the system by Little's law.
	Population float64
	// DemandTokens is Population·L̄.
	DemandTokens float64
	// Ratio is DemandTokens / C; NaN when C is unknown.
	Ratio float64
	// Fits is Ratio ≤ 1 (false when Ratio is NaN).
	Fits bool
}

// NewHealthySide evaluates λT(Z+R₀)L̄ ≲ C (§4, "The healthy side") for an
// arrival rate λ (sessions/s), T turns per session, mean think time Z and
// cache-warm response time R₀ (seconds), mean context L̄ and pool C (tokens;
// NaN or ≤ 0 when unknown).
func NewHealthySide(lambda, turns, thinkS, responseS, meanContext, kvPool float64) HealthySide {
	h := HealthySide{Population: lambda * turns * (thinkS + responseS)}
	h.DemandTokens = h.Population * meanContext
	h.Ratio = math.NaN()
	if kvPool > 0 {
		h.Ratio = h.DemandTokens / kvPool
	}
	h.Fits = h.Ratio <= 1
	return h
}

// LittlesLaw compares the sessions in the system with Little's law
// N = λ·T·(Z+R) over one window (§2, §4).
type LittlesLaw struct {
	Window
	// Lambda is the observed arrival rate in the window (arrivals / length).
	Lambda float64
	// Turns is T (workload_turns) and ThinkS is Z (think_mean_s), from the
	// manifest; NaN when null.
	Turns  float64
	ThinkS float64
	// ResponseS is R, the mean done_s − ready_s (else − sent_s) of the ok
	// turns completing in the window; NaN without such turns.
	ResponseS float64
	// Predicted is λ·T·(Z+R); Observed the time-averaged sessions in the
	// system. While a backlog grows the two need not agree (§2).
	Predicted float64
	Observed  float64
}

// LittlesLaw evaluates Little's law over w.
func (x *RunIndex) LittlesLaw(w Window) LittlesLaw {
	r := &x.Data.Run
	l := LittlesLaw{Window: w, Turns: math.NaN(), ThinkS: math.NaN(), ResponseS: math.NaN()}
	lo := sort.Search(len(x.sessions), func(k int) bool { return x.Data.Sessions[x.sessions[k]].ArriveS >= w.Start })
	hi := sort.Search(len(x.sessions), func(k int) bool { return x.Data.Sessions[x.sessions[k]].ArriveS >= w.End })
	l.Lambda = float64(hi-lo) / w.Len()
	if r.Turns != nil {
		l.Turns = float64(*r.Turns)
	}
	if r.ThinkMeanS != nil {
		l.ThinkS = *r.ThinkMeanS
	}
	l.ResponseS = x.meanResponse(w)
	l.Predicted = l.Lambda * l.Turns * (l.ThinkS + l.ResponseS)
	l.Observed = x.Population.Mean(w)
	return l
}

// meanResponse is the mean response time of ok turns completing in w, summed
// in (done_s, session, turn) order.
func (x *RunIndex) meanResponse(w Window) float64 {
	type rt struct {
		done    float64
		session string
		turn    int32
		r       float64
	}
	var rs []rt
	for i := range x.Data.Turns {
		t := &x.Data.Turns[i]
		if !turnOK(t) || !w.Contains(t.DoneS) {
			continue
		}
		start := t.ReadyS
		if start == nil {
			start = t.SentS
		}
		if start == nil {
			continue
		}
		rs = append(rs, rt{t.DoneS, t.Session, t.Turn, t.DoneS - *start})
	}
	if len(rs) == 0 {
		return math.NaN()
	}
	sort.Slice(rs, func(a, b int) bool {
		if rs[a].done != rs[b].done {
			return rs[a].done < rs[b].done
		}
		if rs[a].session != rs[b].session {
			return rs[a].session < rs[b].session
		}
		return rs[a].turn < rs[b].turn
	})
	var s float64
	for _, v := range rs {
		s += v.r
	}
	return s / float64(len(rs))
}
