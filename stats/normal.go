package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// zCritical is the two-sided critical value of the standard normal at a
// confidence level, Φ⁻¹(1 − (1 − confidence)/2): 1.959964 at 0.95.
func zCritical(confidence float64) float64 {
	return distuv.UnitNormal.Quantile(1 - (1-confidence)/2)
}

// NormalInterval is the normal confidence interval v ± z·se of an estimate
// with standard error se, z the two-sided critical value at confidence.
// NaN bounds when se is NaN.
func NormalInterval(v, se, confidence float64) (lo, hi float64) {
	if math.IsNaN(se) {
		return math.NaN(), math.NaN()
	}
	z := zCritical(confidence)
	return v - z*se, v + z*se
}

// ZTestResult compares two independent estimates.
type ZTestResult struct {
	// Diff is b − a and SE its standard error √(se_a² + se_b²).
	Diff, SE float64
	// Lo and Hi are the normal interval Diff ± z·SE; NaN when SE is not
	// positive.
	Lo, Hi float64
	// P is the two-sided p-value erfc(|Diff/SE|/√2); NaN when SE is not
	// positive.
	P float64
}

// ZTest tests the difference of two independent, approximately normal
// estimates a ± seA and b ± seB (two regression fits, say) and gives its
// interval at the confidence level. a = 1 ± 0.3 against b = 2 ± 0.4 differ
// by 1 ± 0.5, z = 2, p = erfc(√2) = 0.0455.
func ZTest(a, seA, b, seB, confidence float64) ZTestResult {
	nan := math.NaN()
	r := ZTestResult{Diff: b - a, Lo: nan, Hi: nan, P: nan}
	r.SE = math.Sqrt(seA*seA + seB*seB)
	if r.SE > 0 {
		z := zCritical(confidence)
		r.Lo, r.Hi = r.Diff-z*r.SE, r.Diff+z*r.SE
		r.P = math.Erfc(math.Abs(r.Diff/r.SE) / math.Sqrt2)
	}
	return r
}
