package promseries

import (
	"math"
	"strconv"
)

// ParseUnix parses non-negative Unix seconds such as "1761566412.250"
// exactly to nanoseconds, falling back to a float for exponent forms.
func ParseUnix(b []byte) (sec, nsec int64, ok bool) {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i > 0 && i <= 12 {
		for _, c := range b[:i] {
			sec = sec*10 + int64(c-'0')
		}
		if i == len(b) {
			return sec, 0, true
		}
		if b[i] == '.' {
			scale := int64(1e8)
			j := i + 1
			for ; j < len(b) && b[j] >= '0' && b[j] <= '9'; j++ {
				nsec += int64(b[j]-'0') * scale
				scale /= 10 // digits past nanoseconds add 0
			}
			if j == len(b) && j > i+1 {
				return sec, nsec, true
			}
		}
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f > 1e12 {
		return 0, 0, false
	}
	s := math.Floor(f)
	sec, nsec = int64(s), int64(math.Round((f-s)*1e9))
	if nsec >= 1e9 {
		sec, nsec = sec+1, nsec-1e9
	}
	return sec, nsec, true
}

// UnixNano returns sec+nsec in nanoseconds.
func UnixNano(sec, nsec int64) int64 { return sec*1e9 + nsec }
