package render

import (
	"math"
	"slices"
	"testing"
)

func wave(n int) (x, y []float64) {
	x, y = make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = float64(i)
		y[i] = math.Sin(float64(i)/50) + 0.3*math.Sin(float64(i)*1.7)
	}
	return x, y
}

func TestDownsampleSmallUnchanged(t *testing.T) {
	x, y := wave(100)
	xs, ys := Downsample(x, y, 100)
	if !slices.Equal(xs, x) || !slices.Equal(ys, y) {
		t.Error("a series that fits was changed")
	}
}

func TestDownsampleLTTB(t *testing.T) {
	x, y := wave(200_000)
	y[123_456] = 25 // a single spike must survive
	xs, ys := Downsample(x, y, 1000)
	if len(xs) != len(ys) || len(xs) > 1000 || len(xs) < 900 {
		t.Fatalf("got %d points, want (900, 1000]", len(xs))
	}
	if xs[0] != 0 || xs[len(xs)-1] != 199_999 {
		t.Errorf("endpoints %g..%g not kept", xs[0], xs[len(xs)-1])
	}
	if !slices.IsSorted(xs) {
		t.Error("x not sorted")
	}
	if !slices.Contains(ys, 25) {
		t.Error("spike lost")
	}
	xs2, ys2 := Downsample(x, y, 1000)
	if !slices.Equal(xs, xs2) || !slices.Equal(ys, ys2) {
		t.Error("not deterministic")
	}
}

func TestDownsampleKeepsGaps(t *testing.T) {
	x, y := wave(10_000)
	for i := 3000; i < 3100; i++ {
		y[i] = math.NaN()
	}
	y[7000] = math.Inf(1)
	xs, ys := Downsample(x, y, 500)
	if len(xs) > 500 {
		t.Fatalf("%d points > 500", len(xs))
	}
	var gaps []float64
	for i, v := range ys {
		if math.IsNaN(v) {
			gaps = append(gaps, xs[i])
		} else if math.IsInf(v, 0) {
			t.Error("Inf kept as a value")
		}
	}
	if !slices.Equal(gaps, []float64{3000, 7000}) {
		t.Errorf("gaps at %v, want [3000 7000]", gaps)
	}
}

func TestDownsampleManyGapsBounded(t *testing.T) {
	x, y := wave(50_000)
	for i := 0; i < len(y); i += 3 {
		y[i] = math.NaN() // a gap every third point: too many runs for LTTB
	}
	xs, ys := Downsample(x, y, 1000)
	if len(xs) > 1000 || len(xs) != len(ys) {
		t.Fatalf("%d points > 1000", len(xs))
	}
	if !slices.IsSorted(xs) {
		t.Error("x not sorted")
	}
}

func TestDownsampleAllMissing(t *testing.T) {
	x := make([]float64, 100)
	y := make([]float64, 100)
	for i := range y {
		x[i], y[i] = float64(i), math.NaN()
	}
	if xs, _ := Downsample(x, y, 10); len(xs) != 0 {
		t.Errorf("all-missing series gave %d points", len(xs))
	}
}
