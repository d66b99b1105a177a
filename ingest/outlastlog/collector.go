package outlastlog

import (
	"hash/maphash"
	"math"

	"github.com/outlast-dev/outlast/ingest/internal/turntimes"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// Collector applies the rules that span lines (a session starts once and
// before its other records, a (session, turn) appears once) and builds the
// sessions, turns and events tables.
//
// A session's full state is kept only while it is open. At its
// session_end its row is final (but see fixes) and goes out; what the rules
// still need (its origin and the turns seen, for a turn that comes after
// the end) is kept in a 24-byte record keyed by a 64-bit hash of the id,
// not the id itself, so that memory grows with the sessions open at once
// and only by some 26 bytes with each session ended (endedSet). A hash
// match is assumed to be the same session and the assumption recorded
// (Unverified): the caller confirms it by reading the session_start lines
// again, and a collision, never a silent one, makes it read the run again
// with exact ids (ErrKeyCollision). A streaming collector does not keep
// the lines of ended sessions either: the errors that name them leave them
// to the caller (RepeatedSessionError).
type Collector struct {
	open map[string]*sessionState
	// disorder counts the turns whose times are out of order
	// (timesInOrder), disorderAt is the first one's position.
	disorder   int
	disorderAt textpos.Pos
	ended      endedSet
	// lines holds the session_start and session_end lines of ended
	// sessions, only when not streaming.
	lines map[uint64][2]int
	// more holds the turns seen by ended sessions beyond the 64 that fit
	// in endedSession.bits.
	more map[uint64]*turnSet
	// exact: keys are ids numbered in ids, so two ids never share one.
	exact bool
	ids   map[string]uint64
	key   func(string) uint64
	// unverified maps the key of each ended session that a later record
	// was matched to by hash to that record's id.
	unverified map[uint64]string
	// fixes counts, by key, the turns accepted after a session_end
	// without turns_done: they add to its row's TurnsDone, already out.
	fixes map[uint64]int64

	origins   []string
	originIdx map[string]uint32

	sessions []schema.Session // ended sessions, without sessionSink
	turns    []lined[schema.Turn]
	// sink, when set, takes each accepted turn instead of turns: the turns
	// table of a large log streams to disk. sessionSink likewise takes
	// each session's row once final.
	sink        func(schema.Turn) error
	sessionSink func(schema.Session) error
	// times holds the optional times of the turns kept or passed on: a
	// record's own are reused once the reader moves on.
	times   turntimes.Slab
	events  []lined[schema.Event]
	unknown map[string]*UnknownKind
}

type sessionState struct {
	row       schema.Session
	startLine int
	turns     int64 // turn records seen
	turnSet
}

// lined is a row with the input line it came from, to break time ties in
// input order.
type lined[T any] struct {
	row  T
	line int
}

// NewCollector returns an empty collector that keeps every table in
// memory, with exact ids.
func NewCollector() *Collector {
	c := newCollector(true, nil)
	c.lines = map[uint64][2]int{}
	return c
}

func newCollector(exact bool, key func(string) uint64) *Collector {
	c := &Collector{
		open:       map[string]*sessionState{},
		more:       map[uint64]*turnSet{},
		exact:      exact,
		key:        key,
		unverified: map[uint64]string{},
		fixes:      map[uint64]int64{},
		originIdx:  map[string]uint32{},
		unknown:    map[string]*UnknownKind{},
	}
	if exact {
		c.ids = map[string]uint64{}
	} else if c.key == nil {
		seed := maphash.MakeSeed()
		c.key = func(s string) uint64 { return maphash.String(seed, s) }
	}
	return c
}

// StreamOptions configures a streaming collector.
type StreamOptions struct {
	Turn    func(schema.Turn) error    // takes each accepted turn, in input order
	Session func(schema.Session) error // takes each session's row once final, in no set order
	// Exact keeps the id of every ended session instead of its hash: the
	// fallback after ErrKeyCollision, with memory growing by the ids.
	Exact bool
	// Key, when set, replaces the hash of session ids (tests force
	// collisions with it).
	Key func(string) uint64
}

// NewStreamingCollector returns an empty collector that passes each
// accepted turn and each final session row to opt's sinks instead of
// keeping them: Tables then returns only events. A repeated (session, turn)
// is then reported with a RepeatedTurnError whose First is 0, a repeated
// session_start or session_end after the end with a RepeatedSessionError
// whose First is 0. After the
// last record, Finish passes on the sessions still open.
func NewStreamingCollector(opt StreamOptions) *Collector {
	c := newCollector(opt.Exact, opt.Key)
	c.sink, c.sessionSink = opt.Turn, opt.Session
	return c
}

// keyOf returns the key of id, and false when no ended session can have it.
func (c *Collector) keyOf(id string) (uint64, bool) {
	if c.exact {
		k, ok := c.ids[id]
		return k, ok
	}
	return c.key(id), true
}

// findEnded returns the key and record of the ended session id matches,
// and false when there is none. A match by hash is recorded for
// verification; a second id matched to the same session is a certain
// collision.
func (c *Collector) findEnded(id string) (uint64, endedSession, bool, error) {
	k, ok := c.keyOf(id)
	if !ok {
		return 0, endedSession{}, false, nil
	}
	e, ok := c.ended.get(k)
	if !ok || c.exact {
		return k, e, ok, nil
	}
	if prev, ok := c.unverified[k]; ok && prev != id {
		return 0, e, false, ErrKeyCollision
	}
	c.unverified[k] = id
	return k, e, true, nil
}

// Unverified returns, for each session matched by hash after its end, its
// key (Key) and the id it was taken to have; nil with exact ids. The
// session matched is that of the first session_start whose id has the key
// (a later one is rejected while it is open or ended), unless two ids
// share the key: so the caller checks that the first session_start with
// each key has that id, or else reads the run again with exact ids.
func (c *Collector) Unverified() map[uint64]string {
	if c.exact || len(c.unverified) == 0 {
		return nil
	}
	return c.unverified
}

// Key returns the hash by which a collector without exact ids knows the
// session id after its end.
func (c *Collector) Key(id string) uint64 {
	if c.exact {
		return 0
	}
	return c.key(id)
}

// end moves the open session st, which ended at line, to the ended records
// and passes its row on.
func (c *Collector) end(st *sessionState, line int, turnsDone *int64) error {
	id := st.row.Session
	var k uint64
	if c.exact {
		k = mix(uint64(len(c.ids)) + 1)
		c.ids[id] = k
	} else {
		k = c.key(id)
		if _, ok := c.ended.get(k); ok {
			// Two distinct ids (both were open) with one hash.
			return ErrKeyCollision
		}
	}
	oi, ok := c.originIdx[st.row.Origin]
	if !ok {
		oi = uint32(len(c.origins))
		c.origins = append(c.origins, st.row.Origin)
		c.originIdx[st.row.Origin] = oi
	}
	e := endedSession{origin: oi}
	if c.lines != nil {
		c.lines[k] = [2]int{st.startLine, line}
	}
	if len(st.seen) <= 1 && st.big == nil {
		if len(st.seen) == 1 {
			e.bits = st.seen[0]
		}
	} else {
		c.more[k] = &st.turnSet
		e.flags |= endedMore
	}
	row := st.row
	row.TurnsDone = st.turns
	if turnsDone != nil {
		row.TurnsDone = *turnsDone
	} else {
		e.flags |= endedNoTurnsDone
	}
	c.ended.add(k, e)
	delete(c.open, id)
	return c.emitSession(row)
}

func (c *Collector) emitSession(row schema.Session) error {
	if c.sessionSink != nil {
		return c.sessionSink(row)
	}
	c.sessions = append(c.sessions, row)
	return nil
}

// Add applies rec. A record that breaks a cross-line rule gives a
// *textpos.ParseError at the record's position and leaves the collector as
// it was, so a lenient caller may go on: a repeated session_start or
// session_end, a repeated (session, turn), or a turn, park, resume or
// session_end for a session with no session_start before it. Records of
// unknown kinds are counted (Unknown), never an error. Other errors (a
// sink's, ErrKeyCollision) are not about the line.
// clockSlack is how far out of order two times of one turn may be before
// they count as disordered: a gateway's stamps rounded to the millisecond.
const clockSlack = 1e-3

// timesInOrder reports whether t's times run ready ≤ sent ≤ first token
// ≤ done (those it has), after its session's arrival.
func timesInOrder(t *schema.Turn, arrive float64) bool {
	last := arrive
	for _, p := range [...]*float64{t.ReadyS, t.SentS, t.FirstTokenS, &t.DoneS} {
		if p == nil {
			continue
		}
		if *p < last-clockSlack {
			return false
		}
		last = *p
	}
	return true
}

func (c *Collector) disordered(at textpos.Pos) {
	if c.disorder == 0 {
		c.disorderAt = at
	}
	c.disorder++
}

// Disorder returns how many turns had times out of order (ready ≤ sent ≤
// first token ≤ done, all after the session's arrival, to the
// millisecond), and where the first was. They are kept as written: the
// gateway's clock, or how it stamps, is to be checked.
func (c *Collector) Disorder() (int, textpos.Pos) { return c.disorder, c.disorderAt }

func (c *Collector) Add(rec Record) error {
	fail := func(format string, args ...any) error {
		return textpos.Errorf(rec.Pos, rec.Raw, format, args...)
	}
	switch {
	case rec.Start != nil:
		s := rec.Start
		if prev, ok := c.open[s.Session]; ok {
			return fail("session %q starts again (first session_start at line %d)", s.Session, prev.startLine)
		}
		if k, _, ok, err := c.findEnded(s.Session); err != nil {
			return err
		} else if ok {
			return c.repeatedSession(rec, EvSessionStart, s.Session, c.lines[k][0])
		}
		c.open[s.Session] = &sessionState{
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
		row := *t
		if st, ok := c.open[t.Session]; ok {
			if !st.markTurn(t.Turn) {
				return c.repeated(rec)
			}
			st.turns++
			row.Origin = st.row.Origin
			if !timesInOrder(&row, st.row.ArriveS) {
				c.disordered(rec.Pos)
			}
		} else {
			k, e, ok, err := c.findEnded(t.Session)
			if err != nil {
				return err
			}
			if !ok {
				return fail("turn for session %q, which has no session_start before this line", t.Session)
			}
			if !c.markEndedTurn(k, e, t.Turn) {
				return c.repeated(rec)
			}
			if e.flags&endedNoTurnsDone != 0 {
				c.fixes[k]++
			}
			row.Origin = c.origins[e.origin]
			if !timesInOrder(&row, math.Inf(-1)) {
				c.disordered(rec.Pos)
			}
		}
		c.times.Own(&row)
		if c.sink != nil {
			if err := c.sink(row); err != nil {
				return err
			}
		} else {
			c.turns = append(c.turns, lined[schema.Turn]{row, rec.Pos.Line})
		}
	case rec.End != nil:
		e := rec.End
		st, ok := c.open[e.Session]
		if !ok {
			if k, _, ok, err := c.findEnded(e.Session); err != nil {
				return err
			} else if ok {
				return c.repeatedSession(rec, EvSessionEnd, e.Session, c.lines[k][1])
			}
			return fail("session_end for session %q, which has no session_start before this line", e.Session)
		}
		end := rec.T
		st.row.EndS = &end
		st.row.Status = e.Status
		if err := c.end(st, rec.Pos.Line, e.TurnsDone); err != nil {
			return err
		}
	case rec.Event != nil:
		ev := rec.Event
		if ev.Kind == schema.EventPark || ev.Kind == schema.EventResume {
			if _, ok := c.open[*ev.Session]; !ok {
				if _, _, ok, err := c.findEnded(*ev.Session); err != nil {
					return err
				} else if !ok {
					return fail("%s for session %q, which has no session_start before this line", ev.Kind, *ev.Session)
				}
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
			c.unknown[rec.Ev] = &UnknownKind{Ev: rec.Ev, Count: 1, First: rec.Pos, Column: rec.EvColumn}
		}
	}
	return nil
}

// repeated is the error of a repeated (session, turn) at rec.
func (c *Collector) repeated(rec Record) error {
	t := rec.Turn
	e := &RepeatedTurnError{Session: t.Session, Turn: t.Turn}
	if c.sink == nil {
		e.First = c.firstLine(t.Session, t.Turn)
	}
	return &textpos.ParseError{Pos: rec.Pos, Raw: append([]byte(nil), rec.Raw...), Err: e}
}

// repeatedSession is the error of a repeated session_start or session_end
// (ev) at rec of the ended session id, whose first such record is at line
// first (0 when streaming: not kept).
func (c *Collector) repeatedSession(rec Record, ev, id string, first int) error {
	e := &RepeatedSessionError{Ev: ev, Session: id, First: first}
	return &textpos.ParseError{Pos: rec.Pos, Raw: append([]byte(nil), rec.Raw...), Err: e}
}

// openRow returns the row of a session still open at the end of the run.
func openRow(st *sessionState) schema.Session {
	row := st.row
	row.Status = "open"
	row.EndS = nil
	row.TurnsDone = st.turns
	return row
}

// Finish passes the rows of the sessions still open to the session sink,
// after the last record of a streaming collector.
func (c *Collector) Finish() error {
	for _, st := range c.open {
		if err := c.emitSession(openRow(st)); err != nil {
			return err
		}
	}
	clear(c.open)
	return nil
}

// SessionFix returns the correction of the session rows already passed on
// for the turns accepted after their session_end (Add), or nil when there
// is none.
func (c *Collector) SessionFix() func(*schema.Session) {
	if len(c.fixes) == 0 {
		return nil
	}
	return func(s *schema.Session) {
		if k, ok := c.keyOf(s.Session); ok && s.EndS != nil {
			s.TurnsDone += c.fixes[k]
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
