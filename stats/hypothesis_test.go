package stats

import (
	"math"
	"testing"
)

func TestSignTest(t *testing.T) {
	tests := []struct {
		k, n int
		want float64
	}{
		{9, 9, 0.00390625}, // §3: 9 burst-only vs 0 twin-only pairs, 2·2⁻⁹
		{0, 9, 0.00390625},
		{1, 10, 0.021484375}, // 2·11/1024; R binom.test(1, 10) = 0.02148
		{5, 10, 1},
		{3, 4, 0.625}, // 2·(4+1)/16
		{0, 1, 1},
	}
	for _, tc := range tests {
		checkNear(t, "SignTest", SignTest(tc.k, tc.n), tc.want, 1e-12)
	}
	if !math.IsNaN(SignTest(0, 0)) {
		t.Error("no pairs should give NaN")
	}
}

func TestBinomialUpperFarTail(t *testing.T) {
	// P(X ≥ 900 | n=1000, p=½) = 6.7017e-162 (library notes, big.Rat);
	// 1 − CDF would give ~1e-16.
	got := BinomialUpper(900, 1000, 0.5)
	if math.Abs(got/6.7017e-162-1) > 1e-4 {
		t.Errorf("upper tail %g", got)
	}
	checkNear(t, "P(X≥0)", BinomialUpper(0, 5, 0.3), 1, 0)
	checkNear(t, "P(X≥6 | n=5)", BinomialUpper(6, 5, 0.3), 0, 0)
	checkNear(t, "P(X≥5 | n=5, p=.3)", BinomialUpper(5, 5, 0.3), 0.00243, 1e-15)
	checkNear(t, "P(X≤0 | n=5, p=.3)", BinomialLower(0, 5, 0.3), 0.16807, 1e-15)
}

func TestMcNemarExact(t *testing.T) {
	// §6: on 7 seeds one controller recovered 7/7 and another 1/7: 6
	// discordant pairs all one way, p = 2·2⁻⁶.
	checkNear(t, "7/7 vs 1/7", McNemarExact(Paired2x2{Both: 1, AOnly: 6}), 0.03125, 1e-12)
	checkNear(t, "symmetric", McNemarExact(Paired2x2{Both: 1, BOnly: 6}), 0.03125, 1e-12)
	checkNear(t, "no discordant pairs", McNemarExact(Paired2x2{Both: 3, Neither: 4}), 1, 0)
}

func TestFisherExact(t *testing.T) {
	// Tea tasting [[3 1] [1 3]]: hypergeometric weights 1,16,36,16,1 of 70.
	r := FisherExact(3, 1, 1, 3)
	checkNear(t, "two-sided", r.TwoSided, 34.0/70, 1e-12)
	checkNear(t, "less", r.Less, 69.0/70, 1e-12)
	checkNear(t, "greater", r.Greater, 17.0/70, 1e-12)
	// 6/6 against 2/8: tables with a = 6 of margins r1 = 6, c1 = 8, n = 14:
	// P(a=6) = C(6,6)C(8,2)/C(14,8) = 28/3003; only a = 6 is as extreme
	// (a=0 impossible since c1 - (n - r1) = 0 → P(a=0) = C(8,8)/3003 = 1/3003).
	r = FisherExact(6, 0, 2, 6)
	checkNear(t, "6/6 vs 2/8 two-sided", r.TwoSided, 29.0/3003, 1e-12)
	checkNear(t, "6/6 vs 2/8 greater", r.Greater, 28.0/3003, 1e-12)
	if !math.IsNaN(FisherExact(-1, 0, 0, 0).TwoSided) {
		t.Error("negative cell should give NaN")
	}
}

func TestWilson(t *testing.T) {
	tests := []struct {
		k, n   int
		lo, hi float64
	}{
		{8, 10, 0.4902, 0.9433},
		{0, 10, 0, 0.2775},
		{10, 10, 0.7225, 1},
	}
	for _, tc := range tests {
		lo, hi := Wilson(tc.k, tc.n, 0.95)
		checkNear(t, "lo", lo, tc.lo, 1e-4)
		checkNear(t, "hi", hi, tc.hi, 1e-4)
	}
	if lo, _ := Wilson(0, 0, 0.95); !math.IsNaN(lo) {
		t.Error("n = 0 should give NaN")
	}
}

func TestMedianCI(t *testing.T) {
	x := []float64{9, 1, 8, 2, 7, 3, 6, 4, 5, 10}
	ci := NewMedianCI(x, 0.95)
	// n = 10: P(B ≤ 1) = 11/1024 ≤ 0.025 < P(B ≤ 2) = 56/1024, so
	// [x(2), x(9)] with coverage 1 − 22/1024.
	if !ci.OK || ci.Lo != 2 || ci.Hi != 9 || ci.Median != 5.5 {
		t.Errorf("%+v", ci)
	}
	checkNear(t, "coverage", ci.Coverage, 1-22.0/1024, 1e-12)
	if x[0] != 9 {
		t.Error("input modified")
	}
	six := NewMedianCI([]float64{1, 2, 3, 4, 5, 6}, 0.95)
	if !six.OK || six.Lo != 1 || six.Hi != 6 || !near(six.Coverage, 1-2.0/64, 1e-12) {
		t.Errorf("n=6: %+v", six)
	}
	five := NewMedianCI([]float64{1, 2, 3, 4, 5}, 0.95)
	if five.OK || !math.IsNaN(five.Lo) || five.Median != 3 {
		t.Errorf("n=5 cannot reach 95%%: %+v", five)
	}
}

func TestMannWhitneyU(t *testing.T) {
	tests := []struct {
		name   string
		x, y   []float64
		u, p   float64
		method MannWhitneyMethod
	}{
		// Exact: P(U = 0) = 1/C(6,3) = 1/20, two-sided 0.1 (R: 0.1).
		{"separated 3+3", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, 0.1, MannWhitneyExact},
		// 1/C(10,5) = 1/252, two-sided 2/252.
		{"separated 5+5", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0, 2.0 / 252, MannWhitneyExact},
		{"reverse", []float64{6, 7, 8, 9, 10}, []float64{1, 2, 3, 4, 5}, 25, 2.0 / 252, MannWhitneyExact},
		// U counts for 3+3: 1,1,2,3,3,3,3,2,1,1 of 20; U = 3 → 2·7/20.
		{"interleaved", []float64{1, 3, 5}, []float64{2, 4, 6}, 3, 0.7, MannWhitneyExact},
		// Ties: ranks 1, 3, 3, 5.5 for x → W = 12.5, U = 2.5; σ² = 16/12·(9 −
		// 30/56) = 11.2857; z = (2.5 − 8 + 0.5)/3.35942 = −1.48835; p = 0.136658.
		{"ties: normal", []float64{1, 2, 2, 3}, []float64{2, 3, 4, 5}, 2.5, 0.13665824773814753, MannWhitneyNormal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := MannWhitneyU(tc.x, tc.y)
			checkNear(t, "U", r.U, tc.u, 1e-12)
			checkNear(t, "p", r.P, tc.p, 1e-9)
			if r.Method != tc.method {
				t.Errorf("method %s", r.Method)
			}
		})
	}
	// 50 per side without ties: normal approximation; U + U' = n1·n2 and
	// the p-value is symmetric.
	var a, b []float64
	for i := 0; i < 50; i++ {
		a = append(a, float64(2*i))
		b = append(b, float64(2*i+3))
	}
	r1, r2 := MannWhitneyU(a, b), MannWhitneyU(b, a)
	if r1.Method != MannWhitneyNormal || r1.U+r2.U != 2500 || !near(r1.P, r2.P, 1e-15) || !(r1.P > 0 && r1.P < 1) {
		t.Errorf("%+v %+v", r1, r2)
	}
	if !math.IsNaN(MannWhitneyU(nil, b).P) {
		t.Error("empty sample should give NaN")
	}
	// Exact distribution sums to 1 at the largest exact size.
	cdf := mannWhitneyCDF(49, 49)
	checkNear(t, "cdf end", cdf[len(cdf)-1], 1, 1e-9)
}

func TestHolm(t *testing.T) {
	// Sorted 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 → max 0.06.
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005, math.NaN()})
	want := []float64{0.03, 0.06, 0.06, 0.02, math.NaN()}
	for i := range want {
		checkNear(t, "holm", got[i], want[i], 1e-15)
	}
	capped := Holm([]float64{0.6, 0.5})
	checkNear(t, "capped at 1", capped[0], 1, 0)
	checkNear(t, "capped at 1", capped[1], 1, 0)
}

func TestPairedSign(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, math.NaN()}
	b := []float64{2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 1}
	ps, ok := NewPairedSign(a, b, 0.95)
	// 10 pairs (one missing), one tie, b wins 9: p = 2·2⁻⁹; differences are
	// nine 1s and one 0: median 1, interval [x(2), x(9)] = [1, 1].
	if !ok || ps.Pairs != 10 || ps.Missing != 1 || ps.Ties != 1 || ps.AWins != 0 || ps.BWins != 9 {
		t.Errorf("%+v", ps)
	}
	checkNear(t, "p", ps.P, 0.00390625, 1e-12)
	if ps.Diff.Median != 1 || ps.Diff.Lo != 1 || ps.Diff.Hi != 1 || !ps.Diff.OK {
		t.Errorf("diff %+v", ps.Diff)
	}
	if _, ok := NewPairedSign(a, b[:3], 0.95); ok {
		t.Error("length mismatch should not be ok")
	}
}
