package promseries

import (
	"slices"
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	for name, want := range map[string]int{
		"vllm:num_requests_running":        mVRunning,
		"sglang:num_requests_running":      mSRunningOld,
		"sglang:num_requests_waiting":      mSWaitingOld,
		"vllm:prompt_tokens_created":       -1,
		"sglang:cache_hit_rate":            -1,
		"vllm":                             -1,
		"process_cpu_seconds_total":        -1,
		"sglang:max_total_num_tokens":      mSMaxTokens,
		"vllm:gpu_prefix_cache_hits_total": mVHitsOld,
	} {
		if got := Lookup([]byte(name)); got != want {
			t.Errorf("Lookup(%q) = %d, want %d", name, got, want)
		}
	}
	// Every known name, and none of its neighbours.
	for m, name := range metricNames {
		if got := Lookup([]byte(name)); got != m {
			t.Errorf("Lookup(%q) = %d, want %d", name, got, m)
		}
		for _, other := range []string{name[:len(name)-1], name + "s", "x" + name[1:], name[:len(name)-1] + "_"} {
			if got := Lookup([]byte(other)); got >= 0 && metricNames[got] != other {
				t.Errorf("Lookup(%q) = %d (%s)", other, got, metricNames[got])
			}
		}
	}
	if got := Lookup([]byte("vllm:" + strings.Repeat("x", 200))); got != -1 {
		t.Errorf("Lookup of 200 bytes = %d, want -1", got)
	}
}

func TestRankLess(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"0", "1", true}, {"2", "10", true}, {"10", "2", false}, {"1", "1", false}, {"a", "b", true}, {"", "0", true},
	} {
		if got := rankLess(c.a, c.b); got != c.want {
			t.Errorf("rankLess(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

func TestUnion(t *testing.T) {
	pts := func(ts ...int64) []point {
		var out []point
		for _, t := range ts {
			out = append(out, point{t: t, stale: t < 0})
		}
		return out
	}
	for _, c := range []struct {
		a    []int64
		pts  []point
		want []int64
	}{
		{nil, pts(1, 2), []int64{1, 2}},
		{[]int64{1, 3}, pts(2, 3, 4), []int64{1, 2, 3, 4}},
		{[]int64{5}, pts(1), []int64{1, 5}},
		{[]int64{1, 2}, nil, []int64{1, 2}},
	} {
		if got := union(c.a, c.pts, nil); !slices.Equal(got, c.want) {
			t.Errorf("union(%v, %v) = %v, want %v", c.a, c.pts, got, c.want)
		}
	}
	// Staleness markers make no time of their own.
	if got := union([]int64{1}, []point{{t: 2, stale: true}, {t: 3}}, nil); !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("stale: %v", got)
	}
}

// TestLookback checks that a series stands at its last point for up to
// Lookback, and not after a staleness marker.
func TestLookback(t *testing.T) {
	tl := NewTimeline()
	f := tl.File("x")
	run, _, _ := tl.Series(mVRunning, []Label{{"engine", "0"}})
	wait, _, _ := tl.Series(mVWaiting, []Label{{"engine", "0"}})
	for _, p := range []struct {
		id    int
		t     int64
		v     float64
		stale bool
	}{{run, 0, 1, false}, {wait, 0, 2, false}, {wait, 10e9, 3, false}, {run, Lookback + 1e9, 4, false}, {wait, 20e9, 0, true}} {
		if err := tl.Add(p.id, p.t, p.v, p.stale, f, 1, 1); err != nil {
			t.Fatal(err)
		}
	}
	var obs []Obs
	var ids []int
	for _, c := range []struct {
		t    int64
		want []float64
	}{{0, []float64{1, 2}}, {10e9, []float64{1, 3}}, {Lookback, []float64{1}}, {Lookback + 1e9, []float64{4}}} {
		obs, ids, _ = tl.at(c.t, obs, ids)
		var got []float64
		for _, o := range obs {
			got = append(got, o.value)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("at %d: %v, want %v", c.t, got, c.want)
		}
	}
}
