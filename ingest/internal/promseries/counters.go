package promseries

// This file keeps what the counter deltas need from one time to the
// next: each counter series' index, its value in the previous time's
// set, and its _created time.

import "math"

// creation is what the Builder knows of one counter series' _created.
type creation struct {
	last   float64 // the last creation time seen, NaN if none
	at     uint64  // the cstamp of the time the counter was last present
	inPrev bool    // then, whether it was in the previous time's set
}

// present records that counter series i is present at this time, and
// whether it was in the previous time's set.
func (b *Builder) present(i int32, inPrev bool) {
	for int(i) >= len(b.created) {
		b.created = append(b.created, creation{last: math.NaN()})
	}
	c := &b.created[i]
	if c.at != b.cstamp {
		c.at, c.inPrev = b.cstamp, inPrev
	} else {
		c.inPrev = c.inPrev || inPrev // a series that feeds two fields
	}
}

// recreated records the creation times given at this time, each for its
// counter series (found by key: the counter was indexed first), and
// reports whether one differs from the one last seen while its series was
// in the previous time's set: the series began anew in between, so its
// delta is unknown.
func (b *Builder) recreated() bool {
	changed := false
	for k := range b.obs {
		o := &b.obs[k]
		if counterOf(o.metric) < 0 || math.IsNaN(o.value) || math.IsInf(o.value, 0) {
			continue
		}
		i, ok := b.byKey[o.key]
		if !ok || b.created[i].at != b.cstamp {
			continue // its counter is not read at this time
		}
		c := &b.created[i]
		changed = changed || c.inPrev && !math.IsNaN(c.last) && c.last != o.value
		c.last = o.value
	}
	return changed
}

// index returns the index of counter series o in the sets.
func (b *Builder) index(o *Obs) int32 {
	if o.sid > 0 {
		for int(o.sid) >= len(b.bySid) {
			b.bySid = append(b.bySid, -1)
		}
		if b.bySid[o.sid] < 0 {
			b.bySid[o.sid] = b.nIndex
			b.byKey[o.key] = b.nIndex // for its _created series (recreated)
			b.nIndex++
		}
		return b.bySid[o.sid]
	}
	i, ok := b.byKey[o.key]
	if !ok {
		i = b.nIndex
		b.nIndex++
		b.byKey[o.key] = i
	}
	return i
}

// counterSet is the values of one counter field's series at one time, by
// series index: a series is in the set when its stamp is the set's.
type counterSet struct {
	val   []float64
	stamp []uint64
	at    uint64
	in    []int32 // the series in the set
}

// clear empties the set, giving it a stamp no entry has.
func (c *counterSet) clear(stamp uint64) {
	c.at = stamp
	c.in = c.in[:0]
}

// add adds v to series i's value.
func (c *counterSet) add(i int32, v float64) {
	for int(i) >= len(c.val) {
		c.val = append(c.val, 0)
		c.stamp = append(c.stamp, 0)
	}
	if c.stamp[i] != c.at {
		c.stamp[i], c.val[i] = c.at, 0
		c.in = append(c.in, i)
	}
	c.val[i] += v
}

// get returns series i's value, if it is in the set.
func (c *counterSet) get(i int32) (float64, bool) {
	if int(i) < len(c.stamp) && c.stamp[i] == c.at {
		return c.val[i], true
	}
	return 0, false
}
