// Package loadgen holds what the readers of the load generators' exports
// (ingest/aiperf, ingest/guidellm, ingest/inferenceperf) share: the turn record
// they produce, and the Collector that applies the rules spanning records
// and derives the sessions these tools do not log. A session starts at its
// first turn's ready time (else its sent time), ends at the completion of
// its last turn, and takes its status from that turn, so its rows are the
// sessions and turns tables outlast's own gateway log gives. A session the
// tool's stop left in the system (its last turn cancelled by the stop, or
// one the tool would have followed with another) is open: no end.
package loadgen

import (
	"fmt"

	"io"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// Turn is one request of a load generator's export, as its reader gives
// it: the turns-table row (times in run seconds; Origin is the
// Collector's) and where it came from.
type Turn struct {
	Pos    textpos.Pos
	Column int    // 1-based byte column of the record's start, 0 if unknown
	Raw    []byte // the record verbatim; valid until the reader's next call
	Row    schema.Turn
	// Ordinal says the export gives no turn number: the Collector numbers
	// the session's turns by the order they were sent.
	Ordinal bool
	// CachedReported says the record carried a cached-token figure (which
	// may be 0); without one Row.CachedTokens is 0 for "unknown".
	CachedReported bool
	// Continues says the tool would have sent the session another turn
	// after this one had the run not ended: a session whose last turn
	// carries it is open at the end.
	Continues bool
	// Planned is the number of turns the tool planned for the session
	// (AIPerf's inputs.json), 0 when unknown.
	Planned int64
}

// Errorf returns a ParseError at the turn's record.
func (t *Turn) Errorf(format string, args ...any) *textpos.ParseError {
	return textpos.At(t.Pos, t.Column, t.Raw, format, args...)
}

// where formats a record's position as file:line:column.
func where(pos textpos.Pos, col int) string {
	if col > 0 {
		return fmt.Sprintf("%s:%d", pos, col)
	}
	return pos.String()
}

// Source is a load generator's reader: its turns in file order, each bad
// record a *textpos.ParseError.
type Source interface {
	Next() (*Turn, error)
}

// Read adds the turns of src to c until its end. Each turn c accepts goes
// to accepted, if not nil; each error, of a record or of the Collector,
// goes to bad, and an error bad returns ends the read and is returned.
func (c *Collector) Read(src Source, accepted func(*Turn), bad func(error) error) error {
	for {
		t, err := src.Next()
		if err == io.EOF {
			return nil
		}
		if err == nil {
			if err = c.Add(t); err == nil {
				if accepted != nil {
					accepted(t)
				}
				continue
			}
		}
		if err := bad(err); err != nil {
			return err
		}
	}
}
