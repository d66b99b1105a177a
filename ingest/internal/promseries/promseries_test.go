package promseries

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLookup(t *testing.T) {
	for name, want := range map[string]int{
		"vllm:num_requests_running":        mVRunning,
		"sglang:num_requests_running":      mSRunningOld,
		"sglang:num_requests_waiting":      mSWaitingOld,
		"vllm:prompt_tokens_created":       createdOf(mVPrompt),
		"sglang:cached_tokens_created":     createdOf(mSHits),
		"vllm_num_preemptions_created":     createdOf(mVPreempt + nMetrics),
		"vllm:prompt_tokens_total_created": -1,
		"vllm:kv_cache_usage_perc_created": -1,
		"sglang:cache_hit_rate":            -1,
		"vllm":                             -1,
		"process_cpu_seconds_total":        -1,
		"sglang:max_total_num_tokens":      mSMaxTokens,
		"vllm:gpu_prefix_cache_hits_total": mVHitsOld,
		// The underscore spelling (metrics.go): a name of its own.
		"sglang_num_running_reqs":     mSRunning + nMetrics,
		"vllm_num_requests_running":   mVRunning + nMetrics,
		"sglang_token_usage":          mSKV + nMetrics,
		"vllm_cache_config_info":      mVCacheConfig + nMetrics,
		"sglang_cache_hit_rate":       -1,
		"vllm_num_requests_running_":  -1,
		"vllm.num_requests_running":   -1,
		"vllm:num_requests:running":   -1,
		"sglang_num_running_reqs_sum": -1,
	} {
		if got := Lookup([]byte(name)); got != want {
			t.Errorf("Lookup(%q) = %d, want %d", name, got, want)
		}
	}
	// Every known name in both spellings, and none of its neighbours.
	for m := range NumMetrics {
		name := Name(m)
		if got := Lookup([]byte(name)); got != m {
			t.Errorf("Lookup(%q) = %d, want %d", name, got, m)
		}
		if base(m) != m%nMetrics || strings.ReplaceAll(name, "_", ":") != strings.ReplaceAll(metricNames[base(m)], "_", ":") {
			t.Errorf("name %d %q is not a spelling of %q", m, name, metricNames[base(m)])
		}
		for _, other := range []string{name[:len(name)-1], name + "s", "x" + name[1:], name[:len(name)-1] + "_"} {
			if got := Lookup([]byte(other)); got >= 0 && Name(got) != other {
				t.Errorf("Lookup(%q) = %d (%s)", other, got, Name(got))
			}
		}
	}
	// Each counter and its _created series, in both spellings.
	for c := mVQueries; c <= mSPreempt; c++ {
		for _, m := range []int{c, c + nMetrics} {
			if cr := createdOf(m); counterOf(cr) != m || !strings.HasSuffix(Name(cr), "_created") || counterOf(m) != -1 {
				t.Errorf("counter %s: created %d (%s), back %d", Name(m), cr, Name(cr), counterOf(cr))
			}
		}
	}
	// Lookup runs on every line's name: it must not allocate.
	names := [][]byte{[]byte("vllm_num_requests_running"), []byte("sglang:token_usage"), []byte("vllm_request_success_total")}
	if n := testing.AllocsPerRun(100, func() {
		for _, b := range names {
			Lookup(b)
		}
	}); n != 0 {
		t.Errorf("Lookup allocates %v times", n)
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

// TestBuildSpellingsAndServers builds samples from observations as a
// reader gives them: two spellings of one metric are never summed (the
// colon one is read, the other noted), series of two scrape targets are
// summed and noted with their labels, and a NaN gauge is a null field.
func TestBuildSpellingsAndServers(t *testing.T) {
	obs := func(m int, v float64, ls ...Label) Obs {
		s, keep, err := Describe(m, ls)
		if !keep || err != nil {
			t.Fatalf("Describe: %v %v", keep, err)
		}
		o, err := s.At(v)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	u := func(m int) int { return m + nMetrics }
	f := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	cases := []struct {
		name          string
		obs           []Obs
		run, wait, kv string
		notes         []string
	}{
		{"colon and underscore", []Obs{obs(mSRunning, 3), obs(u(mSRunning), 3), obs(u(mSWaiting), 1)}, "3", "1", "-",
			[]string{"in: WARNING: sglang:num_running_reqs and sglang_num_running_reqs were both given in 1 samples: " +
				"one metric in two spellings (the engine's own, and a gateway's or pipeline's that turns ':' into '_'), " +
				"likely one series read twice; sglang:num_running_reqs was read and sglang_num_running_reqs left out, not added"}},
		{"newer name in the other spelling", []Obs{obs(mVKVOld, 0.5), obs(u(mVKV), 0.25)}, "-", "-", "0.25", nil},
		{"two targets", []Obs{obs(mVRunning, 1, Label{"instance", "a"}), obs(mVRunning, 2, Label{"instance", "b"}, Label{"job", "j"})}, "3", "-", "-",
			[]string{`in: WARNING: vllm:num_requests_running: in 1 of 1 samples, series of more than one scrape target were summed as if they were one engine's replicas: ` +
				`{instance="a", job=""}, {instance="b", job="j"}. Export one server's series (add a matcher such as instance="…"), or ingest each server as its own run`}},
		{"replicas of one target", []Obs{obs(mVRunning, 1, Label{"engine", "0"}, Label{"job", "j"}), obs(mVRunning, 2, Label{"engine", "1"}, Label{"job", "j"})}, "3", "-", "-", nil},
		{"NaN gauge", []Obs{obs(mVKV, math.NaN(), Label{"engine", "0"}), obs(mVKV, 0.5, Label{"engine", "1"}), obs(mVWaiting, 2)}, "-", "2", "-", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewBuilder(time.Unix(0, 0))
			b.SetInput("in")
			es, err := b.Build(1, 0, 1, c.obs)
			if err != nil {
				t.Fatal(err)
			}
			if got := [3]string{f(es.Running), f(es.Waiting), f(es.KVUsage)}; got != [3]string{c.run, c.wait, c.kv} {
				t.Errorf("run, wait, kv = %v, want %v", got, [3]string{c.run, c.wait, c.kv})
			}
			if got := b.Info().Notes; !slices.Equal(got, c.notes) {
				t.Errorf("notes:\n%q\nwant\n%q", got, c.notes)
			}
		})
	}
}
