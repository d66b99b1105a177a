package ingest

import (
	"fmt"
	"io"

	"github.com/outlast-dev/outlast/ingest/gateway"
	"github.com/outlast-dev/outlast/ingest/lineio"
)

// A streaming collector detects a repeated (session, turn) with one bit
// per turn and so does not remember the line of the first record, which the
// error message names. Repeats are errors, rare in a good log: the lines
// are looked up by reading the gateway log again, once per strict error or
// once per lenient pass for all repeats together.

// repeatedReject is a repeated turn to resolve; index is its entry in the
// rejects, -1 for a strict error.
type repeatedReject struct {
	index int
	err   *gateway.RepeatedTurnError
}

type turnKey struct {
	session string
	turn    int32
}

// resolveRepeated sets the First line of each repeat: the first turn
// record with its (session, turn) that the collector accepted, that is, one
// not among the lines rejected.
func (r *runReader) resolveRepeated(reps []repeatedReject) error {
	want := map[turnKey]int{}
	for _, rp := range reps {
		want[turnKey{rp.err.Session, rp.err.Turn}] = 0
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
			if _, ok := err.(*lineio.ParseError); ok {
				continue
			}
			return err
		}
		if rec.Turn == nil || rejected[rec.Pos.Line] {
			continue
		}
		k := turnKey{rec.Turn.Session, rec.Turn.Turn}
		if line, ok := want[k]; ok && line == 0 {
			want[k] = rec.Pos.Line
			missing--
		}
	}
	for _, rp := range reps {
		rp.err.First = want[turnKey{rp.err.Session, rp.err.Turn}]
		if rp.err.First == 0 {
			return fmt.Errorf("%s: internal error: the first record of session %q turn %d was not found again", r.dir, rp.err.Session, rp.err.Turn)
		}
		if rp.index >= 0 {
			r.res.Rejects[rp.index].Reason = rp.err.Error()
		}
	}
	return nil
}

// verifyStarts checks the collector's matches by hash (want: session_start
// line → id): each line must be the session_start of that id. Otherwise two
// ids share a hash and the result is gateway.ErrKeyCollision, on which the
// run is read again with exact ids. One pass over the log, only when some
// record came for a session after its end.
func (r *runReader) verifyStarts(want map[int]string) error {
	if len(want) == 0 {
		return nil
	}
	last := 0
	for line := range want {
		last = max(last, line)
	}
	lr, err := open(r.gwPath)
	if err != nil {
		return err
	}
	defer lr.Close()
	rd := gateway.NewReader(lr, r.t0)
	defer rd.Close()
	found := 0
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if _, ok := err.(*lineio.ParseError); ok {
				continue
			}
			return err
		}
		if id, ok := want[rec.Pos.Line]; ok {
			if rec.Start == nil || rec.Start.Session != id {
				return gateway.ErrKeyCollision
			}
			found++
		}
		if rec.Pos.Line >= last {
			break
		}
	}
	if found != len(want) {
		return fmt.Errorf("%s: internal error: %d session_start lines were not found again", r.dir, len(want)-found)
	}
	return nil
}
