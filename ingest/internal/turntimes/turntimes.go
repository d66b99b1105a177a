// Package turntimes keeps the optional times of turns that outlive the
// record they were read from: a reader reuses its buffers once it moves
// on, so a collector that keeps or passes on a turn moves the times the
// turn points to into a slab of its own.
package turntimes

import "github.com/outlast-dev/outlast/schema"

// Slab holds turns' optional times, 1024 turns to an allocation. The zero
// Slab is ready to use.
type Slab struct {
	times [][3]float64
}

// Own moves t's optional times (ready, sent, first token) into the slab
// and points t at them; a turn without any costs nothing.
func (s *Slab) Own(t *schema.Turn) {
	if t.ReadyS == nil && t.SentS == nil && t.FirstTokenS == nil {
		return
	}
	if len(s.times) == cap(s.times) {
		s.times = make([][3]float64, 0, 1024)
	}
	s.times = s.times[:len(s.times)+1]
	box := &s.times[len(s.times)-1]
	for i, p := range []**float64{&t.ReadyS, &t.SentS, &t.FirstTokenS} {
		if *p != nil {
			box[i] = **p
			*p = &box[i]
		}
	}
}
