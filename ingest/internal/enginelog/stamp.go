package enginelog

// Stamp is a wall-clock time as a log line prints it, in the log's zone;
// the parts a stamp does not print are 0 (vLLM's has no year).
type Stamp struct {
	Year, Mon, Day, Hour, Min, Sec, Nsec int
}

// Date parses "YYYY-MM-DD" at the start of b into st, reporting whether b
// begins with a date.
func (st *Stamp) Date(b []byte) bool {
	if len(b) < 10 || b[4] != '-' {
		return false
	}
	c, ok1 := Two(b[0:2])
	y, ok2 := Two(b[2:4])
	if !ok1 || !ok2 || !st.MonthDay(b[5:10]) {
		return false
	}
	st.Year = c*100 + y
	return true
}

// MonthDay parses "MM-DD" at the start of b into st.
func (st *Stamp) MonthDay(b []byte) bool {
	if len(b) < 5 || b[2] != '-' {
		return false
	}
	m, ok1 := Two(b[0:2])
	d, ok2 := Two(b[3:5])
	if !ok1 || !ok2 || m < 1 || m > 12 || d < 1 || d > 31 {
		return false
	}
	st.Mon, st.Day = m, d
	return true
}

// TimeOfDay parses "HH:MM:SS" at the start of b into st; a leap second
// passes.
func (st *Stamp) TimeOfDay(b []byte) bool {
	if len(b) < 8 || b[2] != ':' || b[5] != ':' {
		return false
	}
	h, ok1 := Two(b[0:2])
	m, ok2 := Two(b[3:5])
	s, ok3 := Two(b[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || s > 60 {
		return false
	}
	st.Hour, st.Min, st.Sec = h, m, s
	return true
}

// Fraction parses the digits of a fraction of a second at the start of b
// (after the '.') into st, to the nanosecond, and returns how many there
// are; 0 means none.
func (st *Stamp) Fraction(b []byte) int {
	n, scale := 0, int(1e9)
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		if scale > 1 {
			scale /= 10
			st.Nsec += int(b[n]-'0') * scale
		}
		n++
	}
	return n
}
