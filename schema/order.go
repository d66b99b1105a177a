package schema

import (
	"cmp"
	"slices"
	"strings"
)

// The tables' row orders. The Parquet bytes depend on them, so they are
// written once, here, and used by every writer and sorter.

// CompareSessions orders sessions as the sessions table is sorted: by
// arrive_s, then session.
func CompareSessions(a, b Session) int {
	return cmp.Or(cmp.Compare(a.ArriveS, b.ArriveS), strings.Compare(a.Session, b.Session))
}

// CompareTurns orders turns as the turns table is sorted: by done_s, then
// session, then turn.
func CompareTurns(a, b Turn) int {
	return cmp.Or(cmp.Compare(a.DoneS, b.DoneS), strings.Compare(a.Session, b.Session), cmp.Compare(a.Turn, b.Turn))
}

// CompareEvents orders events as the events table is sorted: by t_s (a
// stable sort keeps the log's order among equal times).
func CompareEvents(a, b Event) int { return cmp.Compare(a.TS, b.TS) }

// CompareEngine orders engine samples as the engine table is sorted: by
// t_s, then source, then line.
func CompareEngine(a, b EngineSample) int {
	return cmp.Or(cmp.Compare(a.TS, b.TS), strings.Compare(a.Source, b.Source), cmp.Compare(a.Line, b.Line))
}

// Sort sorts d's tables in the dataset's order, stably.
func (d *RunData) Sort() {
	slices.SortStableFunc(d.Sessions, CompareSessions)
	slices.SortStableFunc(d.Turns, CompareTurns)
	slices.SortStableFunc(d.Events, CompareEvents)
	slices.SortStableFunc(d.Engine, CompareEngine)
}
