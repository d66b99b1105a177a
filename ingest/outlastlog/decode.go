package outlastlog

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// This file decodes a scanned line into the record of its kind, converting
// only the members that kind uses.

func (r *Reader) parse(raw []byte, pos textpos.Pos) (Record, *textpos.Reason) {
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
	if m, ok := l.get(kEv); ok {
		rec.EvColumn = m.off + 1
	}
	if rec.T, err = r.requiredTime(&l, kTS); err != nil {
		return Record{}, err
	}
	switch rec.Ev {
	case EvSessionStart:
		rec.Start, err = r.sessionStart(&l)
	case EvTurn:
		rec.Turn, err = r.turn(&l, rec.T)
		rec.CachedReported = cachedReported(&l, r.details)
	case EvSessionEnd:
		rec.End, err = r.sessionEnd(&l)
	case EvPark, EvResume, EvTrigger, EvRate, EvControl:
		rec.Event, err = r.event(&l, rec.Ev, rec.T)
		if err == nil && rec.Ev == EvTrigger && !slices.Contains(schema.TriggerKinds, *rec.Event.TriggerKind) {
			m, _ := l.get(kKind)
			rec.OddTrigger = m.off + 1
		}
	}
	if err != nil {
		return Record{}, err
	}
	return rec, nil
}

func (r *Reader) sessionStart(l *object) (*SessionStart, *textpos.Reason) {
	s := &SessionStart{Origin: "base"}
	var err *textpos.Reason
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

func (r *Reader) sessionEnd(l *object) (*SessionEnd, *textpos.Reason) {
	e := &SessionEnd{Status: "done"}
	var err *textpos.Reason
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

// turnTimes are the keys of a turn's optional times, in the order of
// turnBox.times.
var turnTimes = [3]int{kReadyTS, kSentTS, kFirstTokenTS}

// link points the turn's optional times at those of box.times that it has.
func (box *turnBox) link(has [3]bool) {
	for i, p := range [3]**float64{&box.turn.ReadyS, &box.turn.SentS, &box.turn.FirstTokenS} {
		if has[i] {
			*p = &box.times[i]
		}
	}
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

func (r *Reader) turn(l *object, t float64) (*schema.Turn, *textpos.Reason) {
	box := r.newBox()
	tr := &box.turn
	tr.DoneS = t
	var err *textpos.Reason
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
	var has [3]bool
	for i, k := range turnTimes {
		if !l.present(k) {
			continue
		}
		if box.times[i], err = r.requiredTime(l, k); err != nil {
			return nil, err
		}
		has[i] = true
	}
	box.link(has)
	return tr, nil
}

// tokens fills the token counts from the plain fields or the OpenAI usage
// object. When both forms are given they must agree.
func (r *Reader) tokens(l *object, tr *schema.Turn) *textpos.Reason {
	r.details = r.details[:0] // cachedReported reads what this line left
	usage, hasUsage := l.get(kUsage)
	if hasUsage && isNull(usage.val) {
		hasUsage = false
	}
	if !hasUsage {
		var err *textpos.Reason
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
	var err *textpos.Reason
	usageCached := false // usage gives a cached-token figure
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
			usageCached = true
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
		null := isNull(m.val)
		if !null {
			if v, err = count(m.val, m.off, keyNames[c.k]); err != nil {
				return err
			}
		}
		if v == c.value {
			continue
		}
		// A figure left out (null, or no cached_tokens in usage) counts as
		// nothing cached; the message says which side left it out.
		switch {
		case c.k == kCachedTokens && !usageCached:
			return fieldErr(m.off, "%s %d disagrees with usage, which gives no prompt_tokens_details.cached_tokens (nothing cached)", keyNames[c.k], v)
		case null:
			return fieldErr(m.off, "%s null (nothing cached) disagrees with %s %d", keyNames[c.k], c.name, c.value)
		}
		return fieldErr(m.off, "%s %d disagrees with %s %d", keyNames[c.k], v, c.name, c.value)
	}
	return nil
}

func usageCount(usage member, m *member, name string) (int64, *textpos.Reason) {
	if m == nil {
		return 0, fieldErr(usage.off, "missing required field %s", name)
	}
	return count(m.val, m.off, name)
}

func (r *Reader) event(l *object, ev string, t float64) (*schema.Event, *textpos.Reason) {
	e := &schema.Event{TS: t, Kind: ev}
	var err *textpos.Reason
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
func extra(l *object, used *[numKeys]bool) (string, *textpos.Reason) {
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

// cachedReported reports whether the turn line l carried a cached-token
// figure: a cached_tokens member or a usage.prompt_tokens_details
// .cached_tokens that is not null. details holds the members of
// prompt_tokens_details as tokens last scanned them, when it did.
func cachedReported(l *object, details []member) bool {
	if m, ok := l.get(kCachedTokens); ok && !isNull(m.val) {
		return true
	}
	if !l.present(kUsage) {
		return false
	}
	for _, m := range details {
		if string(m.key) == "cached_tokens" && !isNull(m.val) {
			return true
		}
	}
	return false
}
