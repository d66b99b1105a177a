package replay

import (
	"testing"

	"github.com/outlast-dev/outlast/stats"
)

// TestDecide checks find-pool's decision on the bounds: 8 of 8 seeds do
// not show 90% (their lower bound is 0.69), 29 of 29 do, 61 of 64
// straddle it, 0 of 8 fall short.
func TestDecide(t *testing.T) {
	for _, c := range []struct {
		k, n int
		want Decision
	}{{8, 8, Undecided}, {28, 28, Undecided}, {29, 29, Meets}, {61, 64, Undecided}, {0, 8, Short}, {50, 64, Short}, {16, 16, Undecided}} {
		if got := Decide(stats.ClopperPearson(c.k, c.n, Confidence), 0.9); got != c.want {
			t.Errorf("%d of %d against 0.9: %s, want %s", c.k, c.n, got, c.want)
		}
	}
}
