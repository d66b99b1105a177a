package promseries

import (
	"math"
	"strings"
)

// This file is the rank rule (Ranks in the package doc): of the series
// that describe one batch, one is kept.

// selectRanks keeps, of obs, the series without a tp_rank or pid label
// and, in each group of series that differ only in their ranks within a
// replica (tp_rank, moe_ep_rank) or in the pid that wrote them, the one of
// the lowest tp_rank; of several with that rank the first. Of a group of
// series with a pid and no rank (a vLLM gauge that each API-server
// process exports, vllm-project/vllm#28792: one holds the figure, the
// others 0), it keeps the largest. It appends the kept series to dst in
// input order (or returns obs itself when no series has a rank or pid)
// with the number of series left out for repeating a kept series' rank,
// and the number left out as a process's copy.
func (b *Builder) selectRanks(dst, obs []Obs) ([]Obs, int, int) {
	grouped := false
	for i := range obs {
		grouped = grouped || obs[i].hasRank || obs[i].hasPid
	}
	if !grouped {
		return obs, 0, 0 // nothing to leave out: no copy
	}
	clear(b.lowest)
	clear(b.largest)
	for i := range obs {
		o := &obs[i]
		switch {
		case o.hasRank:
			if k, ok := b.lowest[o.group]; !ok || rankLess(o.rank, obs[k].rank) {
				b.lowest[o.group] = i
			}
		case o.hasPid:
			// A NaN copy (no figure) never wins over a number.
			if k, ok := b.largest[o.group]; !ok || o.value > obs[k].value || math.IsNaN(obs[k].value) && !math.IsNaN(o.value) {
				b.largest[o.group] = i
			}
		}
	}
	repeats, copies := 0, 0
	for i := range obs {
		o := &obs[i]
		switch {
		case o.hasRank:
			k := b.lowest[o.group]
			if k != i {
				if o.rank == obs[k].rank {
					repeats++
				}
				continue
			}
		case o.hasPid:
			if b.largest[o.group] != i {
				copies++
				continue
			}
		}
		dst = append(dst, *o)
	}
	return dst, repeats, copies
}

// rankLess orders rank labels as numbers when they are (shorter digits
// first), else as strings.
func rankLess(a, b string) bool {
	if len(a) != len(b) && isDigits(a) && isDigits(b) {
		return len(a) < len(b)
	}
	return strings.Compare(a, b) < 0
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
