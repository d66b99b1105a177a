package render

import (
	"math"
	"strconv"

	"github.com/outlast-dev/outlast/internal/jsonnum"
)

// allocate splits budget among series of the given sizes in proportion
// to size, leaving series alone when everything fits.
func allocate(sizes []int, budget int) []int {
	out := make([]int, len(sizes))
	total := 0
	for _, n := range sizes {
		total += n
	}
	if total <= budget {
		copy(out, sizes)
		return out
	}
	for i, n := range sizes {
		out[i] = max(int(int64(budget)*int64(n)/int64(total)), min(n, 8))
	}
	return out
}

// yval returns a data value with 6 significant digits, more than a chart
// or tooltip can show, or "-", ECharts' missing value that breaks the
// line, when v is not finite: NaN must never reach the encoder.
func yval(v float64) any {
	if !finite(v) {
		return "-"
	}
	return round6(v)
}

// round6 rounds v to 6 significant digits, so that its JSON is short, and
// turns -0 into 0.
func round6(v float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	if err != nil || r == 0 {
		return 0 // err only for ±Inf, which callers exclude
	}
	return r
}

// xval rounds a position (an x value, a band's end, an axis bound) to
// jsonnum.SignificantDigits significant digits: as exact as a time axis
// needs, without the last bits a computation may leave differently on
// another CPU. -0 becomes 0. v must be finite.
func xval(v float64) float64 {
	if v == 0 {
		return 0
	}
	return jsonnum.Round(v)
}

// niceRange widens [lo, hi] to multiples of a power of ten between a
// hundredth and a tenth of its span, so that a time axis ends at 90 rather
// than at ECharts' next nice tick (100) or at the raw maximum (89.99955).
func niceRange(lo, hi float64) (float64, float64) {
	span := hi - lo
	if !(span > 0) || !finite(span) {
		return lo, hi
	}
	step := math.Pow(10, math.Floor(math.Log10(span))-1)
	nlo, nhi := math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	// Round off binary noise such as 0.30000000000000004.
	return jsonnum.Round(nlo), jsonnum.Round(nhi)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
