package outlastlog

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestParseFloat checks the allocation-free fast path against strconv.
func TestParseFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := []string{"0", "1", "0.1", "1761566401.20", "123456789012345678", "0.000000000000001", "3.0", "1e3", "-2.5", "1E-2", "0.30000000000000004", "9007199254740993"}
	for range 2000 {
		inputs = append(inputs, fmt.Sprintf("%d.%0*d", rng.Int64N(2_000_000_000), 1+rng.IntN(9), rng.Int64N(1_000_000_000)))
	}
	for _, in := range inputs {
		got, ok := parseFloat([]byte(in))
		want, err := strconv.ParseFloat(in, 64)
		if !ok || err != nil {
			t.Fatalf("%s: ok=%v err=%v", in, ok, err)
		}
		// Integer part and fraction are rounded separately: within one ulp.
		if got != want && math.Abs(got-want) > math.Abs(want)*1e-15 {
			t.Errorf("parseFloat(%s) = %v, want %v", in, got, want)
		}
	}
	for _, in := range []string{"1e999", "-1e999"} {
		if _, ok := parseFloat([]byte(in)); ok {
			t.Errorf("parseFloat(%s) ok, want out of range", in)
		}
	}
}

func TestParseInt(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "7": 7, "-12": -12, "999999999999999999": 999999999999999999} {
		if got, ok := parseInt([]byte(in)); !ok || got != want {
			t.Errorf("parseInt(%s) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "-", "1.0", "1e3", "9999999999999999999", "1x"} {
		if _, ok := parseInt([]byte(in)); ok {
			t.Errorf("parseInt(%q) ok, want not an integer", in)
		}
	}
}
