package stats

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/combin"
)

// BinomialLower is P(X ≤ k) for X ~ Binomial(n, p).
func BinomialLower(k, n int, p float64) float64 {
	switch {
	case k < 0:
		return 0
	case k >= n:
		return 1
	}
	return mathext.RegIncBeta(float64(n-k), float64(k+1), 1-p)
}

// BinomialUpper is P(X ≥ k) for X ~ Binomial(n, p), computed directly as
// the regularized incomplete beta I_p(k, n−k+1); gonum's
// distuv.Binomial.Survival is 1 − CDF and cancels in the far tail.
func BinomialUpper(k, n int, p float64) float64 {
	switch {
	case k <= 0:
		return 1
	case k > n:
		return 0
	}
	return mathext.RegIncBeta(float64(k), float64(n-k+1), p)
}

// SignTest is the exact two-sided sign test of k successes among n
// non-tied pairs under H0: P(success) = ½: min(1, 2·min(P(X ≤ k), P(X ≥ k))),
// as R's binom.test(k, n). §3: 9 pairs where only the burst run degraded and
// 0 where only the twin did give p = 2·2⁻⁹ = 0.00390625. NaN when n is 0.
func SignTest(k, n int) float64 {
	if n <= 0 || k < 0 || k > n {
		return math.NaN()
	}
	return math.Min(1, 2*math.Min(BinomialLower(k, n, 0.5), BinomialUpper(k, n, 0.5)))
}

// Paired2x2 is a paired binary outcome over the same units (seeds, pairs):
// both arms succeeded, only A, only B, neither.
type Paired2x2 struct {
	Both    int
	AOnly   int
	BOnly   int
	Neither int
}

// McNemarExact is the exact McNemar test of a paired 2×2 table: the
// two-sided binomial test of AOnly among the AOnly + BOnly discordant pairs
// (statsmodels mcnemar(exact=True)). §6: one controller recovering 7/7 and
// another 1/7 on the same seeds (AOnly 6, BOnly 0) gives p = 2·2⁻⁶ =
// 0.03125. 1 when there is no discordant pair.
func McNemarExact(t Paired2x2) float64 {
	n := t.AOnly + t.BOnly
	if n == 0 {
		return 1
	}
	return SignTest(t.AOnly, n)
}

// FisherResult holds Fisher's exact test of a 2×2 table.
type FisherResult struct {
	// TwoSided sums the probabilities of all tables, with the observed
	// margins, that are no more likely than the observed one (R's
	// fisher.test, relative tolerance 1e-7).
	TwoSided float64
	// Less is P(X ≤ a) and Greater P(X ≥ a), X the top-left cell.
	Less    float64
	Greater float64
}

// FisherExact tests two independent proportions, a/(a+b) against
// c/(c+d), with the table [[a b] [c d]] (rows: groups; columns:
// success, failure). Tea tasting [[3 1] [1 3]]: two-sided 0.4857, less
// 0.9857, greater 0.2429. NaN fields for negative cells.
func FisherExact(a, b, c, d int) FisherResult {
	nan := math.NaN()
	if a < 0 || b < 0 || c < 0 || d < 0 {
		return FisherResult{nan, nan, nan}
	}
	r1, c1, n := a+b, a+c, a+b+c+d
	lo := max(0, c1-(n-r1))
	hi := min(r1, c1)
	logP := func(x int) float64 {
		return combin.LogGeneralizedBinomial(float64(r1), float64(x)) +
			combin.LogGeneralizedBinomial(float64(n-r1), float64(c1-x)) -
			combin.LogGeneralizedBinomial(float64(n), float64(c1))
	}
	pObs := math.Exp(logP(a))
	var two, less, greater float64
	for x := lo; x <= hi; x++ {
		px := math.Exp(logP(x))
		if px <= pObs*(1+1e-7) {
			two += px
		}
		if x <= a {
			less += px
		}
		if x >= a {
			greater += px
		}
	}
	return FisherResult{TwoSided: math.Min(1, two), Less: math.Min(1, less), Greater: math.Min(1, greater)}
}

// Wilson is the Wilson score interval for k successes of n at the given
// confidence (e.g. 0.95). NaN bounds when n is 0.
func Wilson(k, n int, confidence float64) (lo, hi float64) {
	if n <= 0 || k < 0 || k > n || !(confidence > 0 && confidence < 1) {
		return math.NaN(), math.NaN()
	}
	z := zCritical(confidence)
	nf, p := float64(n), float64(k)/float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return math.Max(0, mid-half), math.Min(1, mid+half)
}

// MedianCI is a distribution-free confidence interval for a median from
// order statistics, as benchstat's (go-moremath QuantileCI): with
// B ~ Binomial(n, ½), the largest j with P(B ≤ j−1) ≤ (1−confidence)/2
// gives [x_(j), x_(n−j+1)] (1-based), whose coverage 1 − 2·P(B ≤ j−1) is at
// least confidence. ok is false (NaN bounds) when the sample is too small to
// reach the confidence (fewer than 6 values at 0.95).
type MedianCI struct {
	Median   float64
	Lo       float64
	Hi       float64
	Coverage float64
	N        int
	OK       bool
}

// NewMedianCI computes the median (Median) and its order-statistic
// confidence interval. The input is not modified; NaN values are an error
// of the caller and make every field NaN.
func NewMedianCI(x []float64, confidence float64) MedianCI {
	nan := math.NaN()
	ci := MedianCI{Median: nan, Lo: nan, Hi: nan, Coverage: nan, N: len(x)}
	s := append([]float64(nil), x...)
	for _, v := range s {
		if math.IsNaN(v) {
			return ci
		}
	}
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return ci
	}
	ci.Median = medianSorted(s)
	alpha := (1 - confidence) / 2
	j := 0
	for c := 1; 2*c <= n+1; c++ {
		if BinomialLower(c-1, n, 0.5) <= alpha {
			j = c
		} else {
			break
		}
	}
	if j == 0 {
		return ci
	}
	ci.Lo, ci.Hi = s[j-1], s[n-j]
	ci.Coverage = 1 - 2*BinomialLower(j-1, n, 0.5)
	ci.OK = true
	return ci
}

// MannWhitneyMethod says how a Mann-Whitney p-value was computed.
type MannWhitneyMethod string

// Mann-Whitney methods.
const (
	MannWhitneyExact  MannWhitneyMethod = "exact"
	MannWhitneyNormal MannWhitneyMethod = "normal"
)

// MannWhitneyResult is a two-sided Mann-Whitney U test.
type MannWhitneyResult struct {
	// U is the statistic of x: the number of pairs (x_i, y_j) with
	// x_i > y_j, ties counting ½ (R's W).
	U      float64
	P      float64
	N1     int
	N2     int
	Method MannWhitneyMethod
}

// MannWhitneyExactLimit: samples both smaller than this and without ties get
// the exact distribution (as R's wilcox.test).
const MannWhitneyExactLimit = 50

// MannWhitneyU tests whether x and y come from the same distribution. When
// both samples have fewer than 50 values and there are no ties, the p-value
// is exact: 2·min(P(U ≤ u), P(U ≥ u)), capped at 1, from the distribution of
// U under H0 counted by recursion. Otherwise it is the normal approximation
// with the tie correction of the variance,
// σ² = n1·n2/12·(n+1 − Σ(t³−t)/(n(n−1))), and a continuity correction of ½
// toward the mean, as R's wilcox.test(exact=FALSE, correct=TRUE). NaN P
// when either sample is empty (or, by normal approximation, all values tie).
func MannWhitneyU(x, y []float64) MannWhitneyResult {
	n1, n2 := len(x), len(y)
	r := MannWhitneyResult{U: math.NaN(), P: math.NaN(), N1: n1, N2: n2}
	if n1 == 0 || n2 == 0 {
		return r
	}
	type obs struct {
		v   float64
		inX bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	n := n1 + n2
	var rankSumX, tieTerm float64
	ties := false
	for i := 0; i < n; {
		j := i
		for j < n && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // mean of ranks i+1..j
		for k := i; k < j; k++ {
			if all[k].inX {
				rankSumX += rank
			}
		}
		if t := float64(j - i); t > 1 {
			ties = true
			tieTerm += t*t*t - t
		}
		i = j
	}
	u := rankSumX - float64(n1*(n1+1))/2
	r.U = u
	mean := float64(n1*n2) / 2
	if !ties && n1 < MannWhitneyExactLimit && n2 < MannWhitneyExactLimit {
		r.Method = MannWhitneyExact
		cdf := mannWhitneyCDF(n1, n2)
		k := int(math.Round(u))
		lower := cdf[k]
		upper := 1.0
		if k > 0 {
			upper = 1 - cdf[k-1]
		}
		r.P = math.Min(1, 2*math.Min(lower, upper))
		return r
	}
	r.Method = MannWhitneyNormal
	nf := float64(n)
	sigma := math.Sqrt(float64(n1*n2) / 12 * ((nf + 1) - tieTerm/(nf*(nf-1))))
	if !(sigma > 0) {
		return r
	}
	d := u - mean
	corr := 0.0
	switch {
	case d > 0:
		corr = 0.5
	case d < 0:
		corr = -0.5
	}
	z := (d - corr) / sigma
	r.P = math.Min(1, math.Erfc(math.Abs(z)/math.Sqrt2))
	return r
}

// mannWhitneyCDF returns P(U ≤ u) for u = 0..n1·n2 under H0 without ties,
// from the count of arrangements f(m, n, u) = f(m−1, n, u−n) + f(m, n−1, u)
// normalized as probabilities (so the counts cannot overflow).
func mannWhitneyCDF(n1, n2 int) []float64 {
	// dp[j][u]: probability that U = u for samples of sizes (i, j),
	// built up over i; P_{i,j}(u) = i/(i+j)·P_{i−1,j}(u−j) + j/(i+j)·P_{i,j−1}(u).
	maxU := n1 * n2
	prev := make([][]float64, n2+1) // i−1
	cur := make([][]float64, n2+1)
	for j := 0; j <= n2; j++ {
		prev[j] = make([]float64, maxU+1)
		cur[j] = make([]float64, maxU+1)
		prev[j][0] = 1 // i = 0: U = 0
	}
	for i := 1; i <= n1; i++ {
		for j := 0; j <= n2; j++ {
			c := cur[j]
			for u := range c {
				c[u] = 0
			}
			if j == 0 {
				c[0] = 1
				continue
			}
			wi, wj := float64(i)/float64(i+j), float64(j)/float64(i+j)
			for u := 0; u <= i*j; u++ {
				var v float64
				if u-j >= 0 {
					v += wi * prev[j][u-j]
				}
				v += wj * cur[j-1][u]
				c[u] = v
			}
		}
		prev, cur = cur, prev
	}
	pdf := prev[n2]
	cdf := make([]float64, maxU+1)
	var s float64
	for u := 0; u <= maxU; u++ {
		s += pdf[u]
		cdf[u] = math.Min(1, s)
	}
	return cdf
}

// Holm returns Holm's step-down adjusted p-values for a family of tests, in
// the input order: with the m non-NaN p-values sorted ascending,
// p̃_(i) = max_{j ≤ i} min(1, (m−j+1)·p_(j)). NaN inputs stay NaN and do
// not count toward m. Reject at level α where the adjusted p ≤ α.
func Holm(p []float64) []float64 {
	adj := make([]float64, len(p))
	idx := make([]int, 0, len(p))
	for i, v := range p {
		adj[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	m := len(idx)
	run := 0.0
	for j, i := range idx {
		v := math.Min(1, float64(m-j)*p[i])
		run = math.Max(run, v)
		adj[i] = run
	}
	return adj
}

// PairedSign compares paired measurements (e.g. one value per seed in two
// arms) with the sign test, as the compare command reports them: pairs,
// ties, wins of each side, the median difference b − a with its
// order-statistic interval, and the exact two-sided p.
type PairedSign struct {
	// Pairs with both values present; Missing pairs had a NaN and are left
	// out; Ties had a == b.
	Pairs   int
	Missing int
	Ties    int
	// AWins counts pairs with a > b, BWins pairs with b > a.
	AWins int
	BWins int
	// P is SignTest(AWins, AWins + BWins); NaN without untied pairs.
	P float64
	// Diff is the median of b − a over the pairs with its confidence
	// interval (NewMedianCI).
	Diff MedianCI
}

// NewPairedSign runs the paired sign test of a against b at the given
// confidence for the median difference. ok is false when the slices differ
// in length.
func NewPairedSign(a, b []float64, confidence float64) (ps PairedSign, ok bool) {
	if len(a) != len(b) {
		return PairedSign{P: math.NaN(), Diff: NewMedianCI(nil, confidence)}, false
	}
	var diffs []float64
	for i := range a {
		if math.IsNaN(a[i]) || math.IsNaN(b[i]) {
			ps.Missing++
			continue
		}
		ps.Pairs++
		diffs = append(diffs, b[i]-a[i])
		switch {
		case a[i] > b[i]:
			ps.AWins++
		case b[i] > a[i]:
			ps.BWins++
		default:
			ps.Ties++
		}
	}
	ps.P = SignTest(ps.AWins, ps.AWins+ps.BWins)
	ps.Diff = NewMedianCI(diffs, confidence)
	return ps, true
}

// Add counts one unit (a seed) whose outcome was a in arm A and b in arm B.
func (t *Paired2x2) Add(a, b bool) {
	switch {
	case a && b:
		t.Both++
	case a:
		t.AOnly++
	case b:
		t.BOnly++
	default:
		t.Neither++
	}
}

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
