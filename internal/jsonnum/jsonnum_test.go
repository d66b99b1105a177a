package jsonnum

import (
	"encoding/json"
	"math"
	"testing"
)

func TestFloat(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{math.NaN(), "null"},
		{math.Inf(1), "null"},
		{0.1 + 0.2, "0.3"},
		{1.0000000000004, "1"},
		{-2.5e-9, "-2.5e-9"},
		{0, "0"},
		{123456789012345, "123456789012000"},
	} {
		b, err := json.Marshal(Float(tc.in))
		if err != nil || string(b) != tc.want {
			t.Errorf("Float(%v) = %s, %v; want %s", tc.in, b, err, tc.want)
		}
	}
}
