package promseries

import (
	"math"
	"strconv"
)

// ParseUnix parses non-negative Unix seconds such as "1761566412.250"
// exactly to nanoseconds, falling back to a float for exponent forms.
func ParseUnix(b []byte) (sec, nsec int64, ok bool) {
	if sec, nsec, n := UnixPrefix(b); n == len(b) && n > 0 {
		return sec, nsec, true
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

// UnixPrefix parses the plain decimal Unix seconds that b begins with, at
// most 12 integer digits and a fraction ("1761566412", "1761566412.25";
// digits past nanoseconds count for nothing), returning their length, 0
// when b does not begin so or the number goes on in another form (an
// exponent, a second point).
func UnixPrefix(b []byte) (sec, nsec int64, n int) {
	i := 0
	for i < len(b) && b[i]-'0' <= 9 {
		sec = sec*10 + int64(b[i]-'0')
		i++
	}
	if i == 0 || i > 12 {
		return 0, 0, 0
	}
	if i < len(b) && b[i] == '.' {
		j, k := i+1, 0
		for ; j < len(b) && b[j]-'0' <= 9; j++ {
			if k < 9 {
				nsec = nsec*10 + int64(b[j]-'0')
				k++
			}
		}
		if j == i+1 {
			return 0, 0, 0
		}
		nsec *= pow10[9-k]
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E' || b[i] == '.') {
		return 0, 0, 0
	}
	return sec, nsec, i
}

var pow10 = [10]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// UnixNano returns sec+nsec in nanoseconds.
func UnixNano(sec, nsec int64) int64 { return sec*1e9 + nsec }
