// Package gateway reads a run's gateway.jsonl (run-format.md): one JSON
// object per line, each a session_start, turn, park, resume, session_end,
// control, trigger or rate record. Reader turns lines into typed records
// with times in run seconds; Collector applies the rules that span lines
// and builds the sessions, turns and events tables.
package gateway

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/outlast-dev/outlast/textpos"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/schema"
)

// Record kinds (the ev values) of run-format.md.
const (
	EvSessionStart = "session_start"
	EvTurn         = "turn"
	EvPark         = schema.EventPark
	EvResume       = schema.EventResume
	EvSessionEnd   = "session_end"
	EvControl      = schema.EventControl
	EvTrigger      = schema.EventTrigger
	EvRate         = schema.EventRate
)

// Record is one gateway line. Exactly one of Start, End, Turn and Event is
// set for a known kind; none is set for an unknown kind, which the caller
// counts (Collector.Unknown).
type Record struct {
	Pos textpos.Pos
	// Raw is the line as read. It is valid until the next call to Next.
	Raw   []byte
	Ev    string  // the ev value
	T     float64 // ts in run seconds
	Start *SessionStart
	End   *SessionEnd
	// Turn, with the times it points to, is valid until the next call to
	// Next: its memory is reused. Origin is filled by the Collector.
	Turn  *schema.Turn
	Event *schema.Event // park, resume, trigger, rate or control
}

// SessionStart is a session_start record.
type SessionStart struct {
	Session       string
	Origin        string // "base" when the record has none
	TurnsPlanned  *int64
	ContextTokens *int64
}

// SessionEnd is a session_end record.
type SessionEnd struct {
	Session   string
	Status    string // done (default) or aborted
	TurnsDone *int64
}

// Reader reads gateway records from a line reader. It splits the input
// into chunks of whole lines and parses them on GOMAXPROCS goroutines
// (parallel.go); Next hands the records out in input order, with exact
// positions, as a sequential reader would.
type Reader struct {
	lr     *lineio.Reader
	t0     time.Time
	t0Sec  int64   // t=0 as Unix seconds ...
	t0Frac float64 // ... plus a fraction of a second

	// The parser state of one goroutine: scratch member tables, interned
	// strings, and a slab of turn boxes.
	members []member
	usage   []member
	details []member
	// strs interns session ids and origins: a session's id recurs on
	// every one of its lines, and sharing the string saves an allocation
	// each. It is a direct-mapped cache, not a map: a lookup is one hash and
	// one comparison, memory is fixed, and a collision only costs an
	// allocation.
	strs *[internSlots]string
	// boxes is where turns are built: the current batch's slab while
	// parsing a chunk (parallel.go).
	boxes []turnBox

	pipe       *pipeline
	cur        *batch
	idx        int
	blank      int
	firstBlank textpos.Pos
	finished   bool
	warnings   []string
}

// NewReader reads records from lr. t0 is the run's t=0 (the manifest's
// started_at); record times become seconds since t0. Call Close when done
// unless Next has returned io.EOF.
func NewReader(lr *lineio.Reader, t0 time.Time) *Reader {
	r := newParser(t0)
	r.lr = lr
	return r
}

// newParser returns a Reader used only to parse lines, one per goroutine.
func newParser(t0 time.Time) *Reader {
	return &Reader{
		t0:     t0,
		t0Sec:  t0.Unix(),
		t0Frac: float64(t0.Nanosecond()) / 1e9,
		strs:   new([internSlots]string),
	}
}

// Next returns the next record, or io.EOF after the last. A bad line gives
// a *textpos.ParseError, and the reader goes on with the next line. Other
// errors are read errors of the input. A bad last line without a newline
// (the run was killed mid-write) is a warning, not an error.
func (r *Reader) Next() (Record, error) {
	if r.pipe == nil {
		r.pipe = startPipeline(r.lr, r.t0)
	}
	for {
		if r.cur == nil || r.idx == len(r.cur.items) {
			if r.cur != nil {
				r.pipe.release(r.cur)
				r.cur = nil
			}
			b, err := r.pipe.next()
			if err != nil {
				if err == io.EOF {
					r.finish()
				}
				return Record{}, err
			}
			if b.blank > 0 {
				if r.blank == 0 {
					r.firstBlank = b.firstBlank
				}
				r.blank += b.blank
			}
			r.cur, r.idx = b, 0
			continue
		}
		it := &r.cur.items[r.idx]
		r.idx++
		if it.err == nil {
			return it.rec, nil
		}
		lerr := it.err
		perr := textpos.Errorf(it.rec.Pos, it.rec.Raw, "%s", lerr.msg)
		if lerr.off >= 0 {
			perr.Column = lerr.off + 1
		}
		last := r.cur.last && r.idx == len(r.cur.items) && it.rec.Pos.Line == r.cur.lastLine
		if last && lerr.syntax && r.cur.truncated {
			r.warnings = append(r.warnings, fmt.Sprintf("%s: the last line is cut short (%s): the run was stopped mid-write; line ignored", it.rec.Pos, lerr.msg))
			continue
		}
		return Record{}, perr
	}
}

// Close stops the parsing goroutines and waits for them; the line reader
// may then be closed.
func (r *Reader) Close() {
	if r.pipe != nil {
		r.pipe.stop()
	}
}

func (r *Reader) finish() {
	if r.finished {
		return
	}
	r.finished = true
	if r.blank > 0 {
		r.warnings = append(r.warnings, fmt.Sprintf("%s: %d blank line(s) ignored (first here)", r.firstBlank, r.blank))
	}
}

// Warnings returns the problems that did not stop reading: a cut-short last
// line, blank lines. It is complete once Next has returned io.EOF.
func (r *Reader) Warnings() []string { return slices.Clone(r.warnings) }

// Known member keys, as indexes into a line's key table.
const (
	kTS = iota
	kEv
	kSession
	kOrigin
	kTurnsPlanned
	kContextTokens
	kTurn
	kPromptTokens
	kCachedTokens
	kOutputTokens
	kUsage
	kStatus
	kReadyTS
	kSentTS
	kFirstTokenTS
	kTurnsDone
	kController
	kDemandTokens
	kLimit
	kActive
	kParked
	kWaiting
	kKind
	kPhase
	kArrivalRate
	numKeys
)

var keyNames = [numKeys]string{
	"ts", "ev", "session", "origin", "turns_planned", "context_tokens", "turn",
	"prompt_tokens", "cached_tokens", "output_tokens", "usage", "status",
	"ready_ts", "sent_ts", "first_token_ts", "turns_done", "controller",
	"demand_tokens", "limit", "active", "parked", "waiting", "kind", "phase",
	"arrival_rate",
}

// keyIndex returns the index of a known key, or -1. The switch on
// string(key) compiles to a comparison without allocating.
func keyIndex(key []byte) int {
	switch string(key) {
	case "ts":
		return kTS
	case "ev":
		return kEv
	case "session":
		return kSession
	case "origin":
		return kOrigin
	case "turns_planned":
		return kTurnsPlanned
	case "context_tokens":
		return kContextTokens
	case "turn":
		return kTurn
	case "prompt_tokens":
		return kPromptTokens
	case "cached_tokens":
		return kCachedTokens
	case "output_tokens":
		return kOutputTokens
	case "usage":
		return kUsage
	case "status":
		return kStatus
	case "ready_ts":
		return kReadyTS
	case "sent_ts":
		return kSentTS
	case "first_token_ts":
		return kFirstTokenTS
	case "turns_done":
		return kTurnsDone
	case "controller":
		return kController
	case "demand_tokens":
		return kDemandTokens
	case "limit":
		return kLimit
	case "active":
		return kActive
	case "parked":
		return kParked
	case "waiting":
		return kWaiting
	case "kind":
		return kKind
	case "phase":
		return kPhase
	case "arrival_rate":
		return kArrivalRate
	}
	return -1
}

// object is one scanned gateway line: its members and, per known key, the
// index of its member plus one (0: absent).
type object struct {
	members []member
	at      [numKeys]int32
}

func (l *object) get(k int) (member, bool) {
	if i := l.at[k]; i > 0 {
		return l.members[i-1], true
	}
	return member{}, false
}

// present reports whether key k is there with a non-null value.
func (l *object) present(k int) bool {
	m, ok := l.get(k)
	return ok && !isNull(m.val)
}

func (r *Reader) parse(raw []byte, pos textpos.Pos) (Record, *lineError) {
	ms, end, err := scanObject(raw, 0, 0, r.members[:0], true, 0)
	r.members = ms
	if err != nil {
		return Record{}, err
	}
	if end = skipSpace(raw, end); end < len(raw) {
		return Record{}, syntaxErr(end, "unexpected %s after the object", quoteByte(raw[end]))
	}
	var l object
	l.members = ms
	for i := range ms {
		k := keyIndex(ms[i].key)
		if k < 0 {
			continue
		}
		if l.at[k] != 0 {
			return Record{}, fieldErr(ms[i].off, "duplicate key %q", keyNames[k])
		}
		l.at[k] = int32(i + 1)
	}
	rec := Record{Pos: pos, Raw: raw}
	if rec.Ev, err = r.requiredString(&l, kEv, false); err != nil {
		return Record{}, err
	}
	if rec.T, err = r.requiredTime(&l, kTS); err != nil {
		return Record{}, err
	}
	switch rec.Ev {
	case EvSessionStart:
		rec.Start, err = r.sessionStart(&l)
	case EvTurn:
		rec.Turn, err = r.turn(&l, rec.T)
	case EvSessionEnd:
		rec.End, err = r.sessionEnd(&l)
	case EvPark, EvResume, EvTrigger, EvRate, EvControl:
		rec.Event, err = r.event(&l, rec.Ev, rec.T)
	}
	if err != nil {
		return Record{}, err
	}
	return rec, nil
}

func (r *Reader) sessionStart(l *object) (*SessionStart, *lineError) {
	s := &SessionStart{Origin: "base"}
	var err *lineError
	if s.Session, err = r.requiredString(l, kSession, true); err != nil {
		return nil, err
	}
	if l.present(kOrigin) {
		if s.Origin, err = r.requiredString(l, kOrigin, true); err != nil {
			return nil, err
		}
	}
	if s.TurnsPlanned, err = optCount(l, kTurnsPlanned); err != nil {
		return nil, err
	}
	if s.ContextTokens, err = optCount(l, kContextTokens); err != nil {
		return nil, err
	}
	return s, nil
}

func (r *Reader) sessionEnd(l *object) (*SessionEnd, *lineError) {
	e := &SessionEnd{Status: "done"}
	var err *lineError
	if e.Session, err = r.requiredString(l, kSession, true); err != nil {
		return nil, err
	}
	if e.Status, err = r.enum(l, kStatus, "done", "done", "aborted"); err != nil {
		return nil, err
	}
	if e.TurnsDone, err = optCount(l, kTurnsDone); err != nil {
		return nil, err
	}
	return e, nil
}

// turnBox holds a turn and its optional times in one allocation.
type turnBox struct {
	turn  schema.Turn
	times [3]float64
}

// newBox returns a zeroed turnBox from the current slab.
func (r *Reader) newBox() *turnBox {
	if len(r.boxes) == cap(r.boxes) {
		// A new slab, twice as large: earlier boxes stay where they are,
		// and a reused batch soon has room for all its turns.
		r.boxes = make([]turnBox, 0, max(256, 2*cap(r.boxes)))
	}
	r.boxes = r.boxes[:len(r.boxes)+1]
	box := &r.boxes[len(r.boxes)-1]
	*box = turnBox{}
	return box
}

func (r *Reader) turn(l *object, t float64) (*schema.Turn, *lineError) {
	box := r.newBox()
	tr := &box.turn
	tr.DoneS = t
	var err *lineError
	if tr.Session, err = r.requiredString(l, kSession, true); err != nil {
		return nil, err
	}
	if tr.Turn, err = turnNumber(l); err != nil {
		return nil, err
	}
	if err = r.tokens(l, tr); err != nil {
		return nil, err
	}
	if tr.Status, err = r.enum(l, kStatus, "ok", "ok", "error", "aborted"); err != nil {
		return nil, err
	}
	for i, k := range [3]int{kReadyTS, kSentTS, kFirstTokenTS} {
		if !l.present(k) {
			continue
		}
		if box.times[i], err = r.requiredTime(l, k); err != nil {
			return nil, err
		}
		switch k {
		case kReadyTS:
			tr.ReadyS = &box.times[i]
		case kSentTS:
			tr.SentS = &box.times[i]
		case kFirstTokenTS:
			tr.FirstTokenS = &box.times[i]
		}
	}
	return tr, nil
}

// tokens fills the token counts from the plain fields or the OpenAI usage
// object. When both forms are given they must agree.
func (r *Reader) tokens(l *object, tr *schema.Turn) *lineError {
	usage, hasUsage := l.get(kUsage)
	if hasUsage && isNull(usage.val) {
		hasUsage = false
	}
	if !hasUsage {
		var err *lineError
		if tr.PromptTokens, err = requiredCount(l, kPromptTokens, "prompt_tokens (or a usage object)"); err != nil {
			return err
		}
		if tr.OutputTokens, err = requiredCount(l, kOutputTokens, "output_tokens (or a usage object)"); err != nil {
			return err
		}
		if m, ok := l.get(kCachedTokens); ok && !isNull(m.val) {
			// Not optCount: its pointer would cost an allocation per turn.
			if tr.CachedTokens, err = count(m.val, m.off, keyNames[kCachedTokens]); err != nil {
				return err
			}
		}
		if tr.CachedTokens > tr.PromptTokens {
			m, _ := l.get(kCachedTokens)
			return fieldErr(m.off, "cached_tokens %d exceeds prompt_tokens %d", tr.CachedTokens, tr.PromptTokens)
		}
		return nil
	}
	if usage.val[0] != '{' {
		return fieldErr(usage.off, "usage: want an object, got %s", kindOf(usage.val))
	}
	ms, _, serr := scanObject(usage.val, 0, usage.off, r.usage[:0], true, 1)
	r.usage = ms
	if serr != nil {
		return serr
	}
	var prompt, completion, details *member
	for i := range ms {
		var dst **member
		switch string(ms[i].key) {
		case "prompt_tokens":
			dst = &prompt
		case "completion_tokens":
			dst = &completion
		case "prompt_tokens_details":
			dst = &details
		default:
			continue // total_tokens, reasoning_tokens, ...: not needed
		}
		if *dst != nil {
			return fieldErr(ms[i].off, "usage: duplicate key %q", ms[i].key)
		}
		*dst = &ms[i]
	}
	var err *lineError
	if tr.PromptTokens, err = usageCount(usage, prompt, "usage.prompt_tokens"); err != nil {
		return err
	}
	if tr.OutputTokens, err = usageCount(usage, completion, "usage.completion_tokens"); err != nil {
		return err
	}
	if details != nil && !isNull(details.val) {
		if details.val[0] != '{' {
			return fieldErr(details.off, "usage.prompt_tokens_details: want an object or null, got %s", kindOf(details.val))
		}
		dms, _, serr := scanObject(details.val, 0, details.off, r.details[:0], true, 2)
		r.details = dms
		if serr != nil {
			return serr
		}
		var cached *member
		for i := range dms {
			if string(dms[i].key) == "cached_tokens" {
				if cached != nil {
					return fieldErr(dms[i].off, "usage.prompt_tokens_details: duplicate key \"cached_tokens\"")
				}
				cached = &dms[i]
			}
		}
		if cached != nil && !isNull(cached.val) {
			if tr.CachedTokens, err = count(cached.val, cached.off, "usage.prompt_tokens_details.cached_tokens"); err != nil {
				return err
			}
			if tr.CachedTokens > tr.PromptTokens {
				return fieldErr(cached.off, "usage.prompt_tokens_details.cached_tokens %d exceeds usage.prompt_tokens %d", tr.CachedTokens, tr.PromptTokens)
			}
		}
	}
	// A gateway may log both forms; then they must say the same.
	for _, c := range []struct {
		k     int
		value int64
		name  string
	}{{kPromptTokens, tr.PromptTokens, "usage.prompt_tokens"}, {kOutputTokens, tr.OutputTokens, "usage.completion_tokens"}, {kCachedTokens, tr.CachedTokens, "usage.prompt_tokens_details.cached_tokens"}} {
		m, ok := l.get(c.k)
		if !ok {
			continue
		}
		var v int64
		if !isNull(m.val) {
			if v, err = count(m.val, m.off, keyNames[c.k]); err != nil {
				return err
			}
		}
		if v != c.value {
			return fieldErr(m.off, "%s %d disagrees with %s %d", keyNames[c.k], v, c.name, c.value)
		}
	}
	return nil
}

func usageCount(usage member, m *member, name string) (int64, *lineError) {
	if m == nil {
		return 0, fieldErr(usage.off, "missing required field %s", name)
	}
	return count(m.val, m.off, name)
}

func (r *Reader) event(l *object, ev string, t float64) (*schema.Event, *lineError) {
	e := &schema.Event{TS: t, Kind: ev}
	var err *lineError
	// used lists the keys the kind consumes; the others go into Extra.
	used := [numKeys]bool{kTS: true, kEv: true}
	switch ev {
	case EvPark, EvResume:
		used[kSession], used[kTurn] = true, true
		s, err := r.requiredString(l, kSession, true)
		if err != nil {
			return nil, err
		}
		turn, err := turnNumber(l)
		if err != nil {
			return nil, err
		}
		e.Session, e.Turn = &s, &turn
	case EvTrigger:
		used[kKind], used[kPhase] = true, true
		kind, err := r.requiredString(l, kKind, false)
		if err != nil {
			return nil, err
		}
		phase, err := r.enum(l, kPhase, "", "start", "end")
		if err != nil {
			return nil, err
		}
		e.TriggerKind, e.Phase = &kind, &phase
	case EvRate:
		used[kArrivalRate] = true
		m, ok := l.get(kArrivalRate)
		if !ok {
			return nil, fieldErr(-1, "missing required field arrival_rate")
		}
		rate, err := number(m.val, m.off, "arrival_rate")
		if err != nil {
			return nil, err
		}
		e.ArrivalRate = &rate
	case EvControl:
		used[kController] = true
		ctl, err := r.requiredString(l, kController, false)
		if err != nil {
			return nil, err
		}
		e.Controller = &ctl
		for _, f := range []struct {
			k   int
			dst **float64
		}{{kDemandTokens, &e.DemandTokens}, {kLimit, &e.Limit}} {
			used[f.k] = true
			if m, ok := l.get(f.k); ok && !isNull(m.val) {
				v, err := number(m.val, m.off, keyNames[f.k])
				if err != nil {
					return nil, err
				}
				*f.dst = &v
			}
		}
		for _, f := range []struct {
			k   int
			dst **int64
		}{{kActive, &e.Active}, {kParked, &e.Parked}, {kWaiting, &e.Waiting}} {
			used[f.k] = true
			if *f.dst, err = optCount(l, f.k); err != nil {
				return nil, err
			}
		}
	}
	if e.Extra, err = extra(l, &used); err != nil {
		return nil, err
	}
	return e, nil
}

// extra encodes the members the kind does not use as compact JSON with
// sorted keys ("{}" if none).
func extra(l *object, used *[numKeys]bool) (string, *lineError) {
	var rest []member
	for i, m := range l.members {
		if k := keyIndex(m.key); k >= 0 && used[k] && l.at[k] == int32(i+1) {
			continue
		}
		rest = append(rest, m)
	}
	if len(rest) == 0 {
		return "{}", nil
	}
	slices.SortStableFunc(rest, func(a, b member) int { return bytes.Compare(a.key, b.key) })
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range rest {
		if i > 0 {
			if bytes.Equal(rest[i-1].key, m.key) {
				return "", fieldErr(m.off, "duplicate key %q", m.key)
			}
			buf.WriteByte(',')
		}
		if !utf8.Valid(m.key) {
			return "", fieldErr(m.off, "a key is not valid UTF-8")
		}
		k, _ := json.Marshal(string(m.key))
		buf.Write(k)
		buf.WriteByte(':')
		if err := json.Compact(&buf, m.val); err != nil {
			return "", fieldErr(m.off, "%s: %v", m.key, err)
		}
	}
	buf.WriteByte('}')
	return buf.String(), nil
}

// requiredString returns the string value of key k. With intern, equal
// values share one string.
func (r *Reader) requiredString(l *object, k int, intern bool) (string, *lineError) {
	m, ok := l.get(k)
	if !ok {
		return "", fieldErr(-1, "missing required field %s", keyNames[k])
	}
	if m.val[0] != '"' {
		return "", fieldErr(m.off, "%s: want a string, got %s", keyNames[k], kindOf(m.val))
	}
	s, err := r.stringValue(m, intern)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", fieldErr(m.off, "%s: want a non-empty string", keyNames[k])
	}
	return s, nil
}

func (r *Reader) stringValue(m member, intern bool) (string, *lineError) {
	body := m.val[1 : len(m.val)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		s, err := unescape(m.val, m.off)
		if err != nil {
			return "", err
		}
		body = []byte(s)
	}
	if !intern {
		if s, ok := constant(body); ok {
			return s, nil
		}
	} else if s := r.strs[quickHash(body)%internSlots]; s == string(body) && s != "" {
		return s, nil
	}
	if !utf8.Valid(body) {
		return "", fieldErr(m.off, "string is not valid UTF-8")
	}
	s := string(body)
	if intern {
		r.strs[quickHash(body)%internSlots] = s
	}
	return s, nil
}

// internSlots is the size of a parser's string cache: more than the
// sessions in flight at once in a large run.
const internSlots = 1 << 13

// quickHash hashes a short string for the intern cache from its length and
// its first and last eight bytes, which tell session ids apart; strings
// that differ only in between merely collide (one more allocation).
func quickHash(b []byte) uint64 {
	h := uint64(len(b)) * 0x9e3779b97f4a7c15
	if len(b) >= 8 {
		h ^= binary.LittleEndian.Uint64(b) * 0xc2b2ae3d27d4eb4f
		h ^= binary.LittleEndian.Uint64(b[len(b)-8:]) * 0x165667b19e3779f9
	} else {
		for _, c := range b {
			h = (h ^ uint64(c)) * 0x100000001b3
		}
	}
	h ^= h >> 31
	h *= 0x94d049bb133111eb
	return h ^ h>>29
}

// constant returns the static string for the fixed vocabulary (ev kinds,
// statuses, phases), which then costs no allocation.
func constant(b []byte) (string, bool) {
	switch string(b) {
	case EvSessionStart:
		return EvSessionStart, true
	case EvTurn:
		return EvTurn, true
	case EvPark:
		return EvPark, true
	case EvResume:
		return EvResume, true
	case EvSessionEnd:
		return EvSessionEnd, true
	case EvControl:
		return EvControl, true
	case EvTrigger:
		return EvTrigger, true
	case EvRate:
		return EvRate, true
	case "ok":
		return "ok", true
	case "error":
		return "error", true
	case "aborted":
		return "aborted", true
	case "done":
		return "done", true
	case "start":
		return "start", true
	case "end":
		return "end", true
	}
	return "", false
}

// enum returns key k's value, which must be one of allowed; def when
// absent or null (an empty def makes the key required).
func (r *Reader) enum(l *object, k int, def string, allowed ...string) (string, *lineError) {
	if !l.present(k) {
		if def == "" {
			return "", fieldErr(-1, "missing required field %s", keyNames[k])
		}
		return def, nil
	}
	s, err := r.requiredString(l, k, false)
	if err != nil {
		return "", err
	}
	if !slices.Contains(allowed, s) {
		m, _ := l.get(k)
		return "", fieldErr(m.off, "%s: want %s, got %q", keyNames[k], orList(allowed), s)
	}
	return s, nil
}

func orList(words []string) string {
	switch len(words) {
	case 1:
		return words[0]
	case 2:
		return words[0] + " or " + words[1]
	}
	out := ""
	for i, w := range words[:len(words)-1] {
		if i > 0 {
			out += ", "
		}
		out += w
	}
	return out + " or " + words[len(words)-1]
}

func turnNumber(l *object) (int32, *lineError) {
	n, err := requiredCount(l, kTurn, "turn")
	if err != nil {
		return 0, err
	}
	if n > math.MaxInt32 {
		m, _ := l.get(kTurn)
		return 0, fieldErr(m.off, "turn: %d is too large", n)
	}
	return int32(n), nil
}

func requiredCount(l *object, k int, what string) (int64, *lineError) {
	m, ok := l.get(k)
	if !ok {
		return 0, fieldErr(-1, "missing required field %s", what)
	}
	return count(m.val, m.off, keyNames[k])
}

// optCount returns the count under key k, nil when absent or null.
func optCount(l *object, k int) (*int64, *lineError) {
	m, ok := l.get(k)
	if !ok || isNull(m.val) {
		return nil, nil
	}
	v, err := count(m.val, m.off, keyNames[k])
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// count parses a non-negative integer value.
func count(raw []byte, off int, name string) (int64, *lineError) {
	v, ok := parseInt(raw)
	if !ok {
		if raw[0] == '-' || isDigit(raw[0]) {
			if f, fok := parseFloat(raw); fok && f < 0 {
				return 0, fieldErr(off, "%s: want a non-negative integer, got %s", name, show(raw))
			}
			return 0, fieldErr(off, "%s: want an integer, got %s", name, show(raw))
		}
		return 0, fieldErr(off, "%s: want an integer, got %s", name, kindOf(raw))
	}
	if v < 0 {
		return 0, fieldErr(off, "%s: want a non-negative integer, got %d", name, v)
	}
	return v, nil
}

// number parses a non-negative number value.
func number(raw []byte, off int, name string) (float64, *lineError) {
	if raw[0] != '-' && !isDigit(raw[0]) {
		return 0, fieldErr(off, "%s: want a number, got %s", name, kindOf(raw))
	}
	v, ok := parseFloat(raw)
	if !ok {
		return 0, fieldErr(off, "%s: number %s is out of range", name, show(raw))
	}
	if v < 0 {
		return 0, fieldErr(off, "%s: want a non-negative number, got %s", name, show(raw))
	}
	return v, nil
}

// requiredTime returns key k's time in run seconds: the value is Unix
// seconds as a number or an RFC 3339 string.
func (r *Reader) requiredTime(l *object, k int) (float64, *lineError) {
	m, ok := l.get(k)
	if !ok {
		return 0, fieldErr(-1, "missing required field %s", keyNames[k])
	}
	raw := m.val
	switch {
	case raw[0] == '"':
		if sec, nsec, ok := parseRFC3339(raw[1 : len(raw)-1]); ok {
			return float64(sec-r.t0Sec) + (float64(nsec)/1e9 - r.t0Frac), nil
		}
		s, err := r.stringValue(m, false)
		if err != nil {
			return 0, err
		}
		t, perr := time.Parse(time.RFC3339Nano, s)
		if perr != nil {
			return 0, fieldErr(m.off, "%s: want Unix seconds or an RFC 3339 time, got %q", keyNames[k], s)
		}
		sec := t.Unix() - r.t0Sec
		return float64(sec) + (float64(t.Nanosecond())/1e9 - r.t0Frac), nil
	case raw[0] == '-' || isDigit(raw[0]):
		if sec, frac, ok := splitDecimal(raw); ok {
			// Subtract the large parts exactly, then the small ones.
			return float64(sec-r.t0Sec) + (frac - r.t0Frac), nil
		}
		v, ok := parseFloat(raw)
		if !ok {
			return 0, fieldErr(m.off, "%s: number %s is out of range", keyNames[k], show(raw))
		}
		return v - (float64(r.t0Sec) + r.t0Frac), nil
	}
	return 0, fieldErr(m.off, "%s: want Unix seconds or an RFC 3339 time, got %s", keyNames[k], kindOf(raw))
}
