package schema

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortStable checks sortStable against slices.SortStableFunc on the
// shapes it takes apart (sorted, two sorted parts) and on those it hands
// on (three parts, shuffled), with many ties, whose order must be kept.
func TestSortStable(t *testing.T) {
	type row struct{ key, seq int }
	byKey := func(a, b row) int { return cmp.Compare(a.key, b.key) }
	sortedPart := func(r *rand.Rand, n int) []row {
		s := make([]row, n)
		for i := range s {
			s[i].key = r.IntN(10)
		}
		slices.SortFunc(s, byKey)
		return s
	}
	shapes := map[string]func(r *rand.Rand, n int) []row{
		"sorted":    func(r *rand.Rand, n int) []row { return sortedPart(r, n) },
		"two parts": func(r *rand.Rand, n int) []row { return append(sortedPart(r, n/3), sortedPart(r, n-n/3)...) },
		"three parts": func(r *rand.Rand, n int) []row {
			return slices.Concat(sortedPart(r, n/3), sortedPart(r, n/3), sortedPart(r, n-2*(n/3)))
		},
		"shuffled": func(r *rand.Rand, n int) []row {
			s := sortedPart(r, n)
			r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
			return s
		},
	}
	for name, shape := range shapes {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			for n := range 40 {
				for range 20 {
					got := shape(r, n)
					for i := range got {
						got[i].seq = i
					}
					want := slices.Clone(got)
					slices.SortStableFunc(want, byKey)
					sortStable(got, func(a, b *row) int { return byKey(*a, *b) }, byKey)
					if !slices.Equal(got, want) {
						t.Fatalf("n=%d: got %v, want %v", n, got, want)
					}
				}
			}
		})
	}
}

// TestMergeSorted checks MergeSorted on two sorted parts of every pair of
// lengths, with one scratch buffer reused throughout, against a stable
// sort.
func TestMergeSorted(t *testing.T) {
	type row struct{ key, seq int }
	byKey := func(a, b row) int { return cmp.Compare(a.key, b.key) }
	r := rand.New(rand.NewPCG(3, 4))
	var scratch []row
	for n := range 30 {
		for i := range n + 1 {
			s := make([]row, n)
			for k := range s {
				s[k].key = r.IntN(8)
			}
			slices.SortFunc(s[:i], byKey)
			slices.SortFunc(s[i:], byKey)
			for k := range s {
				s[k].seq = k
			}
			want := slices.Clone(s)
			slices.SortStableFunc(want, byKey)
			scratch = MergeSorted(s, i, scratch, byKey)
			if !slices.Equal(s, want) {
				t.Fatalf("n=%d i=%d: got %v, want %v", n, i, s, want)
			}
			if len(scratch) != 0 {
				t.Fatalf("scratch returned with %d rows", len(scratch))
			}
		}
	}
}
