package stats

import (
	"math"
	"testing"
)

func TestSmallestP(t *testing.T) {
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"sign, 8 pairs", SignTestMinP(8), 1.0 / 128},
		{"sign, 1 pair", SignTestMinP(1), 1},
		{"sign, no pairs", SignTestMinP(0), math.NaN()},
		// [[8 0] [0 8]] and [[0 8] [8 0]] are the two tables of probability
		// 1/C(16, 8) = 1/12870 with these margins.
		{"Fisher 8 and 8", FisherMinP(8, 8), 2.0 / 12870},
		// [[3 0] [0 5]]: the only table of margins (3, 5; 3, 5) as unlikely,
		// 1/C(8, 3) = 1/56.
		{"Fisher 3 and 5", FisherMinP(3, 5), 1.0 / 56},
		{"Mann-Whitney 3 and 1", MannWhitneyMinP(3, 1), 0.5},
		{"Mann-Whitney 8 and 8", MannWhitneyMinP(8, 8), 2.0 / 12870},
		{"Mann-Whitney 1 and 1", MannWhitneyMinP(1, 1), 1},
	}
	for _, tc := range tests {
		checkNear(t, tc.name, tc.got, tc.want, 1e-12*math.Max(1, tc.want))
	}
}

// TestMannWhitneyMinPIsAttained checks MannWhitneyMinP against the exact
// test of two fully separated samples.
func TestMannWhitneyMinPIsAttained(t *testing.T) {
	for n1 := 1; n1 <= 6; n1++ {
		for n2 := 1; n2 <= 6; n2++ {
			var x, y []float64
			for i := range n1 {
				x = append(x, float64(i))
			}
			for i := range n2 {
				y = append(y, float64(100+i))
			}
			if got, want := MannWhitneyMinP(n1, n2), MannWhitneyU(x, y).P; math.Abs(got-want) > 1e-12 {
				t.Errorf("n = %d, %d: MannWhitneyMinP %v, exact test of separated samples %v", n1, n2, got, want)
			}
		}
	}
}
