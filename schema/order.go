package schema

import (
	"cmp"
	"slices"
	"sort"
	"strings"
)

// The tables' row orders. The Parquet bytes depend on them, so they are
// written once, here, and used by every writer and sorter.

// CompareSessions orders sessions as the sessions table is sorted: by
// arrive_s, then session.
func CompareSessions(a, b Session) int { return compareSessions(&a, &b) }

func compareSessions(a, b *Session) int {
	if c := cmp.Compare(a.ArriveS, b.ArriveS); c != 0 {
		return c
	}
	return strings.Compare(a.Session, b.Session)
}

// CompareTurns orders turns as the turns table is sorted: by done_s, then
// session, then turn.
func CompareTurns(a, b Turn) int { return compareTurns(&a, &b) }

func compareTurns(a, b *Turn) int {
	if c := cmp.Compare(a.DoneS, b.DoneS); c != 0 {
		return c
	}
	if c := strings.Compare(a.Session, b.Session); c != 0 {
		return c
	}
	return cmp.Compare(a.Turn, b.Turn)
}

// CompareEvents orders events as the events table is sorted: by t_s (a
// stable sort keeps the log's order among equal times).
func CompareEvents(a, b Event) int { return compareEvents(&a, &b) }

func compareEvents(a, b *Event) int { return cmp.Compare(a.TS, b.TS) }

// CompareEngine orders engine samples as the engine table is sorted: by
// t_s, then source, then line.
func CompareEngine(a, b EngineSample) int { return compareEngine(&a, &b) }

func compareEngine(a, b *EngineSample) int {
	if c := cmp.Compare(a.TS, b.TS); c != 0 {
		return c
	}
	if c := strings.Compare(a.Source, b.Source); c != 0 {
		return c
	}
	return cmp.Compare(a.Line, b.Line)
}

// Sort sorts d's tables in the dataset's order, stably. It compares rows
// through pointers: an engine sample is over 200 bytes, and passing two by
// value to every comparison was most of the cost of an SGLang run's sort,
// whose log gives over 10,000 of them.
func (d *RunData) Sort() {
	sortStable(d.Sessions, compareSessions, CompareSessions)
	sortStable(d.Turns, compareTurns, CompareTurns)
	sortStable(d.Events, compareEvents, CompareEvents)
	sortStable(d.Engine, compareEngine, CompareEngine)
}

// sortStable sorts s stably by compare (byValue is the same order, for
// slices.SortStableFunc). A table is most often already in order, or two
// ordered parts one after the other (an engine log's samples, then the
// scrapes'): those are merged in one pass instead of sorted, since
// slices.SortStableFunc moves rows O(n log n) times.
func sortStable[T any](s []T, compare func(a, b *T) int, byValue func(a, b T) int) {
	i := firstDescent(s, compare)
	if i == len(s) {
		return
	}
	if firstDescent(s[i:], compare) != len(s)-i {
		slices.SortStableFunc(s, byValue)
		return
	}
	mergeSorted(s, i, nil, compare)
}

// MergeSorted merges s[:i] and s[i:], each sorted by compare, into s in
// one pass, stably, and returns scratch, grown to hold what it had to
// copy, for the next call. Of s[:i], only the rows above s[i] move.
func MergeSorted[T any](s []T, i int, scratch []T, compare func(a, b T) int) []T {
	return mergeSorted(s, i, scratch, func(a, b *T) int { return compare(*a, *b) })
}

// mergeSorted is MergeSorted with compare on pointers.
func mergeSorted[T any](s []T, i int, scratch []T, compare func(a, b *T) int) []T {
	if i <= 0 || i >= len(s) || compare(&s[i], &s[i-1]) >= 0 {
		return scratch
	}
	// The first row of s[:i] above s[i]: those before it stay. The first
	// row of s[i:] not below s[i-1]: those from it on stay.
	p := sort.Search(i, func(k int) bool { return compare(&s[k], &s[i]) > 0 })
	q := i + sort.Search(len(s)-i, func(k int) bool { return compare(&s[i+k], &s[i-1]) >= 0 })
	if q-i < i-p {
		return mergeFromRight(s[p:q], i-p, scratch, compare)
	}
	// The left part is copied out and merged back; on a tie its row goes
	// first, which keeps the merge stable. Rows are written only below the
	// next right row to read.
	left := append(scratch[:0], s[p:i]...)
	k, a, b := p, 0, i
	for a < len(left) && b < len(s) {
		if compare(&s[b], &left[a]) < 0 {
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

// mergeFromRight is mergeSorted's merge of s[:i] and s[i:] when the right
// part is the smaller (an engine log's thousands of samples, then an
// hour's few hundred scrapes): the right part is copied out and merged
// back from the end, the larger row first and, on a tie, the right one,
// which keeps the merge stable.
func mergeFromRight[T any](s []T, i int, scratch []T, compare func(a, b *T) int) []T {
	right := append(scratch[:0], s[i:]...)
	k, a, b := len(s)-1, i-1, len(right)-1
	for a >= 0 && b >= 0 {
		if compare(&right[b], &s[a]) >= 0 {
			s[k] = right[b]
			b--
		} else {
			s[k] = s[a]
			a--
		}
		k--
	}
	copy(s[:b+1], right[:b+1]) // what is left of the left part is in place
	clear(right)
	return right[:0]
}

// firstDescent returns the index of the first row of s smaller than the
// one before it, or len(s) if s is sorted.
func firstDescent[T any](s []T, compare func(a, b *T) int) int {
	for i := 1; i < len(s); i++ {
		if compare(&s[i], &s[i-1]) < 0 {
			return i
		}
	}
	return len(s)
}
