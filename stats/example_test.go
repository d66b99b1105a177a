package stats_test

import (
	"fmt"
	"math"

	"github.com/outlast-dev/outlast/stats"
)

// The paper's §3: of the seeds where exactly one arm degraded, 9 were the
// burst arm and 0 the twin. Under "the burst changes nothing" each such seed
// is a fair coin, so p = 2·2⁻⁹.
func ExampleSignTest() {
	fmt.Printf("p = %.8g\n", stats.SignTest(9, 9))
	// Output: p = 0.00390625
}

// §6: on 7 seeds, one controller recovered 7 runs and another 1, the same
// seed both times: 6 discordant seeds, all one way, p = 2·2⁻⁶.
func ExampleMcNemarExact() {
	var t stats.Paired2x2
	budgeter := []bool{true, true, true, true, true, true, true}
	admission := []bool{false, false, true, false, false, false, false}
	for i := range budgeter {
		t.Add(budgeter[i], admission[i])
	}
	fmt.Printf("%+v\n", t)
	fmt.Printf("p = %.8g\n", stats.McNemarExact(t))
	// Output:
	// {Both:1 AOnly:6 BOnly:0 Neither:0}
	// p = 0.03125
}

// Fisher's tea-tasting table [[3 1] [1 3]]: the hypergeometric weights of
// the tables with its margins are 1, 16, 36, 16, 1 (of 70), so two-sided
// p = 34/70, P(X ≤ 3) = 69/70 and P(X ≥ 3) = 17/70.
func ExampleFisherExact() {
	r := stats.FisherExact(3, 1, 1, 3)
	fmt.Printf("two-sided %.4f, less %.4f, greater %.4f\n", r.TwoSided, r.Less, r.Greater)
	// Output: two-sided 0.4857, less 0.9857, greater 0.2429
}

// End hit ratios of four runs of one engine against three of another: 10
// of the 12 pairs have the first run higher. Without ties the p-value is
// exact: 16 of the C(7, 4) = 35 equally likely rankings are as extreme, so
// p = 16/35.
func ExampleMannWhitneyU() {
	a := []float64{0.81, 0.93, 0.95, 0.97}
	b := []float64{0.12, 0.15, 0.94}
	r := stats.MannWhitneyU(a, b)
	fmt.Printf("U = %g, p = %.4f (%s)\n", r.U, r.P, r.Method)
	// Output: U = 10, p = 0.2286 (exact)
}

// Holm's adjustment of three p-values: sorted, the smallest is multiplied
// by 3, the next by 2, the last by 1, each at least the one before.
func ExampleHolm() {
	fmt.Println(stats.Holm([]float64{0.01, 0.04, 0.03}))
	// Output: [0.03 0.06 0.06]
}

// The median of 10 values and its order-statistic interval at 95%: with
// B ~ Binomial(10, ½), P(B ≤ 1) = 11/1024 ≤ 0.025 < P(B ≤ 2), so the
// interval is [x₍₂₎, x₍₉₎] with coverage 1 − 22/1024.
func ExampleNewMedianCI() {
	ci := stats.NewMedianCI([]float64{7, 1, 9, 3, 5, 2, 10, 4, 8, 6}, 0.95)
	fmt.Printf("median %g [%g, %g], coverage %.4f\n", ci.Median, ci.Lo, ci.Hi, ci.Coverage)
	// Output: median 5.5 [2, 9], coverage 0.9785
}

// Recovery times in minutes, +∞ for a run that did not recover: such runs
// rank slowest, so the median of four runs, two of them not recovered, is
// not recovered either.
func ExampleMedian() {
	nr := math.Inf(1)
	fmt.Println(stats.Median([]float64{3, 5, 4}), stats.Median([]float64{3, nr, 5, nr}))
	// Output: 4 +Inf
}

// Two fitted slopes with their standard errors: 1 ± 0.3 and 2 ± 0.4 differ
// by 1 with standard error 0.5, so z = 2.
func ExampleZTest() {
	r := stats.ZTest(1, 0.3, 2, 0.4, 0.95)
	fmt.Printf("diff %g ± %g, 95%% [%.3f, %.3f], p = %.4f\n", r.Diff, r.SE, r.Lo, r.Hi, r.P)
	// Output: diff 1 ± 0.5, 95% [0.020, 1.980], p = 0.0455
}
