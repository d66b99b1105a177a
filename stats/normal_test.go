package stats

import (
	"math"
	"testing"
)

func TestNormalInterval(t *testing.T) {
	// z at 95% is 1.959963984540054; at 90% 1.6448536269514722.
	lo, hi := NormalInterval(10, 2, 0.95)
	checkNear(t, "95% lo", lo, 10-2*1.959963984540054, 1e-12)
	checkNear(t, "95% hi", hi, 10+2*1.959963984540054, 1e-12)
	lo, hi = NormalInterval(0, 1, 0.90)
	checkNear(t, "90% lo", lo, -1.6448536269514722, 1e-12)
	checkNear(t, "90% hi", hi, 1.6448536269514722, 1e-12)
	if lo, hi := NormalInterval(1, math.NaN(), 0.95); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("NaN standard error: [%v, %v]", lo, hi)
	}
}

func TestZTest(t *testing.T) {
	tests := []struct {
		name               string
		a, seA, b, seB     float64
		diff, se, p, halfW float64
	}{
		// z = 2: p = erfc(2/√2) = 0.0455002638963584.
		{"z=2", 1, 0.3, 2, 0.4, 1, 0.5, 0.0455002638963584, 0.5 * 1.959963984540054},
		// z = −1: p = erfc(1/√2) = 0.31731050786291404.
		{"z=-1", 3, 1, 2, 0, -1, 1, 0.31731050786291404, 1.959963984540054},
		// No spread: no test.
		{"se 0", 1, 0, 2, 0, 1, 0, math.NaN(), math.NaN()},
	}
	for _, tc := range tests {
		r := ZTest(tc.a, tc.seA, tc.b, tc.seB, 0.95)
		checkNear(t, tc.name+" diff", r.Diff, tc.diff, 1e-15)
		checkNear(t, tc.name+" se", r.SE, tc.se, 1e-15)
		checkNear(t, tc.name+" p", r.P, tc.p, 1e-15)
		checkNear(t, tc.name+" lo", r.Lo, tc.diff-tc.halfW, 1e-12)
		checkNear(t, tc.name+" hi", r.Hi, tc.diff+tc.halfW, 1e-12)
	}
}
