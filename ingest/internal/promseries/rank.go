package promseries

import "strings"

// This file is the rank rule (Ranks in the package doc): of the series
// that describe one batch, one is kept.

// selectRanks keeps, of obs, the series without a tp_rank label and, in
// each group of series that differ only in their ranks within a replica
// (tp_rank, moe_ep_rank) or in the pid that wrote them, the one of the
// lowest tp_rank; of several with that rank the first. It appends the kept
// series to dst in input order (or returns obs itself when no series has a
// rank) with the number of series left out for repeating a kept series'
// rank.
func (b *Builder) selectRanks(dst, obs []Obs) ([]Obs, int) {
	ranked := false
	for i := range obs {
		ranked = ranked || obs[i].hasRank
	}
	if !ranked {
		return obs, 0 // nothing to leave out: no copy
	}
	clear(b.lowest)
	for i := range obs {
		o := &obs[i]
		if !o.hasRank {
			continue
		}
		if k, ok := b.lowest[o.group]; !ok || rankLess(o.rank, obs[k].rank) {
			b.lowest[o.group] = i
		}
	}
	repeats := 0
	for i := range obs {
		o := &obs[i]
		if o.hasRank {
			k := b.lowest[o.group]
			if k != i {
				if o.rank == obs[k].rank {
					repeats++
				}
				continue
			}
		}
		dst = append(dst, *o)
	}
	return dst, repeats
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
