package stats

import (
	"cmp"
	"math"
	"slices"

	"github.com/outlast-dev/outlast/schema"
)

// RunIndex is one run's tables indexed for the measures of this package:
// turns by completion time, the population and resident-demand step
// functions, in-flight turns and engine samples in time order. Build it once
// per run with NewRunIndex; every later query is a binary search. It reads,
// and never modifies, the RunData it was built from, and its results do not
// depend on the order of the input rows.
type RunIndex struct {
	// Data is the run the index was built from.
	Data *schema.RunData
	// End is RunEnd(Data).
	End float64
	// Turns indexes the turns by completion time.
	Turns *TurnSeries
	// Population is the number of sessions in the system, N(t) (§3): a
	// session is in the system from arrive_s to end_s, or to End when end_s
	// is null.
	Population *StepSeries
	// Demand is the resident demand D(t) in tokens (§4, Figure 4): the sum,
	// over sessions in the system, of their latest turn's prompt_tokens +
	// output_tokens. Before a session's first turn completes it counts its
	// context_tokens (else its first turn's prompt_tokens) plus the
	// workload's output_tokens (else its first turn's output_tokens).
	Demand *StepSeries
	// DemandUnknownSessions counts sessions with neither context_tokens nor
	// any turn: they add nothing to Demand.
	DemandUnknownSessions int
	// InFlight is the number of turns sent to the engine and not yet done,
	// from the gateway's sent_s and done_s (turns without sent_s are left
	// out). It stands in for the engine's running count (§4 calibration).
	InFlight *StepSeries
	// InFlightTurns is the number of turns that entered InFlight.
	InFlightTurns int

	sessions     []int            // indices into Data.Sessions, by (arrive_s, session)
	turnsBySess  map[string][]int // ok and failed turns of a session, by (done_s, turn)
	engine       []int            // indices into Data.Engine, by (t_s, source, line)
	engineTS     []float64        // t_s of engine, same order
	aggregateEng map[string]bool  // sources with aggregated (engine_index -1) samples
}

// NewRunIndex indexes one run.
func NewRunIndex(rd *schema.RunData) *RunIndex {
	x := &RunIndex{Data: rd, End: RunEnd(rd)}
	x.Turns = NewTurnSeries(rd.Turns)
	x.Turns.cacheUnknown = !CacheKnown(&rd.Run)

	x.sessions = make([]int, len(rd.Sessions))
	for i := range x.sessions {
		x.sessions[i] = i
	}
	slices.SortFunc(x.sessions, func(a, b int) int {
		sa, sb := &rd.Sessions[a], &rd.Sessions[b]
		return cmp.Or(cmp.Compare(sa.ArriveS, sb.ArriveS), cmp.Compare(sa.Session, sb.Session))
	})

	// Group turns by session: sort indices by (session, done_s, turn) once
	// and slice.
	byS := make([]int, len(rd.Turns))
	sent := make([]float64, 0, len(rd.Turns))
	done := make([]float64, 0, len(rd.Turns))
	for i := range rd.Turns {
		byS[i] = i
		t := &rd.Turns[i]
		if t.SentS != nil && t.DoneS > *t.SentS {
			sent, done = append(sent, *t.SentS), append(done, t.DoneS)
			x.InFlightTurns++
		}
	}
	slices.SortFunc(byS, func(a, b int) int {
		ta, tb := &rd.Turns[a], &rd.Turns[b]
		return cmp.Or(cmp.Compare(ta.Session, tb.Session), cmp.Compare(ta.DoneS, tb.DoneS), cmp.Compare(ta.Turn, tb.Turn))
	})
	x.turnsBySess = make(map[string][]int, len(rd.Sessions))
	for lo := 0; lo < len(byS); {
		hi := lo + 1
		for hi < len(byS) && rd.Turns[byS[hi]].Session == rd.Turns[byS[lo]].Session {
			hi++
		}
		x.turnsBySess[rd.Turns[byS[lo]].Session] = byS[lo:hi:hi]
		lo = hi
	}
	x.InFlight = NewCountSeries(sent, done)

	arrive := make([]float64, 0, len(rd.Sessions))
	leave := make([]float64, 0, len(rd.Sessions))
	dem := make([]StepEvent, 0, 2*len(rd.Sessions)+len(rd.Turns))
	for _, si := range x.sessions {
		s := &rd.Sessions[si]
		a, e := s.ArriveS, x.sessionEnd(s)
		if !(e > a) {
			continue
		}
		arrive, leave = append(arrive, a), append(leave, e)
		cur, known := x.initialDemand(s)
		if !known {
			x.DemandUnknownSessions++
		}
		dem = append(dem, StepEvent{a, cur})
		for _, ti := range x.turnsBySess[s.Session] {
			t := &rd.Turns[ti]
			if !turnOK(t) || t.DoneS >= e {
				continue
			}
			v := t.PromptTokens + t.OutputTokens
			dem = append(dem, StepEvent{math.Max(t.DoneS, a), v - cur})
			cur = v
		}
		dem = append(dem, StepEvent{e, -cur})
	}
	x.Population = NewCountSeries(arrive, leave)
	x.Demand = NewStepSeries(dem)

	x.engine = make([]int, len(rd.Engine))
	x.aggregateEng = map[string]bool{}
	for i := range x.engine {
		x.engine[i] = i
		if rd.Engine[i].EngineIndex == -1 {
			x.aggregateEng[rd.Engine[i].Source] = true
		}
	}
	engineOrder := func(a, b int) int {
		ea, eb := &rd.Engine[a], &rd.Engine[b]
		return cmp.Or(cmp.Compare(ea.TS, eb.TS), cmp.Compare(ea.Source, eb.Source),
			cmp.Compare(ea.Line, eb.Line), cmp.Compare(ea.EngineIndex, eb.EngineIndex))
	}
	if !slices.IsSortedFunc(x.engine, engineOrder) {
		slices.SortStableFunc(x.engine, engineOrder)
	}
	x.engineTS = make([]float64, len(x.engine))
	for k, i := range x.engine {
		x.engineTS[k] = rd.Engine[i].TS
	}
	return x
}

// sessionEnd is when a session leaves the system: end_s, or the run's end
// when end_s is null (run-format.md).
func (x *RunIndex) sessionEnd(s *schema.Session) float64 {
	if s.EndS != nil {
		return *s.EndS
	}
	return math.Max(x.End, s.ArriveS)
}

// firstTurn returns a session's turn with the smallest turn number, or nil.
func (x *RunIndex) firstTurn(session string) *schema.Turn {
	var first *schema.Turn
	for _, ti := range x.turnsBySess[session] {
		t := &x.Data.Turns[ti]
		if first == nil || t.Turn < first.Turn {
			first = t
		}
	}
	return first
}

// initialDemand is a session's demand before its first turn completes:
// context (context_tokens, else the first turn's prompt) plus output budget
// (the workload's output_tokens, else the first turn's output). known is
// false when no context is known.
func (x *RunIndex) initialDemand(s *schema.Session) (int64, bool) {
	first := x.firstTurn(s.Session)
	var ctx, out int64
	known := true
	switch {
	case s.ContextTokens != nil:
		ctx = *s.ContextTokens
	case first != nil:
		ctx = first.PromptTokens
	default:
		known = false
	}
	switch {
	case x.Data.Run.OutputTokens != nil:
		out = *x.Data.Run.OutputTokens
	case first != nil:
		out = first.OutputTokens
	}
	if !known {
		return 0, false
	}
	return ctx + out, true
}

// KVPool returns C, the KV pool size in tokens, and whether it is known
// (Run.KVPoolTokens non-null and positive). Every measure relative to C is
// NaN when it is not.
func (x *RunIndex) KVPool() (float64, bool) {
	c := x.Data.Run.KVPoolTokens
	if c == nil || *c <= 0 {
		return math.NaN(), false
	}
	return float64(*c), true
}

// SessionsInSystem is the time-averaged number of sessions in the system
// over w (§3, Table 2's "mean number of sessions in the system").
func (x *RunIndex) SessionsInSystem(w Window) float64 { return x.Population.Mean(w) }

// DemandRatio is the time-averaged resident demand over w divided by C
// (Figure 4); NaN when C is unknown.
func (x *RunIndex) DemandRatio(w Window) float64 {
	c, ok := x.KVPool()
	if !ok {
		return math.NaN()
	}
	return x.Demand.Mean(w) / c
}

// CacheReported says whether the gateway saw the engine's cached-token
// counts: runs.cache_reported where ingest recorded it. In a dataset
// written before that column it is inferred from the turns: reported when
// some ok turn carried cached tokens; known is false when the run has no
// ok turn with prompt tokens to tell from. A run with prefix caching on in
// which not one turn had a cached token did not receive the counts, since
// the shared system prompt alone gives hits.
func (x *RunIndex) CacheReported() (reported, known bool) {
	if c := x.Data.Run.CacheReported; c != nil {
		return *c, true
	}
	s := x.Turns
	n := len(s.done)
	if n == 0 || s.cumPrompt[n] == 0 {
		return false, false
	}
	return s.cumCached[n] > 0, true
}

// CutShortS is how long before its planned end (Run.DurationS) a run's
// gateway records may stop before the run counts as cut short: one
// analysis window.
const CutShortS = AnalysisWindowS

// GatewayEndS is the time of the run's last gateway record: the latest
// turn done_s, session arrive_s or end_s, or event t_s; NaN without any.
func (x *RunIndex) GatewayEndS() float64 {
	d := x.Data
	end := math.Inf(-1)
	for i := range d.Turns {
		end = math.Max(end, d.Turns[i].DoneS)
	}
	for i := range d.Sessions {
		end = math.Max(end, d.Sessions[i].ArriveS)
		if e := d.Sessions[i].EndS; e != nil {
			end = math.Max(end, *e)
		}
	}
	for i := range d.Events {
		end = math.Max(end, d.Events[i].TS)
	}
	if math.IsInf(end, -1) {
		return math.NaN()
	}
	return end
}

// CutShort reports whether the run's gateway records stop more than
// CutShortS before its planned end; a run without a planned duration is
// never cut short (its end is its last record).
func (x *RunIndex) CutShort() bool {
	planned := x.Data.Run.DurationS
	if !(planned > 0) {
		return false
	}
	end := x.GatewayEndS()
	return math.IsNaN(end) || end < planned-CutShortS
}
