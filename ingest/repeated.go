package ingest

import (
	"errors"
	"fmt"
	"io"

	"github.com/outlast-dev/outlast/textpos"

	"github.com/outlast-dev/outlast/ingest/gateway"
)

// A streaming collector detects a repeated (session, turn) with one bit
// per turn, and keeps no lines of an ended session, so it does not remember
// the line of the first record, which the error message names. Repeats are
// errors, rare in a good log: the lines are looked up by reading the
// gateway log again, once per strict error or once per lenient pass for
// all repeats together.

// repeatedReject is a repeat to resolve; index is its entry in the
// rejects, -1 for a strict error.
type repeatedReject struct {
	index int
	key   recordKey
	first *int  // the error's First
	err   error // its message once first is set
}

// recordKey names the records of one kind (ev) of a session, and for
// turns of one turn number.
type recordKey struct {
	ev      string
	session string
	turn    int32
}

// unresolved returns the repeat that err reports with its first line
// unknown, and false when err is not one.
func unresolved(err error, index int) (repeatedReject, bool) {
	var rt *gateway.RepeatedTurnError
	var rs *gateway.RepeatedSessionError
	switch {
	case errors.As(err, &rt) && rt.First == 0:
		return repeatedReject{index, recordKey{gateway.EvTurn, rt.Session, rt.Turn}, &rt.First, rt}, true
	case errors.As(err, &rs) && rs.First == 0:
		return repeatedReject{index, recordKey{rs.Ev, rs.Session, 0}, &rs.First, rs}, true
	}
	return repeatedReject{}, false
}

// keyOf returns the recordKey of rec, and false for a record that cannot
// be repeated.
func keyOf(rec gateway.Record) (recordKey, bool) {
	switch {
	case rec.Turn != nil:
		return recordKey{gateway.EvTurn, rec.Turn.Session, rec.Turn.Turn}, true
	case rec.Start != nil:
		return recordKey{gateway.EvSessionStart, rec.Start.Session, 0}, true
	case rec.End != nil:
		return recordKey{gateway.EvSessionEnd, rec.End.Session, 0}, true
	}
	return recordKey{}, false
}

// resolveRepeated sets the First line of each repeat: the first record
// with its key that the collector accepted, that is, one not among the
// lines rejected.
func (r *runReader) resolveRepeated(reps []repeatedReject) error {
	want := map[recordKey]int{}
	for _, rp := range reps {
		want[rp.key] = 0
	}
	lr, err := open(r.gwPath)
	if err != nil {
		return err
	}
	defer lr.Close()
	rejected := map[int]bool{}
	for _, rj := range r.res.Rejects {
		if rj.Pos.File == lr.Name() {
			rejected[rj.Pos.Line] = true
		}
	}
	rd := gateway.NewReader(lr, r.t0)
	defer rd.Close()
	missing := len(want)
	for missing > 0 {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if _, ok := err.(*textpos.ParseError); ok {
				continue
			}
			return err
		}
		k, ok := keyOf(rec)
		if !ok || rejected[rec.Pos.Line] {
			continue
		}
		if line, ok := want[k]; ok && line == 0 {
			want[k] = rec.Pos.Line
			missing--
		}
	}
	for _, rp := range reps {
		*rp.first = want[rp.key]
		if *rp.first == 0 {
			what := rp.key.ev
			if what == gateway.EvTurn {
				what = fmt.Sprintf("turn %d", rp.key.turn)
			}
			return fmt.Errorf("%s: internal error: the first %s record of session %q was not found again", r.dir, what, rp.key.session)
		}
		if rp.index >= 0 {
			r.res.Rejects[rp.index].Reason = rp.err.Error()
		}
	}
	return nil
}

// verifyStarts checks the collector's matches by hash (want: key → id):
// the first session_start whose id has each key must be of that id.
// Otherwise two ids share a hash and the result is gateway.ErrKeyCollision,
// on which the run is read again with exact ids. One pass over the log, up
// to the last of those session_starts, only when some record came for a
// session after its end.
func (r *runReader) verifyStarts(want map[uint64]string) error {
	if len(want) == 0 {
		return nil
	}
	lr, err := open(r.gwPath)
	if err != nil {
		return err
	}
	defer lr.Close()
	rd := gateway.NewReader(lr, r.t0)
	defer rd.Close()
	seen := map[uint64]bool{} // later session_starts with a key were rejected
	for len(seen) < len(want) {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if _, ok := err.(*textpos.ParseError); ok {
				continue
			}
			return err
		}
		if rec.Start == nil {
			continue
		}
		k := r.col.Key(rec.Start.Session)
		if id, ok := want[k]; ok && !seen[k] {
			if rec.Start.Session != id {
				return gateway.ErrKeyCollision
			}
			seen[k] = true
		}
	}
	if len(seen) != len(want) {
		return fmt.Errorf("%s: internal error: %d session_start lines were not found again", r.dir, len(want)-len(seen))
	}
	return nil
}
