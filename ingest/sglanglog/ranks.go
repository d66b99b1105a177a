package sglanglog

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/outlast-dev/outlast/schema"
)

// rankKey orders the ranks that print copies of one batch: pipeline stage,
// attention context-parallel rank, and, without a DP tag, the TP rank.
type rankKey struct{ pp, cp, tp int32 }

func (k rankKey) less(o rankKey) bool {
	return cmp.Or(cmp.Compare(k.pp, o.pp), cmp.Compare(k.cp, o.cp), cmp.Compare(k.tp, o.tp)) < 0
}

// keptRank is the rank whose copies of a DP group's batches are kept, and
// the last sample kept of it.
type keptRank struct {
	key      rankKey
	tags     string // as printed, for the note
	lastTS   float64
	lastKind string
	switched int // times a lower rank appeared after a higher one was kept
}

// keep reports whether the batch line of ranks rk (printed as tags), read
// into s, is the
// copy kept of its batch: that of the lowest rank of its DP group present
// in the log, PP0 ATTN_CP0 (TP0 without DP) when the log has it, as the
// DP rule keeps each replica's. A log cut to some ranks' lines (an
// excerpt, a log collected per node) keeps the lowest it holds, and
// Info.Notes says which rank the rule expected. When a lower rank shows
// up after a higher one was kept, it is kept from then on; its first line,
// the same batch as the higher rank's line kept at that time, is not.
func (r *Reader) keep(rk *ranks, tags []byte, s *schema.EngineSample) bool {
	k := rankKey{pp: rk.pp, cp: rk.cp}
	if !rk.hasDP {
		k.tp = rk.tp
	}
	group := int32(-1)
	if rk.hasDP {
		group = rk.dp
	}
	if r.kept == nil {
		r.kept = map[int32]*keptRank{}
	}
	g, ok := r.kept[group]
	switch {
	case !ok:
		g = &keptRank{key: k}
		r.kept[group] = g
	case k == g.key:
	case k.less(g.key):
		same := g.lastTS == s.TS && g.lastKind == s.Kind
		g.key, g.switched = k, g.switched+1
		g.tags = ""
		if same {
			return false
		}
	default:
		return false
	}
	if g.tags == "" {
		g.tags = string(tags)
	}
	g.lastTS, g.lastKind = s.TS, s.Kind
	return true
}

// rankNotes says, for each DP group whose kept rank is not the one the
// rule expects, which rank's lines were kept instead.
func (r *Reader) rankNotes() []string {
	var groups []int32
	for g, k := range r.kept {
		if k.key != (rankKey{}) {
			groups = append(groups, g)
		}
	}
	slices.Sort(groups)
	var notes []string
	for _, g := range groups {
		k := r.kept[g]
		want := "PP0 ATTN_CP0 (TP0)"
		if g >= 0 {
			want = fmt.Sprintf("DP%d PP0 ATTN_CP0", g)
		}
		notes = append(notes, fmt.Sprintf("no batch line of rank %s, whose copy of each batch is the one kept: the lines of %s, the lowest rank the log holds, were kept instead (a log cut to some ranks' lines?)", want, k.tags))
	}
	return notes
}
