package render

import "math"

// MaxChartPoints is the most data points WriteHTML puts into one chart;
// larger series are downsampled with Downsample. Browsers slow down and
// HTML files grow past use well before 10^6 points.
const MaxChartPoints = 100_000

// Downsample returns at most n points of the series (x, y), chosen
// deterministically with Largest-Triangle-Three-Buckets so that the
// drawn shape is kept. x must be non-decreasing. Non-finite y values are
// gaps: each finite run is downsampled on its own, in proportion to its
// length, and a single NaN point is kept between runs so that the gap
// survives. If the series already fits, it is returned unchanged. n below
// 8 is raised to 8.
func Downsample(x, y []float64, n int) (xs, ys []float64) {
	n = max(n, 8)
	if len(x) <= n {
		return x, y
	}
	type run struct{ lo, hi int } // finite y in [lo, hi)
	var runs []run
	finiteN := 0
	for i := 0; i < len(y); {
		if !finite(y[i]) {
			i++
			continue
		}
		j := i
		for j < len(y) && finite(y[j]) {
			j++
		}
		runs = append(runs, run{i, j})
		finiteN += j - i
		i = j
	}
	if finiteN == 0 {
		return nil, nil
	}
	// Many short runs cannot be thinned run by run within n; bucket by
	// index instead, which bounds the output at n whatever the gaps.
	if len(runs) > n/4 {
		return minMaxBuckets(x, y, n)
	}
	gaps := len(runs) - 1
	budget := n - gaps - 3*len(runs) // reserve room for minimum run sizes
	xs = make([]float64, 0, n)
	ys = make([]float64, 0, n)
	for k, r := range runs {
		if k > 0 {
			// Mark the gap at the first missing x after the previous run.
			xs = append(xs, x[runs[k-1].hi])
			ys = append(ys, math.NaN())
		}
		m := r.hi - r.lo
		keep := max(budget*m/finiteN, min(m, 3))
		ix := lttb(x[r.lo:r.hi], y[r.lo:r.hi], keep)
		for _, i := range ix {
			xs = append(xs, x[r.lo+i])
			ys = append(ys, y[r.lo+i])
		}
	}
	return xs, ys
}

// lttb returns the indexes of at most n points of (x, y) chosen by
// Largest-Triangle-Three-Buckets (Steinarsson 2013), always keeping the
// first and last point. All y must be finite.
func lttb(x, y []float64, n int) []int {
	m := len(x)
	if n >= m || n < 3 {
		if n >= m {
			out := make([]int, m)
			for i := range out {
				out[i] = i
			}
			return out
		}
		if n <= 1 {
			return []int{0}
		}
		return []int{0, m - 1}
	}
	out := make([]int, 0, n)
	out = append(out, 0)
	every := float64(m-2) / float64(n-2)
	a := 0
	for i := 0; i < n-2; i++ {
		// Average of the next bucket, the third corner of the triangle.
		lo := int(float64(i+1)*every) + 1
		hi := min(int(float64(i+2)*every)+1, m)
		var ax, ay float64
		for j := lo; j < hi; j++ {
			ax += x[j]
			ay += y[j]
		}
		cnt := float64(hi - lo)
		ax /= cnt
		ay /= cnt
		// Pick the point of this bucket with the largest triangle.
		lo = int(float64(i)*every) + 1
		hi = int(float64(i+1)*every) + 1
		best, bestArea := lo, -1.0
		for j := lo; j < hi; j++ {
			area := math.Abs((x[a]-ax)*(y[j]-y[a]) - (x[a]-x[j])*(ay-y[a]))
			if area > bestArea { // strict: ties keep the earliest point
				best, bestArea = j, area
			}
		}
		out = append(out, best)
		a = best
	}
	return append(out, m-1)
}

// minMaxBuckets keeps, in n/2 buckets of consecutive indexes, the minimum
// and maximum finite point of each bucket in index order, and one NaN
// point for every bucket without any finite value that follows data.
func minMaxBuckets(x, y []float64, n int) (xs, ys []float64) {
	b := n / 2
	m := len(x)
	xs = make([]float64, 0, n)
	ys = make([]float64, 0, n)
	lastGap := true // no gap before the first data
	for i := 0; i < b; i++ {
		lo, hi := i*m/b, (i+1)*m/b
		mn, mx := -1, -1
		for j := lo; j < hi; j++ {
			if !finite(y[j]) {
				continue
			}
			if mn < 0 || y[j] < y[mn] {
				mn = j
			}
			if mx < 0 || y[j] > y[mx] {
				mx = j
			}
		}
		if mn < 0 {
			if !lastGap {
				xs = append(xs, x[lo])
				ys = append(ys, math.NaN())
				lastGap = true
			}
			continue
		}
		lastGap = false
		first, second := min(mn, mx), max(mn, mx)
		xs = append(xs, x[first])
		ys = append(ys, y[first])
		if second != first {
			xs = append(xs, x[second])
			ys = append(ys, y[second])
		}
	}
	return xs, ys
}
