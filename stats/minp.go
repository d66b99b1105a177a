package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/combin"
)

// The smallest p-value an exact test can give with a number of units: when
// it exceeds the significance level, no outcome of that many runs could
// show a difference, and "not significant" says nothing about one.

// SignTestMinP is the smallest two-sided p of the sign test, and of exact
// McNemar, on n untied pairs: SignTest(0, n) = min(1, 2·2⁻ⁿ), 0.0078125 for
// 8 pairs. NaN when n is 0.
func SignTestMinP(n int) float64 { return SignTest(0, n) }

// FisherMinP is the smallest two-sided p of Fisher's exact test between
// groups of n1 and n2 units: that of the more extreme of the two tables in
// which one group has every success and the other none, 2/C(n1+n2, n1)
// when n1 = n2 (0.0001554 for 8 and 8).
func FisherMinP(n1, n2 int) float64 {
	return math.Min(FisherExact(n1, 0, 0, n2).TwoSided, FisherExact(0, n1, n2, 0).TwoSided)
}

// MannWhitneyMinP is the smallest two-sided exact p of the Mann-Whitney U
// test between samples of n1 and n2 values, every value of one below every
// value of the other: 2/C(n1+n2, n1), at most 1 (0.5 for 3 and 1).
func MannWhitneyMinP(n1, n2 int) float64 {
	return math.Min(1, 2*math.Exp(-combin.LogGeneralizedBinomial(float64(n1+n2), float64(n1))))
}
