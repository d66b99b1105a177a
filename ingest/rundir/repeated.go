package rundir

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/outlast-dev/outlast/textpos"

	"github.com/outlast-dev/outlast/ingest/outlastlog"
)

// A streaming collector detects a repeated (session, turn) with one bit
// per turn, and keeps no lines of an ended session, so it does not remember
// the line of the first record, which the error message names. Repeats are
// errors, rare in a good log: the lines are looked up by reading the
// gateway log again, once per strict error or once per lenient pass for
// all repeats together.

// repeatedReject is a repeat to resolve: once first is set, the error
// (kept as a reject, or returned in strict mode) names the first line.
type repeatedReject struct {
	key   recordKey
	first *int // the error's First
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
func unresolved(err error) (repeatedReject, bool) {
	var rt *outlastlog.RepeatedTurnError
	var rs *outlastlog.RepeatedSessionError
	switch {
	case errors.As(err, &rt) && rt.First == 0:
		return repeatedReject{recordKey{outlastlog.EvTurn, rt.Session, rt.Turn}, &rt.First}, true
	case errors.As(err, &rs) && rs.First == 0:
		return repeatedReject{recordKey{rs.Ev, rs.Session, 0}, &rs.First}, true
	}
	return repeatedReject{}, false
}

// keyOf returns the recordKey of rec, and false for a record that cannot
// be repeated.
func keyOf(rec outlastlog.Record) (recordKey, bool) {
	switch {
	case rec.Turn != nil:
		return recordKey{outlastlog.EvTurn, rec.Turn.Session, rec.Turn.Turn}, true
	case rec.Start != nil:
		return recordKey{outlastlog.EvSessionStart, rec.Start.Session, 0}, true
	case rec.End != nil:
		return recordKey{outlastlog.EvSessionEnd, rec.End.Session, 0}, true
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
	name := filepath.Base(r.gw.path)
	rejected := map[int]bool{}
	for _, rj := range r.res.Rejects {
		if rj.Pos.File == name {
			rejected[rj.Pos.Line] = true
		}
	}
	missing := len(want)
	err := r.eachRecord(func(rec outlastlog.Record) bool {
		k, ok := keyOf(rec)
		if ok && !rejected[rec.Pos.Line] {
			if line, ok := want[k]; ok && line == 0 {
				want[k] = rec.Pos.Line
				missing--
			}
		}
		return missing > 0
	})
	if err != nil {
		return err
	}
	for _, rp := range reps {
		*rp.first = want[rp.key]
		if *rp.first == 0 {
			what := rp.key.ev
			if what == outlastlog.EvTurn {
				what = fmt.Sprintf("turn %d", rp.key.turn)
			}
			return fmt.Errorf("%s: internal error: the first %s record of session %q was not found again", r.dir, what, rp.key.session)
		}
	}
	return nil
}

// verifyStarts checks the collector's matches by hash (want: key → id):
// the first session_start whose id has each key must be of that id.
// Otherwise two ids share a hash and the result is outlastlog.ErrKeyCollision,
// on which the run is read again with exact ids. One pass over the log, up
// to the last of those session_starts, only when some record came for a
// session after its end.
func (r *runReader) verifyStarts(want map[uint64]string) error {
	if len(want) == 0 {
		return nil
	}
	seen := map[uint64]bool{} // later session_starts with a key were rejected
	collision := false
	err := r.eachRecord(func(rec outlastlog.Record) bool {
		if rec.Start == nil {
			return true
		}
		k := r.gw.col.Key(rec.Start.Session)
		if id, ok := want[k]; ok && !seen[k] {
			if rec.Start.Session != id {
				collision = true
				return false
			}
			seen[k] = true
		}
		return len(seen) < len(want)
	})
	switch {
	case err != nil:
		return err
	case collision:
		return outlastlog.ErrKeyCollision
	case len(seen) != len(want):
		return fmt.Errorf("%s: internal error: %d session_start lines were not found again", r.dir, len(want)-len(seen))
	}
	return nil
}

// eachRecord reads the gateway log again, calling fn with each record
// that reads without error, in order, until fn returns false.
func (r *runReader) eachRecord(fn func(outlastlog.Record) bool) error {
	lr, err := open(r.gw.path)
	if err != nil {
		return err
	}
	defer lr.Close()
	rd := r.gw.format.Records(lr, r.t0)
	defer rd.Close() // before lr.Close: the reader's goroutines use lr
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if _, ok := err.(*textpos.ParseError); ok {
				continue
			}
			return err
		}
		if !fn(rec) {
			return nil
		}
	}
}
