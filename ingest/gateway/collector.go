package gateway

import (
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/outlast-dev/outlast/textpos"

	"github.com/outlast-dev/outlast/schema"
)

// UnknownKind counts the records of one ev kind the format does not define.
type UnknownKind struct {
	Ev    string
	Count int
	First textpos.Pos // the first record of the kind
}

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
	open  map[string]*sessionState
	ended endedSet
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
// 16 bytes, 24 with its key in endedSet's runs, values rather than
// pointers, as there is one per session.
type endedSession struct {
	bits   uint64 // turns 0-63 seen, unless endedMore
	origin uint32 // index in Collector.origins
	flags  uint8
}

const (
	endedMore        = 1 << iota // its turns are in Collector.more
	endedNoTurnsDone             // TurnsDone counted the turn records
)

// endedEntry is an ended session with its key.
type endedEntry struct {
	key uint64
	endedSession
}

// endedSet holds the ended sessions by key. A map costs 56-84 bytes an
// entry (slots, load factor, doubling), so only the recently ended are
// in one. Once they are a sixteenth of the rest they are merged, sorted,
// into runs of 24-byte entries, one run per value of the key's top bits
// (keys are uniform hashes), found by bisection. Each entry is copied some
// 16 times in all; the map adds at most 1/16 of its cost per session. Runs
// of about runLen entries, each its own allocation, keep a merge from
// holding two copies of every session at once, as one array would.
type endedSet struct {
	recent map[uint64]endedSession
	// runs[h] holds the merged entries whose key>>shift is h, sorted by
	// key; len(runs) is 1<<(64-shift), or 0 before the first merge.
	runs  [][]endedEntry
	shift uint
	n     int // entries in runs
}

const (
	// minRecent is the fewest recent entries merged at once.
	minRecent = 1 << 14
	// runLen bounds the mean length of a run: small enough that a lookup
	// touches a few cache lines, large enough that the run's slice header
	// and size-class rounding (up to an eighth) cost little per entry.
	runLen = 64
)

// get returns the session with key k.
func (s *endedSet) get(k uint64) (endedSession, bool) {
	if e, ok := s.recent[k]; ok {
		return e, true
	}
	if r, i, ok := s.find(k); ok {
		return r[i].endedSession, true
	}
	return endedSession{}, false
}

// find returns the run that holds key k and its index there.
func (s *endedSet) find(k uint64) ([]endedEntry, int, bool) {
	if len(s.runs) == 0 {
		return nil, 0, false
	}
	r := s.runs[k>>s.shift]
	lo, hi := 0, len(r)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r[m].key < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return r, lo, lo < len(r) && r[lo].key == k
}

// set replaces the session with key k, which is in s.
func (s *endedSet) set(k uint64, e endedSession) {
	if _, ok := s.recent[k]; ok {
		s.recent[k] = e
	} else if r, i, ok := s.find(k); ok {
		r[i].endedSession = e
	}
}

// add inserts the session with key k, which is not in s.
func (s *endedSet) add(k uint64, e endedSession) {
	if s.recent == nil {
		s.recent = map[uint64]endedSession{}
	}
	s.recent[k] = e
	if len(s.recent) >= max(minRecent, s.n/16) {
		s.merge()
	}
}

// merge moves the recent entries into the runs, first splitting the runs
// if they would grow past runLen on average. Each new run is allocated at
// its exact size, so that no slack grows with the sessions.
func (s *endedSet) merge() {
	add := make([]endedEntry, 0, len(s.recent))
	for k, e := range s.recent {
		add = append(add, endedEntry{k, e})
	}
	slices.SortFunc(add, func(a, b endedEntry) int { return cmp.Compare(a.key, b.key) })
	s.n += len(add)
	bits := 0
	for runLen<<bits < s.n {
		bits++
	}
	old, oldShift := s.runs, s.shift
	if len(old) == 0 {
		old, oldShift = [][]endedEntry{nil}, 64
	}
	// Splitting only ever doubles: each new run comes from one old run.
	bits = max(bits, 64-int(oldShift))
	shift := uint(64 - bits) // 64 (one run) shifts every key to 0
	runs := make([][]endedEntry, 1<<bits)
	j := 0 // next in add
	split := oldShift - shift
	lo := 0 // next in the old run
	for h := range runs {
		p := uint64(h) >> split
		src := old[p]
		if uint64(h)<<(64-split) == 0 {
			lo = 0 // its first child
		}
		if uint64(h+1)>>split != p {
			// Its last child: unreachable once this one is built, the old
			// run may be collected during the merge.
			old[p] = nil
		}
		hi := lo
		for hi < len(src) && src[hi].key>>shift == uint64(h) {
			hi++
		}
		mine := src[lo:hi:hi]
		lo = hi
		end := j
		for end < len(add) && add[end].key>>shift == uint64(h) {
			end++
		}
		fresh := add[j:end]
		j = end
		if len(fresh) == 0 {
			if len(mine) > 0 {
				runs[h] = mine // shares its old run's array: no copy needed
			}
			continue
		}
		r := make([]endedEntry, 0, len(mine)+len(fresh))
		a, b := 0, 0
		for a < len(mine) && b < len(fresh) {
			if mine[a].key < fresh[b].key {
				r = append(r, mine[a])
				a++
			} else {
				r = append(r, fresh[b])
				b++
			}
		}
		runs[h] = append(append(r, mine[a:]...), fresh[b:]...)
	}
	s.runs, s.shift = runs, shift
	// A new map: the old one's buckets, sized for this batch, go with it.
	s.recent = nil
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
func (c *Collector) markEndedTurn(k uint64, e endedSession, t int32) bool {
	if e.flags&endedMore == 0 {
		if t >= 0 && t < 64 {
			bit := uint64(1) << t
			if e.bits&bit != 0 {
				return false
			}
			e.bits |= bit
			c.ended.set(k, e)
			return true
		}
		c.more[k] = &turnSet{seen: []uint64{e.bits}}
		e.flags |= endedMore
		c.ended.set(k, e)
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

// RepeatedSessionError is the reason of a repeated session_start or
// session_end (Ev) of an ended session. First is the line of the first
// record of the kind, 0 when a streaming Collector does not know it (the
// caller looks it up).
type RepeatedSessionError struct {
	Ev      string // EvSessionStart or EvSessionEnd
	Session string
	First   int
}

func (e *RepeatedSessionError) Error() string {
	verb := "starts"
	if e.Ev == EvSessionEnd {
		verb = "ends"
	}
	if e.First == 0 {
		return fmt.Sprintf("session %q %s again (first %s at an earlier line)", e.Session, verb, e.Ev)
	}
	return fmt.Sprintf("session %q %s again (first %s at line %d)", e.Session, verb, e.Ev, e.First)
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

// mix is a bijection of uint64 (splitmix64's finalizer): exact ids,
// numbered, get keys as uniform as hashes, which endedSet's runs need, and
// still distinct.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
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
		slices.SortFunc(sessions, schema.CompareSessions)
	}

	ts := slices.Clone(c.turns)
	slices.SortStableFunc(ts, func(a, b lined[schema.Turn]) int {
		return schema.CompareTurns(a.row, b.row)
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
