package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// BinomialCI is a share k/n with its exact (Clopper–Pearson) confidence
// interval [Lo, Hi] at level Level, two-sided; the one-sided bounds at
// the same level are Lower and Upper.
type BinomialCI struct {
	K, N   int
	Share  float64
	Lo, Hi float64
	Level  float64
}

// ClopperPearson returns k of n with its exact two-sided interval at level
// (Clopper and Pearson, 1934): the bounds are the Beta quantiles
// B(α/2; k, n−k+1) and B(1−α/2; k+1, n−k), 0 and 1 at k = 0 and k = n. It
// covers the true share with probability at least level, whatever it is.
func ClopperPearson(k, n int, level float64) BinomialCI {
	iv := BinomialCI{K: k, N: n, Share: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Level: level}
	if n <= 0 || k < 0 || k > n {
		return iv
	}
	a := (1 - level) / 2
	iv.Share, iv.Lo, iv.Hi = float64(k)/float64(n), binomialLower(k, n, a), binomialUpper(k, n, a)
	return iv
}

// Lower is the one-sided lower bound at the interval's level: the share is
// at least this with that confidence.
func (iv BinomialCI) Lower() float64 { return binomialLower(iv.K, iv.N, 1-iv.Level) }

// Upper is the one-sided upper bound at the interval's level.
func (iv BinomialCI) Upper() float64 { return binomialUpper(iv.K, iv.N, 1-iv.Level) }

// lowerBound is the Clopper–Pearson bound below which the share lies with
// probability alpha.
func binomialLower(k, n int, alpha float64) float64 {
	switch {
	case n <= 0:
		return math.NaN()
	case k <= 0:
		return 0
	}
	return distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(alpha)
}

// upperBound is the Clopper–Pearson bound above which the share lies with
// probability alpha.
func binomialUpper(k, n int, alpha float64) float64 {
	switch {
	case n <= 0:
		return math.NaN()
	case k >= n:
		return 1
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - alpha)
}
