package outlastlog

import (
	"math"
	"slices"

	"github.com/outlast-dev/outlast/ingest/internal/decimal"
	"github.com/outlast-dev/outlast/textpos"
)

// fastTurn parses a turn line of the common shape in one pass: compact
// JSON, no escapes, only the keys of a plain turn record (ts, ev, session,
// turn, the three token counts, status and the three optional times). It
// reports false for anything else, and the caller then parses the line the
// general way (parse), which also gives any error. So the fast path never
// decides what is an error: it only skips work on lines that parse accepts,
// with the same record (FuzzFastTurn checks this). Turn lines are most of
// a gateway log, and this halves the cost of reading one.
func (r *Reader) fastTurn(b []byte, pos textpos.Pos) (Record, bool) {
	n := len(b)
	if n < 2 || b[0] != '{' || b[n-1] != '}' {
		return Record{}, false
	}
	var (
		seen                         uint32
		t                            float64
		times                        [3]float64
		hasTime                      [3]bool
		session                      string
		turn, prompt, cached, output int64
		status                       = "ok"
		cachedReported               bool
	)
	for i := 1; ; {
		// A key: plain bytes up to the quote, then a colon.
		if i >= n || b[i] != '"' {
			return Record{}, false
		}
		ks := i + 1
		ke := plainEnd(b, ks)
		if ke < 0 || ke+1 >= n || b[ke+1] != ':' {
			return Record{}, false
		}
		k := keyIndex(b[ks:ke])
		if k < 0 || seen&(1<<k) != 0 {
			return Record{}, false // unknown keys and repeats: parse decides
		}
		seen |= 1 << k
		// The value: a plain string, null, or a number.
		vs := ke + 2
		if vs >= n {
			return Record{}, false
		}
		var ve int
		null := false
		switch c := b[vs]; {
		case c == '"':
			if ve = plainEnd(b, vs+1); ve < 0 {
				return Record{}, false
			}
			ve++
		case c == 'n':
			if n-vs < 4 || string(b[vs:vs+4]) != "null" {
				return Record{}, false
			}
			ve, null = vs+4, true
		case c == '-' || isDigit(c):
			var err *textpos.Reason
			if ve, err = scanNumber(b, vs, 0); err != nil {
				return Record{}, false
			}
		default:
			return Record{}, false
		}
		val := b[vs:ve]
		str := val[0] == '"'
		switch k {
		case kTS, kReadyTS, kSentTS, kFirstTokenTS:
			if null {
				if k == kTS {
					return Record{}, false
				}
				break // a null optional time is absent
			}
			v, ok := r.fastTime(val)
			if !ok {
				return Record{}, false
			}
			if k == kTS {
				t = v
				break
			}
			i := slices.Index(turnTimes[:], k)
			times[i], hasTime[i] = v, true
		case kEv:
			if string(val) != `"turn"` {
				return Record{}, false
			}
		case kSession:
			if !str || len(val) == 2 {
				return Record{}, false
			}
			s, err := r.stringValue(member{val: val, off: vs}, true)
			if err != nil {
				return Record{}, false
			}
			session = s
		case kTurn, kPromptTokens, kOutputTokens, kCachedTokens:
			var v int64
			if null {
				if k != kCachedTokens {
					return Record{}, false
				}
			} else {
				var ok bool
				if v, ok = decimal.Int(val); !ok || v < 0 {
					return Record{}, false
				}
			}
			switch k {
			case kTurn:
				turn = v
			case kPromptTokens:
				prompt = v
			case kOutputTokens:
				output = v
			case kCachedTokens:
				cached, cachedReported = v, !null
			}
		case kStatus:
			switch string(val) {
			case "null", `"ok"`:
				status = "ok"
			case `"error"`:
				status = "error"
			case `"aborted"`:
				status = "aborted"
			default:
				return Record{}, false
			}
		default:
			return Record{}, false
		}
		if ve >= n {
			return Record{}, false
		}
		if b[ve] == '}' {
			if ve != n-1 {
				return Record{}, false
			}
			break
		}
		if b[ve] != ',' {
			return Record{}, false
		}
		i = ve + 1
	}
	const required = 1<<kTS | 1<<kEv | 1<<kSession | 1<<kTurn | 1<<kPromptTokens | 1<<kOutputTokens
	if seen&required != required || turn > math.MaxInt32 || cached > prompt {
		return Record{}, false
	}
	box := r.newBox()
	tr := &box.turn
	tr.Session, tr.Turn, tr.DoneS = session, int32(turn), t
	tr.PromptTokens, tr.CachedTokens, tr.OutputTokens, tr.Status = prompt, cached, output, status
	box.times = times
	box.link(hasTime)
	return Record{Pos: pos, Raw: b, Ev: EvTurn, T: t, Turn: tr, CachedReported: cachedReported}, true
}

// fastTime converts a time value as requiredTime does, for the forms it
// converts without allocating; ok is false for the others.
func (r *Reader) fastTime(raw []byte) (float64, bool) {
	if raw[0] == '"' {
		sec, nsec, ok := r.minutes.parse(raw[1 : len(raw)-1])
		if !ok {
			return 0, false
		}
		return float64(sec-r.t0Sec) + (float64(nsec)/1e9 - r.t0Frac), true
	}
	sec, frac, ok := decimal.Split(raw)
	if !ok {
		return 0, false
	}
	return float64(sec-r.t0Sec) + (frac - r.t0Frac), true
}
