package stats

import (
	"math"
	"slices"
	"sort"
)

// sortFloats sorts v, which holds no NaN, ascending. A run's latencies
// are thousands of numbers per measure and per run: a least-significant-
// digit radix sort on their bits, a byte at a time, passing over the bytes
// that every value shares (the sign and most of the exponent), takes a
// third of the time of a comparison sort there. Short slices are sorted by
// comparison.
func sortFloats(v []float64) {
	const radixFrom = 256
	if len(v) < radixFrom {
		slices.Sort(v)
		return
	}
	// The bits of a float in an order of unsigned integers that is the
	// floats' order: flip the sign bit of a positive float, every bit of a
	// negative one. −0 sorts just before +0, which equals it.
	keys := make([]uint64, len(v))
	var all, any uint64 = ^uint64(0), 0
	for i, f := range v {
		b := math.Float64bits(f)
		if b>>63 == 1 {
			b = ^b
		} else {
			b |= 1 << 63
		}
		keys[i] = b
		all &= b
		any |= b
	}
	buf := make([]uint64, len(v))
	for shift := uint(0); shift < 64; shift += 8 {
		if (all>>shift)&0xff == (any>>shift)&0xff {
			continue // every key has this byte
		}
		var count [257]int
		for _, k := range keys {
			count[(k>>shift)&0xff+1]++
		}
		for d := 1; d < 257; d++ {
			count[d] += count[d-1]
		}
		for _, k := range keys {
			d := (k >> shift) & 0xff
			buf[count[d]] = k
			count[d]++
		}
		keys, buf = buf, keys
	}
	for i, b := range keys {
		if b>>63 == 1 {
			b &^= 1 << 63
		} else {
			b = ^b
		}
		v[i] = math.Float64frombits(b)
	}
}

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
