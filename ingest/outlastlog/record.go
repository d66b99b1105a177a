package outlastlog

import (
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
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
	Raw []byte
	Ev  string // the ev value
	// EvColumn is the 1-based byte column of the ev value, for a warning
	// that names an unknown kind (0 on a turn read the fast way).
	EvColumn int
	// OddTrigger is the 1-based byte column of a trigger record's kind
	// when run.yaml does not know that kind (schema.TriggerKinds), else 0:
	// the record is kept as written and warned of (Reader.Warnings).
	OddTrigger int
	T          float64 // ts in run seconds
	Start      *SessionStart
	End        *SessionEnd
	// Turn, with the times it points to, is valid until the next call to
	// Next: its memory is reused. Origin is filled by the Collector.
	Turn  *schema.Turn
	Event *schema.Event // park, resume, trigger, rate or control
	// CachedReported says a turn record carried a cached-token figure
	// (cached_tokens or usage.prompt_tokens_details.cached_tokens, not
	// null), 0 included: a log in which no turn does comes from an engine
	// that was not asked to report them.
	CachedReported bool
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
