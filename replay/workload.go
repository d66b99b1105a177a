package replay

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
	"github.com/outlast-dev/outlast/stats"
)

// Minimum data to fit: fewer completed turns, or fewer sessions with one,
// is a clear error rather than a replay of noise.
const (
	MinTurns    = 10
	MinSessions = 2
)

// Gap sources: where a turn's think/tool time came from.
const (
	GapFromReady  = "ready"  // ready_s − the previous turn's done_s
	GapFromSent   = "sent"   // sent_s − the previous turn's done_s (no ready_s)
	GapFromFilled = "filled" // neither: the median of the run's known gaps
)

// Workload is the observed run's sessions as the simulator replays them,
// and how each part was obtained.
type Workload struct {
	// Sessions are the observed sessions in arrival order, the ones still
	// open at the end extended (see Extended).
	Sessions []sim.SessionPlan
	// Turns is the number of completed turns replayed as observed, and
	// Gaps counts their think times by source (GapFrom*).
	Turns int
	Gaps  map[string]int
	// Extended counts the open sessions given turns beyond the observed
	// ones, ExtendedTurns those turns, and ExtendedFrom says how their
	// number was chosen: "turns_planned" or "completed sessions".
	Extended, ExtendedTurns int
	ExtendedFrom            string
	// SystemTokens is the shared prefix and SystemFrom its source:
	// "manifest", "first turns" (the median cached tokens of sessions'
	// first turns that hit) or "none".
	SystemTokens int
	SystemFrom   string
	// MaxContext is the largest prompt plus output of any turn: the
	// context limit the replay enforces.
	MaxContext int
	// ThinkMedianS and ThinkMeanS summarize the observed gaps.
	ThinkMedianS, ThinkMeanS float64
	// Origins counts the sessions per origin.
	Origins  map[string]int
	Warnings []string
}

// turnsBySession groups a run's turns by session, each in turn order.
func turnsBySession(rd *schema.RunData) map[string][]*schema.Turn {
	by := make(map[string][]*schema.Turn, len(rd.Sessions))
	for i := range rd.Turns {
		t := &rd.Turns[i]
		by[t.Session] = append(by[t.Session], t)
	}
	for _, ts := range by {
		slices.SortFunc(ts, func(a, b *schema.Turn) int { return cmp.Or(cmp.Compare(a.Turn, b.Turn), cmp.Compare(a.DoneS, b.DoneS)) })
	}
	return by
}

func turnOK(t *schema.Turn) bool { return t.Status == schema.TurnOK || t.Status == "" }

// extractWorkload turns the sessions arriving before end into session
// plans. Each completed turn keeps its prompt, output and think time
// (ready − previous done, else sent − previous done, else the median of
// the known gaps); failed turns are left out. Sessions still open at the
// end (no end_s: ingest also leaves open a load generator's session that
// its stop left in the system) are extended to turns_planned, or, without
// it, to a number of turns
// drawn from the completed sessions that got further, growing by the
// session's median context growth with gaps drawn from the run's; their
// turns are truncated at MaxContext.
func extractWorkload(rd *schema.RunData, end float64) (*Workload, error) {
	w := &Workload{Gaps: map[string]int{}, Origins: map[string]int{}}
	by := turnsBySession(rd)
	sessions := append(slices.Clone(rd.Sessions), orphans(rd, by)...)
	slices.SortStableFunc(sessions, func(a, b schema.Session) int {
		return cmp.Or(cmp.Compare(a.ArriveS, b.ArriveS), cmp.Compare(a.Session, b.Session))
	})
	var gaps, growths, outputs, firstCached []float64
	served := 0
	for _, s := range sessions {
		n := 0
		for _, t := range by[s.Session] {
			if !turnOK(t) {
				continue
			}
			n++
			w.MaxContext = max(w.MaxContext, int(t.PromptTokens+t.OutputTokens))
			outputs = append(outputs, float64(max(t.OutputTokens, 1)))
		}
		w.Turns += n
		if n > 0 {
			served++
		}
	}
	if w.Turns < MinTurns || served < MinSessions {
		return nil, fmt.Errorf("%w: run %s has %d completed turns in %d sessions; replay needs at least %d turns in %d sessions to fit the workload and the engine",
			ErrTooFewTurns, rd.Run.Run, w.Turns, served, MinTurns, MinSessions)
	}
	w.Turns = 0
	missing := 0
	for _, s := range sessions {
		if s.ArriveS >= end || s.ArriveS < 0 {
			continue
		}
		p := sim.SessionPlan{Name: s.Session, Origin: s.Origin, ArriveS: s.ArriveS}
		if p.Origin == "" {
			p.Origin = schema.OriginBase
		}
		prevDone := math.NaN()
		for _, t := range by[s.Session] {
			if turnOK(t) {
				tp := sim.TurnPlan{PromptTokens: int(max(t.PromptTokens, 1)), OutputTokens: int(max(t.OutputTokens, 1))}
				if len(p.Turns) == 0 {
					if t.Turn == 0 && t.CachedTokens > 0 {
						firstCached = append(firstCached, float64(t.CachedTokens))
					}
				} else {
					growths = append(growths, float64(tp.PromptTokens-p.Turns[len(p.Turns)-1].PromptTokens))
				}
				if !math.IsNaN(prevDone) {
					switch {
					case t.ReadyS != nil:
						tp.GapS, w.Gaps[GapFromReady] = math.Max(0, *t.ReadyS-prevDone), w.Gaps[GapFromReady]+1
						gaps = append(gaps, tp.GapS)
					case t.SentS != nil:
						tp.GapS, w.Gaps[GapFromSent] = math.Max(0, *t.SentS-prevDone), w.Gaps[GapFromSent]+1
						gaps = append(gaps, tp.GapS)
					default:
						tp.GapS = math.NaN()
						missing++
					}
				}
				p.Turns = append(p.Turns, tp)
				w.Turns++
			}
			prevDone = t.DoneS
		}
		if len(p.Turns) > 0 {
			p.ContextTokens = p.Turns[0].PromptTokens
		} else if s.ContextTokens != nil {
			p.ContextTokens = int(*s.ContextTokens)
		}
		w.Sessions = append(w.Sessions, p)
		w.Origins[p.Origin]++
	}
	slices.Sort(gaps)
	fill := 0.0
	if len(gaps) > 0 {
		fill = stats.Quantile(gaps, 0.5)
		sum := 0.0
		for _, g := range gaps {
			sum += g
		}
		w.ThinkMedianS, w.ThinkMeanS = fill, sum/float64(len(gaps))
	} else {
		w.ThinkMedianS, w.ThinkMeanS = math.NaN(), math.NaN()
		if rd.Run.ThinkMeanS != nil {
			fill = *rd.Run.ThinkMeanS
		}
	}
	if missing > 0 {
		w.Gaps[GapFromFilled] = missing
		w.Warnings = append(w.Warnings, fmt.Sprintf("%d turns have neither ready_s nor sent_s: their think time is the median of the others, %.2f s", missing, fill))
		for i := range w.Sessions {
			for k := range w.Sessions[i].Turns {
				if math.IsNaN(w.Sessions[i].Turns[k].GapS) {
					w.Sessions[i].Turns[k].GapS = fill
				}
			}
		}
	}
	w.systemPrefix(rd, firstCached)
	w.extend(rd, sessions, end, gaps, growths, outputs)
	return w, nil
}

// orphans returns a session for each session id that has turns but no
// session row (a gateway format without session records): arriving when
// its first turn was ready (else sent, else done), ended with its last
// turn.
func orphans(rd *schema.RunData, by map[string][]*schema.Turn) []schema.Session {
	known := make(map[string]bool, len(rd.Sessions))
	for i := range rd.Sessions {
		known[rd.Sessions[i].Session] = true
	}
	var out []schema.Session
	for id, ts := range by {
		if known[id] {
			continue
		}
		first, last := ts[0], ts[len(ts)-1]
		arrive := first.DoneS
		if first.ReadyS != nil {
			arrive = *first.ReadyS
		} else if first.SentS != nil {
			arrive = *first.SentS
		}
		end := last.DoneS
		out = append(out, schema.Session{Session: id, Origin: first.Origin, ArriveS: arrive, EndS: &end,
			Status: schema.SessionDone, TurnsDone: int64(len(ts))})
	}
	return out
}

// systemPrefix sets the shared prefix: the manifest's system_tokens, else
// the median cached tokens of the first turns that found any (what they
// share is the system prompt, rounded down to the engine's block).
func (w *Workload) systemPrefix(rd *schema.RunData, firstCached []float64) {
	switch {
	case rd.Run.SystemTokens != nil && *rd.Run.SystemTokens >= 0:
		w.SystemTokens, w.SystemFrom = int(*rd.Run.SystemTokens), "manifest"
	case len(firstCached) > 0:
		w.SystemTokens, w.SystemFrom = int(stats.Median(firstCached)), "first turns"
	default:
		w.SystemFrom = "none"
	}
	if w.SystemTokens >= w.MaxContext {
		w.SystemTokens = 0
		w.Warnings = append(w.Warnings, "the shared prefix is no shorter than the longest turn: replayed without one")
	}
}

// extendSeed seeds the draws that extend open sessions: the trace is one
// fixed workload, the same for every seed and variant.
const extendSeed = 0x6f75746c617374 // "outlast"

// extend gives the sessions still open at the run's end the turns they had
// left (see extractWorkload).
func (w *Workload) extend(rd *schema.RunData, sessions []schema.Session, end float64, gaps, growths, outputs []float64) {
	ended := false
	var totals []int // turn counts of sessions that ended
	open := map[string]*schema.Session{}
	for i := range sessions {
		s := &sessions[i]
		switch {
		case s.EndS == nil:
			if s.ArriveS < end {
				open[s.Session] = s
			}
		default:
			ended = true
			if s.Status == schema.SessionDone || s.Status == "" {
				totals = append(totals, int(s.TurnsDone))
			}
		}
	}
	slices.Sort(totals)
	growth := 0
	if pos := positives(growths); len(pos) > 0 {
		growth = int(stats.Median(pos))
	}
	output := int(stats.Median(outputs))
	planned, drawn := 0, 0
	for i := range w.Sessions {
		p := &w.Sessions[i]
		s, ok := open[p.Name]
		if !ok {
			continue
		}
		rng := rand.New(rand.NewPCG(extendSeed, uint64(i)))
		target := 0
		switch {
		case s.TurnsPlanned != nil:
			target = int(*s.TurnsPlanned)
			planned++
		case ended:
			// Turn counts of ended sessions that got further than this one.
			k, _ := slices.BinarySearch(totals, len(p.Turns)+1)
			if k < len(totals) {
				target = totals[k+rng.IntN(len(totals)-k)]
				drawn++
			}
		}
		if target <= len(p.Turns) {
			continue
		}
		g := sessionGrowth(p, growth)
		o := sessionOutput(p, output)
		last := p.ContextTokens - g
		if n := len(p.Turns); n > 0 {
			last = p.Turns[n-1].PromptTokens
		} else if last+g <= 0 {
			last = int(stats.Median(firstPrompts(w.Sessions))) - g
		}
		added := 0
		for k := len(p.Turns); k < target; k++ {
			prompt := last + g
			if prompt < 1 || prompt+o > w.MaxContext {
				break
			}
			tp := sim.TurnPlan{PromptTokens: prompt, OutputTokens: o}
			if k > 0 && len(gaps) > 0 {
				tp.GapS = gaps[rng.IntN(len(gaps))]
			}
			p.Turns = append(p.Turns, tp)
			last = prompt
			added++
		}
		if p.ContextTokens == 0 && len(p.Turns) > 0 {
			p.ContextTokens = p.Turns[0].PromptTokens
		}
		if added > 0 {
			w.Extended++
			w.ExtendedTurns += added
		}
	}
	switch {
	case planned > 0 && drawn > 0:
		w.ExtendedFrom = "turns_planned, else completed sessions"
	case planned > 0:
		w.ExtendedFrom = "turns_planned"
	case drawn > 0:
		w.ExtendedFrom = "completed sessions"
	}
	if len(open) > 0 && !ended && planned == 0 {
		w.Warnings = append(w.Warnings, fmt.Sprintf("the gateway log records no session ends and no turns_planned: the %d sessions without an end replay only their observed turns", len(open)))
	}
}

// sessionGrowth is the median growth of a session's prompt per turn, else
// the run's.
func sessionGrowth(p *sim.SessionPlan, run int) int {
	var d []float64
	for k := 1; k < len(p.Turns); k++ {
		if g := p.Turns[k].PromptTokens - p.Turns[k-1].PromptTokens; g > 0 {
			d = append(d, float64(g))
		}
	}
	if len(d) == 0 {
		return run
	}
	return int(stats.Median(d))
}

// sessionOutput is the median output of a session's turns, else the run's.
func sessionOutput(p *sim.SessionPlan, run int) int {
	if len(p.Turns) == 0 {
		return max(run, 1)
	}
	o := make([]float64, len(p.Turns))
	for k, t := range p.Turns {
		o[k] = float64(t.OutputTokens)
	}
	return max(int(stats.Median(o)), 1)
}

func firstPrompts(ps []sim.SessionPlan) []float64 {
	var out []float64
	for _, p := range ps {
		if len(p.Turns) > 0 {
			out = append(out, float64(p.Turns[0].PromptTokens))
		}
	}
	return out
}

func positives(v []float64) []float64 {
	var out []float64
	for _, x := range v {
		if x > 0 {
			out = append(out, x)
		}
	}
	return out
}
