package stats

import (
	"math"
	"testing"
)

func TestMedian(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name string
		x    []float64
		want float64
	}{
		{"odd", []float64{5, 1, 3}, 3},
		{"even", []float64{4, 2}, 3},
		{"even, unsorted", []float64{10, 1, 7, 3}, 5},
		{"one", []float64{0.25}, 0.25},
		{"empty", nil, math.NaN()},
		{"not recovered in the middle", []float64{inf, 3, inf, 5}, inf},
		{"not recovered above the middle", []float64{3, 4, inf}, 4},
		{"all not recovered", []float64{inf, inf}, inf},
	}
	for _, tc := range tests {
		if got := Median(tc.x); got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("%s: Median(%v) = %v, want %v", tc.name, tc.x, got, tc.want)
		}
	}
	x := []float64{3, 1, 2}
	Median(x)
	if x[0] != 3 || x[1] != 1 || x[2] != 2 {
		t.Errorf("Median modified its input: %v", x)
	}
}

// TestMedianCIMedian checks that the interval's median is Median.
func TestMedianCIMedian(t *testing.T) {
	for _, x := range [][]float64{{1, 2, 3, 4}, {0.1, 0.7}, {2, 9, 4}, {3, math.Inf(1)}} {
		if got, want := NewMedianCI(x, 0.95).Median, Median(x); got != want {
			t.Errorf("%v: NewMedianCI median %v, Median %v", x, got, want)
		}
	}
	if ci := NewMedianCI(nil, 0.95); !math.IsNaN(ci.Median) || ci.OK {
		t.Errorf("empty sample: %+v", ci)
	}
}
