package stats

import (
	"math"
	"sort"
)

// Median is the median of x (R type 7: the middle value, or the mean of the
// two middle values) where +∞ may stand for an outcome beyond every value,
// such as a run that did not recover: the mean of two middle values is +∞
// when the larger is, so that such runs rank slowest and tie with each
// other. NaN for an empty sample. x is not modified and must not hold NaN.
func Median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return medianSorted(s)
}

// medianSorted is Median of a sorted, non-empty sample.
func medianSorted(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	a, b := s[n/2-1], s[n/2]
	if math.IsInf(b, 1) {
		return b
	}
	return (a + b) / 2
}
