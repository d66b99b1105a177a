package outlastlog

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// UnknownKind counts the records of one ev kind the format does not define.
type UnknownKind struct {
	Ev     string
	Count  int
	First  textpos.Pos // the first record of the kind
	Column int         // the 1-based column of its ev value, 0 if unknown
}

// Warning says where the kind first occurs (file:line:column of its ev
// value) and how many records of it were ignored.
func (u UnknownKind) Warning() string {
	return tallyWarning(u.First, u.Column, fmt.Sprintf("unknown ev %q", u.Ev), u.Count, "ignored")
}

// tallyWarning words a warning about count records of one kind: where the
// first is, what is wrong, what was done with them.
func tallyWarning(first textpos.Pos, col int, what string, count int, done string) string {
	at := first.String()
	if col > 0 {
		at += ":" + strconv.Itoa(col)
	}
	if count == 1 {
		return fmt.Sprintf("%s: %s: 1 record %s", at, what, done)
	}
	return fmt.Sprintf("%s: %s: %d records %s, the first here", at, what, count, done)
}

// Tables returns the run's tables, sorted as documented on schema.RunData:
// sessions by (arrive_s, session), turns by (done_s, session, turn), events
// by (t_s, input line). A session without a session_end has Status "open"
// and a nil EndS, whatever runEndS (the run's end in run seconds) is: the
// schema keeps "never ended" distinct from "ended at the run's end". Its
// TurnsDone, like that of a session_end without turns_done, counts the turn
// records seen. The Run fields are left empty for the caller. A streaming
// collector returns only the events: the rest went to its sinks.
func (c *Collector) Tables(runEndS float64) (sessions []schema.Session, turns []schema.Turn, events []schema.Event) {
	if c.sessionSink == nil {
		sessions = make([]schema.Session, 0, len(c.sessions)+len(c.open))
		sessions = append(sessions, c.sessions...)
		for _, st := range c.open {
			sessions = append(sessions, openRow(st))
		}
		if fix := c.SessionFix(); fix != nil {
			for i := range sessions {
				fix(&sessions[i])
			}
		}
		slices.SortFunc(sessions, schema.CompareSessions)
	}

	ts := slices.Clone(c.turns)
	slices.SortStableFunc(ts, func(a, b lined[schema.Turn]) int {
		return schema.CompareTurns(a.row, b.row)
	})
	turns = make([]schema.Turn, len(ts))
	for i, t := range ts {
		turns[i] = t.row
	}

	es := slices.Clone(c.events)
	slices.SortStableFunc(es, func(a, b lined[schema.Event]) int {
		return compareRecords(a.row.TS, b.row.TS, a.line, b.line)
	})
	events = make([]schema.Event, len(es))
	for i, e := range es {
		events[i] = e.row
	}
	return sessions, turns, events
}

// Unknown returns the unknown ev kinds seen, sorted by kind.
func (c *Collector) Unknown() []UnknownKind {
	out := make([]UnknownKind, 0, len(c.unknown))
	for _, u := range c.unknown {
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b UnknownKind) int { return cmp.Compare(a.Ev, b.Ev) })
	return out
}

// compareRecords orders records as the tables are sorted: by time, then by
// input line.
func compareRecords(aT, bT float64, aLine, bLine int) int {
	if c := cmp.Compare(aT, bT); c != 0 {
		return c
	}
	return cmp.Compare(aLine, bLine)
}
