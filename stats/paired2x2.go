package stats

// Add counts one unit (a seed) whose outcome was a in arm A and b in arm B.
func (t *Paired2x2) Add(a, b bool) {
	switch {
	case a && b:
		t.Both++
	case a:
		t.AOnly++
	case b:
		t.BOnly++
	default:
		t.Neither++
	}
}
