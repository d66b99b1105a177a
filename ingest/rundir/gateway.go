package rundir

import (
	"errors"
	"io"

	"github.com/outlast-dev/outlast/ingest/inputs"
	"github.com/outlast-dev/outlast/ingest/outlastlog"
	"github.com/outlast-dev/outlast/textpos"
)

// A gateway log of records (outlast's own, a format whose row has Records)
// is read record by record; the cross-line rules (a turn after its
// session's end, a repeated turn) are the outlastlog.Collector's. The log
// is read again through a new reader to name the first line of a repeated
// record (repeated.go).

// gatewayLog is what the second passes over the gateway log need.
type gatewayLog struct {
	path   string
	format *inputs.Request
	col    *outlastlog.Collector
	// repeated are lenient rejects of a repeated (session, turn) whose first
	// line is looked up after the pass (resolveRepeated).
	repeated []repeatedReject
}

// rejectGateway is reject for gateway lines: in strict mode the first line
// of a repeated turn, session_start or session_end is looked up before the
// error is returned.
func (r *runReader) rejectGateway(err error) error {
	if !r.opt.Lenient {
		// The error may rest on a session matched by hash.
		if verr := r.verifyStarts(r.gw.col.Unverified()); verr != nil {
			return verr
		}
		if rp, ok := unresolved(err); ok {
			if lerr := r.resolveRepeated([]repeatedReject{rp}); lerr != nil {
				return lerr
			}
		}
	}
	return r.reject(err)
}

// readGateway reads the gateway log at path, in format: its turns and sessions into
// the Sink or into memory, its events into memory.
//
// The span it returns is that of the turns, the engine's work, for
// checkSpan; without turns, that of every record. An engine that logs only
// while it works (SGLang prints batches) starts its log at the first
// turn, which may come long after the gateway's first record (a rate
// event at the run's start): that is no sign of clocks disagreeing.
func (r *runReader) readGateway(path string, format *inputs.Request) (span, error) {
	sp, all := newSpan(), newSpan()
	lr, err := open(path)
	if err != nil {
		return sp, err
	}
	defer lr.Close()
	rd := format.Records(lr, r.t0)
	defer rd.Close() // before lr.Close: the reader's goroutines use lr
	col := outlastlog.NewCollector()
	if r.sink != nil {
		col = outlastlog.NewStreamingCollector(outlastlog.StreamOptions{
			Turn: r.sink.AddTurn, Session: r.sink.AddSession, Exact: r.exact, Key: sessionKey,
		})
	}
	r.gw = gatewayLog{path: path, format: format, col: col}
	var turns, cached int64
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if err := r.reject(err); err != nil {
				return sp, err
			}
			continue
		}
		if err := col.Add(rec); err != nil {
			var pe *textpos.ParseError
			if !errors.As(err, &pe) {
				return sp, err // a sink failed, or a hash collision: not a line's fault
			}
			if err := r.rejectGateway(err); err != nil {
				return sp, err
			}
			continue
		}
		all.add(rec.T)
		if rec.Turn != nil {
			sp.add(rec.T)
			turns++
			if rec.CachedReported {
				cached++
			}
			if rec.Turn.CachedTokens > 0 {
				r.cachedTurns++
			}
		}
	}
	if err := col.Finish(); err != nil {
		return sp, err
	}
	if err := r.verifyStarts(col.Unverified()); err != nil {
		return sp, err
	}
	if r.sink != nil {
		r.sink.FixSessions(col.SessionFix())
	}
	if len(r.gw.repeated) > 0 {
		if err := r.resolveRepeated(r.gw.repeated); err != nil {
			return sp, err
		}
	}
	if err := lr.Err(); err != nil {
		return sp, err
	}
	for _, w := range rd.Warnings() {
		r.warnf("%s", w)
	}
	for _, u := range col.Unknown() {
		r.warnf("%s", u.Warning())
	}
	if n, at := col.Disorder(); n > 0 {
		r.warnf("WARNING: %s: %d turn(s) with times out of order (ready ≤ sent ≤ first token ≤ done, after the session's arrival), the first here: check the gateway's clock; their latencies are kept as written", at, n)
	}
	r.cacheReported(lr.Name(), turns, cached)
	d := r.res.Data
	d.Sessions, d.Turns, d.Events = col.Tables(d.Run.DurationS)
	sum, err := lr.SHA256()
	if err != nil {
		return sp, err
	}
	r.warnCut(lr)
	d.Run.GatewaySHA256 = sum
	if !sp.ok() {
		sp = all
	}
	return sp, nil
}

// sessionKey, when set, replaces the hash of session ids in the streaming
// collector (tests force collisions with it).
var sessionKey func(string) uint64
