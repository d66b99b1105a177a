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
	sortStable(d.Sessions, CompareSessions)
	sortStable(d.Turns, CompareTurns)
	sortStable(d.Events, CompareEvents)
	sortStable(d.Engine, CompareEngine)
}

// sortStable sorts s stably by compare. A table is most often already in
// order, or two ordered parts one after the other (an engine log's samples,
// then the scrapes'): those are merged in one pass instead of sorted, since
// slices.SortStableFunc moves rows O(n log n) times, and an engine sample
// is over 200 bytes.
func sortStable[T any](s []T, compare func(a, b T) int) {
	i := firstDescent(s, compare)
	if i == len(s) {
		return
	}
	if firstDescent(s[i:], compare) != len(s)-i {
		slices.SortStableFunc(s, compare)
		return
	}
	MergeSorted(s, i, nil, compare)
}

// MergeSorted merges s[:i] and s[i:], each sorted by compare, into s in
// one pass, stably, and returns scratch, grown to hold what it had to
// copy, for the next call. Of s[:i], only the rows above s[i] move.
func MergeSorted[T any](s []T, i int, scratch []T, compare func(a, b T) int) []T {
	if i <= 0 || i >= len(s) || compare(s[i], s[i-1]) >= 0 {
		return scratch
	}
	// The first row of s[:i] above s[i]: those before it stay.
	p, _ := slices.BinarySearchFunc(s[:i], s[i], func(a, b T) int {
		if compare(a, b) <= 0 {
			return -1
		}
		return 1
	})
	// The left part is copied out and merged back; on a tie its row goes
	// first, which keeps the merge stable. Rows are written only below the
	// next right row to read.
	left := append(scratch[:0], s[p:i]...)
	k, a, b := p, 0, i
	for a < len(left) && b < len(s) {
		if compare(s[b], left[a]) < 0 {
			s[k] = s[b]
			b++
		} else {
			s[k] = left[a]
			a++
		}
		k++
	}
	copy(s[k:], left[a:]) // what is left of the right part is in place
	clear(left)           // hold no strings alive
	return left[:0]
}

// firstDescent returns the index of the first row of s smaller than the
// one before it, or len(s) if s is sorted.
func firstDescent[T any](s []T, compare func(a, b T) int) int {
	for i := 1; i < len(s); i++ {
		if compare(s[i], s[i-1]) < 0 {
			return i
		}
	}
	return len(s)
}
