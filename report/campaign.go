package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
)

// A campaign of hundreds of runs must still give a page that opens at
// once: small multiples are capped per experiment, the most telling runs
// drawn first, and a note names the runs left out and where their numbers
// are. Every run keeps its row in the overview and in tables/.

// maxSmallMultiples is how many runs (or pairs) an experiment's grid of
// small multiples draws at most; pageSmallMultiples how many small
// multiples the whole page draws, shared among its experiments, each
// drawing at least minSmallMultiples. Observed runs get two panels each.
const (
	maxSmallMultiples  = 24
	pageSmallMultiples = 120
	minSmallMultiples  = 4
)

// shareSmallMultiples sets how many small multiples each experiment draws.
func (b *builder) shareSmallMultiples() {
	b.share = min(maxSmallMultiples, max(minSmallMultiples, pageSmallMultiples/max(1, len(b.exps))))
}

// pick chooses at most n of items to draw: the lowest rank first, ties in
// item order. drawn and left keep the items' order.
func pick[T any](items []T, n int, rank func(T) int) (drawn, left []T) {
	if len(items) <= n {
		return items, nil
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return rank(items[idx[a]]) < rank(items[idx[b]]) })
	keep := make([]bool, len(items))
	for _, i := range idx[:n] {
		keep[i] = true
	}
	for i, it := range items {
		if keep[i] {
			drawn = append(drawn, it)
		} else {
			left = append(left, it)
		}
	}
	return drawn, left
}

// verdictRank draws degraded runs before healthy ones.
func verdictRank(r *runInfo) int {
	for i, v := range verdictOrder {
		if r.sum.Verdict == v {
			return i
		}
	}
	return len(verdictOrder)
}

// withLeftOut appends to blocks a note naming what a capped figure left
// out, when it left anything out.
func withLeftOut[T any](blocks []document.Block, left []T, what string, names []string) []document.Block {
	if len(left) == 0 {
		return blocks
	}
	return append(blocks, &document.Note{Text: fmt.Sprintf("Not drawn, to keep the page quick to open: %d more %s (%s). Their numbers are in the overview and in tables/ (overview.csv and this experiment's tables).",
		len(left), what, strings.Join(names, ", "))})
}

// degraded reports whether a run ended degraded: persistent or partial.
func degraded(r *runInfo) bool { return r.sum.Verdict.EndedDegraded() }
