package outlastlog

// This file is the table of the member keys the reader knows, and the
// scanned line that indexes its members by them.

// Known member keys, as indexes into a line's key table. fastTurn keeps
// the keys it has seen in a uint32 bit set, so there are at most 32.
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

// keyNames spells the known keys. keyIndex is its inverse, written out as
// a switch for speed; TestKeyTable ties the two together.
var keyNames = [numKeys]string{
	kTS:            "ts",
	kEv:            "ev",
	kSession:       "session",
	kOrigin:        "origin",
	kTurnsPlanned:  "turns_planned",
	kContextTokens: "context_tokens",
	kTurn:          "turn",
	kPromptTokens:  "prompt_tokens",
	kCachedTokens:  "cached_tokens",
	kOutputTokens:  "output_tokens",
	kUsage:         "usage",
	kStatus:        "status",
	kReadyTS:       "ready_ts",
	kSentTS:        "sent_ts",
	kFirstTokenTS:  "first_token_ts",
	kTurnsDone:     "turns_done",
	kController:    "controller",
	kDemandTokens:  "demand_tokens",
	kLimit:         "limit",
	kActive:        "active",
	kParked:        "parked",
	kWaiting:       "waiting",
	kKind:          "kind",
	kPhase:         "phase",
	kArrivalRate:   "arrival_rate",
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
