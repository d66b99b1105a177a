package gateway

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/outlast-dev/outlast/ingest/lineio"
	"github.com/outlast-dev/outlast/schema"
)

// UnknownKind counts the records of one ev kind the format does not define.
type UnknownKind struct {
	Ev    string
	Count int
	First lineio.Pos // the first record of the kind
}

// Collector applies the rules that span lines (a session starts once and
// before its other records, a (session, turn) appears once) and builds the
// sessions, turns and events tables.
type Collector struct {
	sessions map[string]*sessionState
	turns    []lined[schema.Turn]
	// sink, when set, takes each accepted turn instead of turns: the turns
	// table of a large log streams to disk.
	sink   func(schema.Turn) error
	nTurns int
	// times holds the optional times of the turns kept or passed on: a
	// record's own are reused once the reader moves on.
	times   [][3]float64
	events  []lined[schema.Event]
	unknown map[string]*UnknownKind
}

type sessionState struct {
	row       schema.Session
	startLine int
	endLine   int    // 0 until the session_end
	turns     int64  // turn records seen
	turnsDone *int64 // session_end.turns_done
	// seen has bit t set once turn t was accepted: exact duplicate
	// detection at one bit per turn, where a map of (session, turn) pairs
	// costs some 60 bytes each. Turn numbers beyond bitsetTurns (hostile or
	// odd input) go to the small map big instead, so one line cannot
	// allocate a huge bitset.
	seen []uint64
	big  map[int32]bool
}

// bitsetTurns bounds the turn numbers tracked in a session's bitset (8 KB).
const bitsetTurns = 1 << 16

// markTurn records turn t, reporting false when it was already recorded.
func (st *sessionState) markTurn(t int32) bool {
	if t < bitsetTurns {
		w, bit := int(t/64), uint64(1)<<(t%64)
		if w >= len(st.seen) {
			st.seen = append(st.seen, make([]uint64, w+1-len(st.seen))...)
		}
		if st.seen[w]&bit != 0 {
			return false
		}
		st.seen[w] |= bit
		return true
	}
	if st.big[t] {
		return false
	}
	if st.big == nil {
		st.big = map[int32]bool{}
	}
	st.big[t] = true
	return true
}

// RepeatedTurnError is the reason of a repeated (session, turn). First is
// the line of the first record, 0 when a streaming Collector does not know
// it (the caller looks it up: FirstTurnLine).
type RepeatedTurnError struct {
	Session string
	Turn    int32
	First   int
}

func (e *RepeatedTurnError) Error() string {
	if e.First == 0 {
		return fmt.Sprintf("session %q turn %d is repeated (first at an earlier line)", e.Session, e.Turn)
	}
	return fmt.Sprintf("session %q turn %d is repeated (first at line %d)", e.Session, e.Turn, e.First)
}

// lined is a row with the input line it came from, to break time ties in
// input order.
type lined[T any] struct {
	row  T
	line int
}

// NewCollector returns an empty collector.
func NewCollector() *Collector {
	return &Collector{
		sessions: map[string]*sessionState{},
		unknown:  map[string]*UnknownKind{},
	}
}

// NewStreamingCollector returns an empty collector that passes each
// accepted turn to sink, in input order, instead of keeping it: Tables then
// returns no turns. A repeated (session, turn) is then reported with a
// RepeatedTurnError whose First is 0.
func NewStreamingCollector(sink func(schema.Turn) error) *Collector {
	c := NewCollector()
	c.sink = sink
	return c
}

// Turns returns the number of turns accepted.
func (c *Collector) Turns() int { return c.nTurns }

// Add applies rec. A record that breaks a cross-line rule gives a
// *lineio.ParseError at the record's position and leaves the collector as
// it was, so a lenient caller may go on: a repeated session_start or
// session_end, a repeated (session, turn), or a turn, park, resume or
// session_end for a session with no session_start before it. Records of
// unknown kinds are counted (Unknown), never an error.
func (c *Collector) Add(rec Record) error {
	fail := func(format string, args ...any) error {
		return lineio.Errorf(rec.Pos, rec.Raw, format, args...)
	}
	switch {
	case rec.Start != nil:
		s := rec.Start
		if prev, ok := c.sessions[s.Session]; ok {
			return fail("session %q starts again (first session_start at line %d)", s.Session, prev.startLine)
		}
		c.sessions[s.Session] = &sessionState{
			row: schema.Session{
				Session:       s.Session,
				Origin:        s.Origin,
				ArriveS:       rec.T,
				TurnsPlanned:  s.TurnsPlanned,
				ContextTokens: s.ContextTokens,
			},
			startLine: rec.Pos.Line,
		}
	case rec.Turn != nil:
		t := rec.Turn
		st, ok := c.sessions[t.Session]
		if !ok {
			return fail("turn for session %q, which has no session_start before this line", t.Session)
		}
		if !st.markTurn(t.Turn) {
			e := &RepeatedTurnError{Session: t.Session, Turn: t.Turn}
			if c.sink == nil {
				e.First = c.firstLine(t.Session, t.Turn)
			}
			return &lineio.ParseError{Pos: rec.Pos, Raw: append([]byte(nil), rec.Raw...), Err: e}
		}
		row := *t
		row.Origin = st.row.Origin
		c.ownTimes(&row)
		if c.sink != nil {
			if err := c.sink(row); err != nil {
				return err
			}
		} else {
			c.turns = append(c.turns, lined[schema.Turn]{row, rec.Pos.Line})
		}
		st.turns++
		c.nTurns++
	case rec.End != nil:
		e := rec.End
		st, ok := c.sessions[e.Session]
		if !ok {
			return fail("session_end for session %q, which has no session_start before this line", e.Session)
		}
		if st.endLine != 0 {
			return fail("session %q ends again (first session_end at line %d)", e.Session, st.endLine)
		}
		st.endLine = rec.Pos.Line
		end := rec.T
		st.row.EndS = &end
		st.row.Status = e.Status
		st.turnsDone = e.TurnsDone
	case rec.Event != nil:
		ev := rec.Event
		if ev.Kind == schema.EventPark || ev.Kind == schema.EventResume {
			if _, ok := c.sessions[*ev.Session]; !ok {
				return fail("%s for session %q, which has no session_start before this line", ev.Kind, *ev.Session)
			}
		}
		c.events = append(c.events, lined[schema.Event]{*ev, rec.Pos.Line})
	default:
		if known(rec.Ev) {
			return fail("internal error: %s record without its contents", rec.Ev)
		}
		if u, ok := c.unknown[rec.Ev]; ok {
			u.Count++
		} else {
			c.unknown[rec.Ev] = &UnknownKind{Ev: rec.Ev, Count: 1, First: rec.Pos}
		}
	}
	return nil
}

// ownTimes moves t's optional times into the collector's slab, one
// allocation per 1024 turns.
func (c *Collector) ownTimes(t *schema.Turn) {
	if t.ReadyS == nil && t.SentS == nil && t.FirstTokenS == nil {
		return
	}
	if len(c.times) == cap(c.times) {
		c.times = make([][3]float64, 0, 1024)
	}
	c.times = c.times[:len(c.times)+1]
	box := &c.times[len(c.times)-1]
	for i, p := range []**float64{&t.ReadyS, &t.SentS, &t.FirstTokenS} {
		if *p != nil {
			box[i] = **p
			*p = &box[i]
		}
	}
}

// firstLine returns the line of the kept turn (session, turn); duplicates
// are errors, so this search runs only on one.
func (c *Collector) firstLine(session string, turn int32) int {
	for _, t := range c.turns {
		if t.row.Turn == turn && t.row.Session == session {
			return t.line
		}
	}
	return 0
}

func known(ev string) bool {
	switch ev {
	case EvSessionStart, EvTurn, EvPark, EvResume, EvSessionEnd, EvControl, EvTrigger, EvRate:
		return true
	}
	return false
}

// Tables returns the run's tables, sorted as documented on schema.RunData:
// sessions by (arrive_s, session), turns by (done_s, session, turn), events
// by (t_s, input line). A session without a session_end has Status "open"
// and a nil EndS, whatever runEndS (the run's end in run seconds) is: the
// schema keeps "never ended" distinct from "ended at the run's end". Its
// TurnsDone, like that of a session_end without turns_done, counts the turn
// records seen. The Run fields are left empty for the caller.
func (c *Collector) Tables(runEndS float64) (sessions []schema.Session, turns []schema.Turn, events []schema.Event) {
	sessions = make([]schema.Session, 0, len(c.sessions))
	for _, st := range c.sessions {
		row := st.row
		if st.endLine == 0 {
			row.Status = "open"
			row.EndS = nil
		}
		row.TurnsDone = st.turns
		if st.turnsDone != nil {
			row.TurnsDone = *st.turnsDone
		}
		sessions = append(sessions, row)
	}
	slices.SortFunc(sessions, func(a, b schema.Session) int {
		if c := cmp.Compare(a.ArriveS, b.ArriveS); c != 0 {
			return c
		}
		return cmp.Compare(a.Session, b.Session)
	})

	ts := slices.Clone(c.turns)
	slices.SortStableFunc(ts, func(a, b lined[schema.Turn]) int {
		if c := cmp.Compare(a.row.DoneS, b.row.DoneS); c != 0 {
			return c
		}
		if c := cmp.Compare(a.row.Session, b.row.Session); c != 0 {
			return c
		}
		return cmp.Compare(a.row.Turn, b.row.Turn)
	})
	turns = make([]schema.Turn, len(ts))
	for i, t := range ts {
		turns[i] = t.row
	}

	es := slices.Clone(c.events)
	slices.SortStableFunc(es, func(a, b lined[schema.Event]) int {
		return compareRecords(a.row.TS, b.row.TS, a.line, b.line)
	})
	events = make([]schema.Event, len(es))
	for i, e := range es {
		events[i] = e.row
	}
	return sessions, turns, events
}

// Unknown returns the unknown ev kinds seen, sorted by kind.
func (c *Collector) Unknown() []UnknownKind {
	out := make([]UnknownKind, 0, len(c.unknown))
	for _, u := range c.unknown {
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b UnknownKind) int { return cmp.Compare(a.Ev, b.Ev) })
	return out
}

// String formats an unknown kind for a report line.
func (u UnknownKind) String() string {
	return fmt.Sprintf("%s: unknown ev %q: %d record(s) ignored (first here)", u.First, u.Ev, u.Count)
}

// compareRecords orders records as the tables are sorted: by time, then by
// input line.
func compareRecords(aT, bT float64, aLine, bLine int) int {
	if c := cmp.Compare(aT, bT); c != 0 {
		return c
	}
	return cmp.Compare(aLine, bLine)
}
