package gateway

import (
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
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
//
// A session's full state is kept only while it is open. At its
// session_end its row is final (but see fixes) and goes out; what the rules
// still need (its lines, origin and the turns seen, for a turn that comes
// after the end) is kept in a compact record keyed by a 64-bit hash of the
// id, not the id itself, so that memory grows with the sessions open at
// once and only by some 60 bytes with each session ended. A hash match is
// assumed to be the same session and the assumption recorded (Unverified):
// the caller confirms it by reading the session_start lines again, and a
// collision, never a silent one, makes it read the run again with exact
// ids (ErrKeyCollision).
type Collector struct {
	open  map[string]*sessionState
	ended map[uint64]endedSession
	// wide holds the lines of ended sessions that do not fit in 32 bits.
	wide map[uint64][2]int
	// more holds the turns seen by ended sessions beyond the 64 that fit
	// in endedSession.bits.
	more map[uint64]*turnSet
	// exact: keys are ids numbered in ids, so two ids never share one.
	exact bool
	ids   map[string]uint64
	key   func(string) uint64
	// unverified maps the session_start line of each ended session that
	// a later record was matched to by hash to that record's id.
	unverified map[int]string
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
	nTurns      int
	// times holds the optional times of the turns kept or passed on: a
	// record's own are reused once the reader moves on.
	times   [][3]float64
	events  []lined[schema.Event]
	unknown map[string]*UnknownKind
}

// ErrKeyCollision reports that two session ids share a 64-bit hash, so the
// streaming collector's records of ended sessions were ambiguous: the run
// must be read again with StreamOptions.Exact.
var ErrKeyCollision = errors.New("gateway: two session ids share a 64-bit hash: reading again with exact ids")

type sessionState struct {
	row       schema.Session
	startLine int
	turns     int64 // turn records seen
	turnSet
}

// endedSession is what the rules keep of a session after its session_end:
// 24 bytes, a map value rather than a pointer, as there is one per session.
type endedSession struct {
	bits               uint64 // turns 0-63 seen, unless endedMore
	startLine, endLine uint32 // unless endedWide
	origin             uint32 // index in Collector.origins
	flags              uint8
}

const (
	endedMore        = 1 << iota // its turns are in Collector.more
	endedNoTurnsDone             // TurnsDone counted the turn records
	endedWide                    // its lines are in Collector.wide
)

// lines returns the session's session_start and session_end lines.
func (c *Collector) lines(k uint64, e endedSession) (start, end int) {
	if e.flags&endedWide != 0 {
		l := c.wide[k]
		return l[0], l[1]
	}
	return int(e.startLine), int(e.endLine)
}

// turnSet is the set of turn numbers seen in a session.
type turnSet struct {
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
func (st *turnSet) markTurn(t int32) bool {
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

// markEndedTurn records turn t of the ended session whose key is k,
// reporting false when it was already recorded.
func (c *Collector) markEndedTurn(k uint64, t int32) bool {
	e := c.ended[k]
	if e.flags&endedMore == 0 {
		if t >= 0 && t < 64 {
			bit := uint64(1) << t
			if e.bits&bit != 0 {
				return false
			}
			e.bits |= bit
			c.ended[k] = e
			return true
		}
		c.more[k] = &turnSet{seen: []uint64{e.bits}}
		e.flags |= endedMore
		c.ended[k] = e
	}
	return c.more[k].markTurn(t)
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

// NewCollector returns an empty collector that keeps every table in
// memory, with exact ids.
func NewCollector() *Collector {
	return newCollector(true, nil)
}

func newCollector(exact bool, key func(string) uint64) *Collector {
	c := &Collector{
		open:       map[string]*sessionState{},
		ended:      map[uint64]endedSession{},
		wide:       map[uint64][2]int{},
		more:       map[uint64]*turnSet{},
		exact:      exact,
		key:        key,
		unverified: map[int]string{},
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
// is then reported with a RepeatedTurnError whose First is 0. After the
// last record, Finish passes on the sessions still open.
func NewStreamingCollector(opt StreamOptions) *Collector {
	c := newCollector(opt.Exact, opt.Key)
	c.sink, c.sessionSink = opt.Turn, opt.Session
	return c
}

// Turns returns the number of turns accepted.
func (c *Collector) Turns() int { return c.nTurns }

// keyOf returns the key of id, and false when no ended session can have it.
func (c *Collector) keyOf(id string) (uint64, bool) {
	if c.exact {
		k, ok := c.ids[id]
		return k, ok
	}
	return c.key(id), true
}

// findEnded returns the key of the ended session id matches, and false
// when there is none. A match by hash is recorded for verification; a
// second id matched to the same session is a certain collision.
func (c *Collector) findEnded(id string) (uint64, bool, error) {
	k, ok := c.keyOf(id)
	if !ok {
		return 0, false, nil
	}
	e, ok := c.ended[k]
	if !ok || c.exact {
		return k, ok, nil
	}
	start, _ := c.lines(k, e)
	if prev, ok := c.unverified[start]; ok && prev != id {
		return 0, false, ErrKeyCollision
	}
	c.unverified[start] = id
	return k, true, nil
}

// Unverified returns, for each session matched by hash after its end, the
// line of its session_start and the id it was taken to have; nil with exact
// ids. The caller checks that each line is a session_start of that id, or
// else reads the run again with exact ids.
func (c *Collector) Unverified() map[int]string {
	if c.exact || len(c.unverified) == 0 {
		return nil
	}
	return c.unverified
}

// end moves the open session st, which ended at line, to the ended records
// and passes its row on.
func (c *Collector) end(st *sessionState, line int, turnsDone *int64) error {
	id := st.row.Session
	var k uint64
	if c.exact {
		k = uint64(len(c.ids)) + 1
		c.ids[id] = k
	} else {
		k = c.key(id)
		if _, ok := c.ended[k]; ok {
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
	e := endedSession{startLine: uint32(st.startLine), endLine: uint32(line), origin: oi}
	if uint64(st.startLine) > math.MaxUint32 || uint64(line) > math.MaxUint32 {
		c.wide[k] = [2]int{st.startLine, line}
		e.flags |= endedWide
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
	c.ended[k] = e
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
// *lineio.ParseError at the record's position and leaves the collector as
// it was, so a lenient caller may go on: a repeated session_start or
// session_end, a repeated (session, turn), or a turn, park, resume or
// session_end for a session with no session_start before it. Records of
// unknown kinds are counted (Unknown), never an error. Other errors (a
// sink's, ErrKeyCollision) are not about the line.
func (c *Collector) Add(rec Record) error {
	fail := func(format string, args ...any) error {
		return lineio.Errorf(rec.Pos, rec.Raw, format, args...)
	}
	switch {
	case rec.Start != nil:
		s := rec.Start
		if prev, ok := c.open[s.Session]; ok {
			return fail("session %q starts again (first session_start at line %d)", s.Session, prev.startLine)
		}
		if k, ok, err := c.findEnded(s.Session); err != nil {
			return err
		} else if ok {
			first, _ := c.lines(k, c.ended[k])
			return fail("session %q starts again (first session_start at line %d)", s.Session, first)
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
		} else {
			k, ok, err := c.findEnded(t.Session)
			if err != nil {
				return err
			}
			if !ok {
				return fail("turn for session %q, which has no session_start before this line", t.Session)
			}
			if !c.markEndedTurn(k, t.Turn) {
				return c.repeated(rec)
			}
			e := c.ended[k]
			if e.flags&endedNoTurnsDone != 0 {
				c.fixes[k]++
			}
			row.Origin = c.origins[e.origin]
		}
		c.ownTimes(&row)
		if c.sink != nil {
			if err := c.sink(row); err != nil {
				return err
			}
		} else {
			c.turns = append(c.turns, lined[schema.Turn]{row, rec.Pos.Line})
		}
		c.nTurns++
	case rec.End != nil:
		e := rec.End
		st, ok := c.open[e.Session]
		if !ok {
			if k, ok, err := c.findEnded(e.Session); err != nil {
				return err
			} else if ok {
				_, first := c.lines(k, c.ended[k])
				return fail("session %q ends again (first session_end at line %d)", e.Session, first)
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
				if _, ok, err := c.findEnded(*ev.Session); err != nil {
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
			c.unknown[rec.Ev] = &UnknownKind{Ev: rec.Ev, Count: 1, First: rec.Pos}
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
	return &lineio.ParseError{Pos: rec.Pos, Raw: append([]byte(nil), rec.Raw...), Err: e}
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
// records seen. The Run fields are left empty for the caller. A streaming
// collector returns only the events: the rest went to its sinks.
func (c *Collector) Tables(runEndS float64) (sessions []schema.Session, turns []schema.Turn, events []schema.Event) {
	if c.sessionSink == nil {
		sessions = make([]schema.Session, 0, len(c.sessions)+len(c.open))
		sessions = append(sessions, c.sessions...)
		for _, st := range c.open {
			sessions = append(sessions, openRow(st))
		}
		if fix := c.SessionFix(); fix != nil {
			for i := range sessions {
				fix(&sessions[i])
			}
		}
		slices.SortFunc(sessions, func(a, b schema.Session) int {
			if c := cmp.Compare(a.ArriveS, b.ArriveS); c != 0 {
				return c
			}
			return cmp.Compare(a.Session, b.Session)
		})
	}

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
