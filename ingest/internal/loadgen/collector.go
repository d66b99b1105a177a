package loadgen

import (
	"cmp"
	"math"
	"slices"

	"github.com/outlast-dev/outlast/ingest/internal/turntimes"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// Collector checks the turns of a load generator's export (a (session,
// turn) appears once) and derives their sessions. Records come in any
// order (the tools write them as requests complete), so every session is
// kept until Finish: memory grows with the sessions and turns, some 60
// bytes a turn, not with the bytes of the export.
type Collector struct {
	sink     func(schema.Turn) error
	sessions map[string]*session
	order    []*session // in order of first appearance, for determinism
	// seen maps (session index, turn) to where the turn was first read,
	// to name it when the turn comes again.
	seen  map[uint64]firstPos
	end   float64        // the latest completion, the export's end
	turns []schema.Turn  // without a sink
	times turntimes.Slab // the turns' optional times

	// N counts the turns accepted, Cached those that carried a cached-token
	// figure.
	N, Cached int64
}

type firstPos struct{ line, col int32 }

// session is what the Collector keeps of one session.
type session struct {
	idx   uint32
	id    string
	first int32   // the smallest turn number seen
	start float64 // that turn's ready time, else its sent time, else its completion
	// last is the turn that completed last (the larger number on a tie):
	// its completion ends the session and its status is the session's.
	lastDone float64
	lastTurn int32
	status   string
	goesOn   bool  // the last turn's Continues
	planned  int64 // the turns the tool planned, 0 if unknown
	n        int64
	mode     uint8         // numbered or ordinal, 0 before the first turn
	ordinal  []schema.Turn // turns to be numbered at Finish
	// goesOnOrd holds the Continues of each of ordinal.
	goesOnOrd []bool
}

// Session modes: its turns carry numbers, or are numbered at Finish.
const (
	numbered = 1 + iota
	ordinal
)

// New returns a Collector that passes each accepted turn to sink, or, with
// a nil sink, keeps them (Turns).
func New(sink func(schema.Turn) error) *Collector {
	return &Collector{sink: sink, sessions: map[string]*session{}, seen: map[uint64]firstPos{}, end: math.Inf(-1)}
}

// Add applies t. A (session, turn) seen before, or a session that mixes
// numbered and unnumbered turns, gives a *textpos.ParseError at t, and the
// Collector is left as it was; a sink's error passes unchanged.
func (c *Collector) Add(t *Turn) error {
	row := t.Row
	s, ok := c.sessions[row.Session]
	if !ok {
		s = &session{idx: uint32(len(c.order)), id: row.Session, first: row.Turn, lastTurn: -1}
		s.start = startOf(&row)
		c.sessions[row.Session] = s
		c.order = append(c.order, s)
	}
	mode := uint8(numbered)
	if t.Ordinal {
		mode = ordinal
	}
	if s.mode != 0 && s.mode != mode {
		return t.Errorf("session %q has turns with and without a turn number", row.Session)
	}
	if t.Ordinal {
		c.times.Own(&row)
		row.Origin = schema.OriginBase
		s.mode = ordinal
		s.ordinal = append(s.ordinal, row)
		s.goesOnOrd = append(s.goesOnOrd, t.Continues)
		c.count(s, t)
		return nil
	}
	key := uint64(s.idx)<<32 | uint64(uint32(row.Turn))
	if f, dup := c.seen[key]; dup {
		return t.Errorf("session %q turn %d is repeated (first at %s)", row.Session, row.Turn,
			where(textpos.Pos{File: t.Pos.File, Line: int(f.line)}, int(f.col)))
	}
	c.seen[key] = firstPos{int32(t.Pos.Line), int32(t.Column)}
	s.mode = numbered
	s.n++
	if row.Turn < s.first || s.n == 1 {
		s.first, s.start = row.Turn, startOf(&row)
	}
	s.note(&row, t.Continues)
	c.count(s, t)
	row.Origin = schema.OriginBase
	c.times.Own(&row)
	if c.sink != nil {
		return c.sink(row)
	}
	c.turns = append(c.turns, row)
	return nil
}

func (c *Collector) count(s *session, t *Turn) {
	c.end = max(c.end, t.Row.DoneS)
	s.planned = max(s.planned, t.Planned)
	c.N++
	if t.CachedReported {
		c.Cached++
	}
}

// note makes row the session's last turn if it completed last; goesOn
// is the turn's Continues.
func (s *session) note(row *schema.Turn, goesOn bool) {
	if s.lastTurn < 0 || row.DoneS > s.lastDone || (row.DoneS == s.lastDone && row.Turn > s.lastTurn) {
		s.lastDone, s.lastTurn, s.status, s.goesOn = row.DoneS, row.Turn, row.Status, goesOn
	}
}

// CutMarginS is how close to the export's last completion (or after it) a
// session's last turn must have been aborted to count as cancelled by the
// tool's stop: GuideLLM lists the requests it cancelled when its benchmark
// ended as incomplete, stamped then (an AIPerf record was_cancelled then
// counts the same).
const CutMarginS = 5.0

// open reports whether session s was still in the system when the tool
// stopped: its last turn was cancelled by the stop, or the tool would have
// sent it another, or it did fewer turns than the tool planned.
func (c *Collector) open(s *session) bool {
	return s.goesOn || s.n < s.planned || (s.status == schema.TurnAborted && s.lastDone >= c.end-CutMarginS)
}

// startOf is when a session whose first turn is t began: the turn's ready
// time, else its sent time, else its completion.
func startOf(t *schema.Turn) float64 {
	switch {
	case t.ReadyS != nil:
		return *t.ReadyS
	case t.SentS != nil:
		return *t.SentS
	}
	return t.DoneS
}

// Finish numbers the turns of the sessions that gave none (by the time
// they were sent, else completed), passes them on, and passes each
// session's row to session, in the order the sessions first appeared.
func (c *Collector) Finish(sessionRow func(schema.Session) error) error {
	for _, s := range c.order {
		if len(s.ordinal) > 0 {
			if err := c.number(s); err != nil {
				return err
			}
		}
		end := &s.lastDone
		status := schema.SessionDone
		switch {
		case c.open(s):
			end, status = nil, schema.SessionOpen
		case s.status != schema.TurnOK:
			status = schema.SessionAborted
		}
		row := schema.Session{
			Session:   s.id,
			Origin:    schema.OriginBase,
			ArriveS:   s.start,
			EndS:      end,
			Status:    status,
			TurnsDone: s.n,
		}
		if s.planned > 0 {
			row.TurnsPlanned = &s.planned
		}
		if err := sessionRow(row); err != nil {
			return err
		}
	}
	return nil
}

// number gives the session's unnumbered turns their numbers and passes
// them on.
func (c *Collector) number(s *session) error {
	ts := s.ordinal
	idx := make([]int, len(ts))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(sentOrDone(&ts[a]), sentOrDone(&ts[b])) })
	for i, k := range idx {
		row := ts[k]
		row.Turn = int32(i)
		s.n++
		s.note(&row, s.goesOnOrd[k])
		if i == 0 {
			s.first, s.start = 0, startOf(&row)
		}
		if c.sink != nil {
			if err := c.sink(row); err != nil {
				return err
			}
		} else {
			c.turns = append(c.turns, row)
		}
	}
	s.ordinal, s.goesOnOrd = nil, nil
	return nil
}

func sentOrDone(t *schema.Turn) float64 {
	if t.SentS != nil {
		return *t.SentS
	}
	return t.DoneS
}

// Turns returns the turns kept by a Collector without a sink, in the order
// accepted (numbered ones) then numbered at Finish.
func (c *Collector) Turns() []schema.Turn { return c.turns }

// Sessions returns the number of sessions seen.
func (c *Collector) Sessions() int { return len(c.order) }
