package turntimes

import (
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// TestOwnCopiesTimes checks that a turn keeps its times after the buffer
// its pointers pointed into is reused, that absent times stay absent, and
// that turns never share a slot, across more turns than one allocation.
func TestOwnCopiesTimes(t *testing.T) {
	var s Slab
	buf := make([]float64, 3) // the reader's buffer, reused from record to record
	turns := make([]schema.Turn, 3000)
	for i := range turns {
		buf[0], buf[1], buf[2] = float64(i), float64(i)+0.5, float64(i)+0.75
		tr := &turns[i]
		switch i % 3 {
		case 0: // all three times
			tr.ReadyS, tr.SentS, tr.FirstTokenS = &buf[0], &buf[1], &buf[2]
		case 1: // sent only
			tr.SentS = &buf[1]
		case 2: // none
		}
		s.Own(tr)
	}
	buf[0], buf[1], buf[2] = -1, -1, -1
	for i := range turns {
		tr := &turns[i]
		switch i % 3 {
		case 0:
			if tr.ReadyS == nil || tr.SentS == nil || tr.FirstTokenS == nil ||
				*tr.ReadyS != float64(i) || *tr.SentS != float64(i)+0.5 || *tr.FirstTokenS != float64(i)+0.75 {
				t.Fatalf("turn %d: times not kept: %v %v %v", i, tr.ReadyS, tr.SentS, tr.FirstTokenS)
			}
		case 1:
			if tr.ReadyS != nil || tr.FirstTokenS != nil || tr.SentS == nil || *tr.SentS != float64(i)+0.5 {
				t.Fatalf("turn %d: want sent only, got %v %v %v", i, tr.ReadyS, tr.SentS, tr.FirstTokenS)
			}
		case 2:
			if tr.ReadyS != nil || tr.SentS != nil || tr.FirstTokenS != nil {
				t.Fatalf("turn %d: times appeared from nowhere", i)
			}
		}
	}
}
