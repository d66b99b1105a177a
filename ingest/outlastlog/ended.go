package outlastlog

import (
	"cmp"
	"slices"
)

// endedSession is what the rules keep of a session after its session_end:
// 16 bytes, 24 with its key in endedSet's runs, values rather than
// pointers, as there is one per session.
type endedSession struct {
	bits   uint64 // turns 0-63 seen, unless endedMore
	origin uint32 // index in Collector.origins
	flags  uint8
}

const (
	endedMore        = 1 << iota // its turns are in Collector.more
	endedNoTurnsDone             // TurnsDone counted the turn records
)

// endedEntry is an ended session with its key.
type endedEntry struct {
	key uint64
	endedSession
}

// endedSet holds the ended sessions by key. A map costs 56-84 bytes an
// entry (slots, load factor, doubling), so only the recently ended are
// in one. Once they are a sixteenth of the rest they are merged, sorted,
// into runs of 24-byte entries, one run per value of the key's top bits
// (keys are uniform hashes), found by bisection. Each entry is copied some
// 16 times in all; the map adds at most 1/16 of its cost per session. Runs
// of about runLen entries, each its own allocation, keep a merge from
// holding two copies of every session at once, as one array would.
type endedSet struct {
	recent map[uint64]endedSession
	// runs[h] holds the merged entries whose key>>shift is h, sorted by
	// key; len(runs) is 1<<(64-shift), or 0 before the first merge.
	runs  [][]endedEntry
	shift uint
	n     int // entries in runs
}

const (
	// minRecent is the fewest recent entries merged at once.
	minRecent = 1 << 14
	// runLen bounds the mean length of a run: small enough that a lookup
	// touches a few cache lines, large enough that the run's slice header
	// and size-class rounding (up to an eighth) cost little per entry.
	runLen = 64
)

// get returns the session with key k.
func (s *endedSet) get(k uint64) (endedSession, bool) {
	if e, ok := s.recent[k]; ok {
		return e, true
	}
	if r, i, ok := s.find(k); ok {
		return r[i].endedSession, true
	}
	return endedSession{}, false
}

// find returns the run that holds key k and its index there.
func (s *endedSet) find(k uint64) ([]endedEntry, int, bool) {
	if len(s.runs) == 0 {
		return nil, 0, false
	}
	r := s.runs[k>>s.shift]
	lo, hi := 0, len(r)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r[m].key < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return r, lo, lo < len(r) && r[lo].key == k
}

// set replaces the session with key k, which is in s.
func (s *endedSet) set(k uint64, e endedSession) {
	if _, ok := s.recent[k]; ok {
		s.recent[k] = e
	} else if r, i, ok := s.find(k); ok {
		r[i].endedSession = e
	}
}

// add inserts the session with key k, which is not in s.
func (s *endedSet) add(k uint64, e endedSession) {
	if s.recent == nil {
		s.recent = map[uint64]endedSession{}
	}
	s.recent[k] = e
	if len(s.recent) >= max(minRecent, s.n/16) {
		s.merge()
	}
}

// merge moves the recent entries into the runs, first splitting the runs
// if they would grow past runLen on average. Each new run is allocated at
// its exact size, so that no slack grows with the sessions.
func (s *endedSet) merge() {
	add := make([]endedEntry, 0, len(s.recent))
	for k, e := range s.recent {
		add = append(add, endedEntry{k, e})
	}
	slices.SortFunc(add, func(a, b endedEntry) int { return cmp.Compare(a.key, b.key) })
	s.n += len(add)
	bits := 0
	for runLen<<bits < s.n {
		bits++
	}
	old, oldShift := s.runs, s.shift
	if len(old) == 0 {
		old, oldShift = [][]endedEntry{nil}, 64
	}
	// Splitting only ever doubles: each new run comes from one old run.
	bits = max(bits, 64-int(oldShift))
	shift := uint(64 - bits) // 64 (one run) shifts every key to 0
	runs := make([][]endedEntry, 1<<bits)
	j := 0 // next in add
	split := oldShift - shift
	lo := 0 // next in the old run
	for h := range runs {
		p := uint64(h) >> split
		src := old[p]
		if uint64(h)<<(64-split) == 0 {
			lo = 0 // its first child
		}
		if uint64(h+1)>>split != p {
			// Its last child: unreachable once this one is built, the old
			// run may be collected during the merge.
			old[p] = nil
		}
		hi := lo
		for hi < len(src) && src[hi].key>>shift == uint64(h) {
			hi++
		}
		mine := src[lo:hi:hi]
		lo = hi
		end := j
		for end < len(add) && add[end].key>>shift == uint64(h) {
			end++
		}
		fresh := add[j:end]
		j = end
		if len(fresh) == 0 {
			if len(mine) > 0 {
				runs[h] = mine // shares its old run's array: no copy needed
			}
			continue
		}
		r := make([]endedEntry, 0, len(mine)+len(fresh))
		a, b := 0, 0
		for a < len(mine) && b < len(fresh) {
			if mine[a].key < fresh[b].key {
				r = append(r, mine[a])
				a++
			} else {
				r = append(r, fresh[b])
				b++
			}
		}
		runs[h] = append(append(r, mine[a:]...), fresh[b:]...)
	}
	s.runs, s.shift = runs, shift
	// A new map: the old one's buckets, sized for this batch, go with it.
	s.recent = nil
}

// turnSet is the set of turn numbers seen in a session.
type turnSet struct {
	// seen has bit t set once turn t was accepted: exact duplicate
	// detection at one bit per turn, where a map of (session, turn) pairs
	// costs some 60 bytes each. Turn numbers beyond bitsetTurns (hostile or
	// odd input) go to the small map big instead, so one line cannot
	// allocate a huge bitset.
	seen []uint64
	big  map[int32]bool
}

// bitsetTurns bounds the turn numbers tracked in a session's bitset (8 KB).
const bitsetTurns = 1 << 16

// markTurn records turn t, reporting false when it was already recorded.
func (st *turnSet) markTurn(t int32) bool {
	if t < bitsetTurns {
		w, bit := int(t/64), uint64(1)<<(t%64)
		if w >= len(st.seen) {
			st.seen = append(st.seen, make([]uint64, w+1-len(st.seen))...)
		}
		if st.seen[w]&bit != 0 {
			return false
		}
		st.seen[w] |= bit
		return true
	}
	if st.big[t] {
		return false
	}
	if st.big == nil {
		st.big = map[int32]bool{}
	}
	st.big[t] = true
	return true
}

// markEndedTurn records turn t of the ended session whose key is k,
// reporting false when it was already recorded.
func (c *Collector) markEndedTurn(k uint64, e endedSession, t int32) bool {
	if e.flags&endedMore == 0 {
		if t >= 0 && t < 64 {
			bit := uint64(1) << t
			if e.bits&bit != 0 {
				return false
			}
			e.bits |= bit
			c.ended.set(k, e)
			return true
		}
		c.more[k] = &turnSet{seen: []uint64{e.bits}}
		e.flags |= endedMore
		c.ended.set(k, e)
	}
	return c.more[k].markTurn(t)
}

// mix is a bijection of uint64 (splitmix64's finalizer): exact ids,
// numbered, get keys as uniform as hashes, which endedSet's runs need, and
// still distinct.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
