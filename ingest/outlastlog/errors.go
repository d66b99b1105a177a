package outlastlog

import (
	"errors"
	"fmt"
)

// ErrKeyCollision reports that two session ids share a 64-bit hash, so the
// streaming collector's records of ended sessions were ambiguous: the run
// must be read again with StreamOptions.Exact.
var ErrKeyCollision = errors.New("gateway: two session ids share a 64-bit hash: reading again with exact ids")

// RepeatedTurnError is the reason of a repeated (session, turn). First is
// the line of the first record, 0 when a streaming Collector does not know
// it (the caller finds it by reading the log again).
type RepeatedTurnError struct {
	Session string
	Turn    int32
	First   int
}

// Error says which turn is repeated and where it was first.
func (e *RepeatedTurnError) Error() string {
	if e.First == 0 {
		return fmt.Sprintf("session %q turn %d is repeated (first at an earlier line)", e.Session, e.Turn)
	}
	return fmt.Sprintf("session %q turn %d is repeated (first at line %d)", e.Session, e.Turn, e.First)
}

// RepeatedSessionError is the reason of a repeated session_start or
// session_end (Ev) of an ended session. First is the line of the first
// record of the kind, 0 when a streaming Collector does not know it (the
// caller finds it by reading the log again).
type RepeatedSessionError struct {
	Ev      string // EvSessionStart or EvSessionEnd
	Session string
	First   int
}

// Error says which session starts or ends again and where it first did.
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
