package inferenceperf

import (
	"cmp"
	"fmt"
	"slices"
)

// sessions names each record's session: a user session's records, in the
// order they were sent, form one instance until chat_round goes back (the
// next stage, or conversation_replay's next conversation in the slot,
// starts the user over at round 1); later instances get "#2", "#3", ... A
// record without a user session is a session of its own.
//
// A user's last instance continues: inference-perf sends a user session
// round after round until its stage ends (shared_prefix cycles its data
// index over the users without end; conversation_replay starts the slot's
// next conversation when one finishes) and records no end, so the last
// instance was in the system when the run stopped.
func (r *Reader) sessions(recs []record) {
	byUser := map[string][]int{}
	var users []string
	for i := range recs {
		rec := &recs[i]
		if rec.userSession == "" {
			rec.session = fmt.Sprintf("request-%d:%d", rec.pos.Line, rec.col)
			r.unkeyed++
			continue
		}
		if _, ok := byUser[rec.userSession]; !ok {
			users = append(users, rec.userSession)
		}
		byUser[rec.userSession] = append(byUser[rec.userSession], i)
	}
	for _, u := range users {
		idx := byUser[u]
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(recs[a].start, recs[b].start) })
		instance := 1
		var prev int64
		for k, i := range idx {
			rec := &recs[i]
			if k > 0 && rec.round > 0 && rec.round < prev {
				instance++
			}
			prev = rec.round
			rec.session = u
			if instance > 1 {
				rec.session = fmt.Sprintf("%s#%d", u, instance)
			}
		}
		for k := len(idx) - 1; k >= 0 && recs[idx[k]].session == recs[idx[len(idx)-1]].session; k-- {
			recs[idx[k]].continues = true
		}
	}
}
