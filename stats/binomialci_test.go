package stats

import (
	"math"
	"testing"
)

// TestClopperPearson checks the exact interval against bounds computed
// independently: by bisection on the binomial tail sums P(X ≥ k | p) and
// P(X ≤ k | p), in 40-digit arithmetic (mpmath), not through the Beta
// quantile the code uses.
func TestClopperPearson(t *testing.T) {
	for _, c := range []struct {
		k, n                 int
		lo, hi, lower, upper float64 // two-sided 95%, one-sided 95%
	}{
		{3, 16, 0.0404737339, 0.4564565462, 0.0531459845, 0.4165722807},
		{13, 16, 0.5435434538, 0.9595262661, 0.5834277193, 0.9468540155},
		{8, 8, 0.6305833524, 1, 0.6876560219, 1},
		{0, 8, 0, 0.3694166476, 0, 0.3123439781},
		{29, 29, 0.8805551309, 1, 0.9018553723, 1},
		{61, 64, 0.8690642628, 0.9902269250, 0.8832834121, 0.9871033415},
		{1, 2, 0.0125791171, 0.9874208829, 0.0253205655, 0.9746794345},
		{10, 16, 0.3543460943, 0.8480163249, 0.3910115830, 0.8222341483},
	} {
		iv := ClopperPearson(c.k, c.n, 0.95)
		for _, x := range []struct {
			what      string
			got, want float64
		}{{"lo", iv.Lo, c.lo}, {"hi", iv.Hi, c.hi}, {"lower", iv.Lower(), c.lower}, {"upper", iv.Upper(), c.upper}} {
			if math.Abs(x.got-x.want) > 1e-8 {
				t.Errorf("%d of %d: %s %.10f, want %.10f", c.k, c.n, x.what, x.got, x.want)
			}
		}
	}
	if iv := ClopperPearson(0, 0, 0.95); !math.IsNaN(iv.Lo) || !math.IsNaN(iv.Share) {
		t.Errorf("0 of 0: %+v, want unknown", iv)
	}
}
