package promscrape

import (
	"fmt"
	"strings"
	"testing"
)

// TestDPAttention reads SGLang with data-parallel attention: one scheduler
// per DP rank reports, labelled dp_rank and its global tp_rank (and
// moe_ep_rank with expert parallelism), so the series of every DP rank are
// summed, not only those of tp_rank 0.
func TestDPAttention(t *testing.T) {
	l := func(dp, tp int) string {
		return fmt.Sprintf(`dp_rank="%d",engine_type="unified",model_name="m",moe_ep_rank="%d",pp_rank="0",tp_rank="%d"`, dp, tp, tp)
	}
	var b strings.Builder
	for k, ts := range []string{"1001", "1006"} {
		fmt.Fprintf(&b, "# scrape %s\n", ts)
		for dp := range 4 {
			tp := dp // attention TP size 1: tp_rank == dp_rank
			fmt.Fprintf(&b, "sglang:num_running_reqs{%s} %d\n", l(dp, tp), dp+1+k)
			fmt.Fprintf(&b, "sglang:num_queue_reqs{%s} %d\n", l(dp, tp), dp)
			fmt.Fprintf(&b, "sglang:token_usage{%s} %g\n", l(dp, tp), 0.1*float64(dp+1))
			fmt.Fprintf(&b, "sglang:max_total_num_tokens{%s} 100000\n", l(dp, tp))
			fmt.Fprintf(&b, "sglang:num_retracted_requests_total{%s} %d\n", l(dp, tp), 10*dp+3*k)
		}
		fmt.Fprintf(&b, "sglang:prompt_tokens_total{model_name=\"m\"} %d\n", 1000+500*k)
	}
	info := checkRead(t, b.String(),
		// running 1+2+3+4, waiting 0+1+2+3, KV usage the mean of 0.1..0.4.
		"line=1 t=1.000 metrics/scrape engine=-1 run=10 wait=6 kv=0.25 dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=23 t=6.000 metrics/scrape engine=-1 run=14 wait=6 kv=0.25 dt=5 queries=500 hits=- prompt=500 gen=- preempt=12",
	)
	if info.KVPoolTokens != 400000 || info.Unrecognised != 0 || info.Engine != "sglang" {
		t.Errorf("%s", formatInfo(info))
	}
}

// TestRankGroups checks the rank rule on its own: of the series of one
// group (equal but for tp_rank, moe_ep_rank and pid) the lowest tp_rank is
// used, numerically; pipeline stages other than 0 are left out; a series
// repeated under another pid is left out and counted.
func TestRankGroups(t *testing.T) {
	in := `# scrape 1001
sglang:num_running_reqs{dp_rank="0",pp_rank="0",tp_rank="1"} 100
sglang:num_running_reqs{dp_rank="0",pp_rank="0",tp_rank="0"} 1
sglang:num_running_reqs{dp_rank="1",pp_rank="0",tp_rank="10"} 100
sglang:num_running_reqs{dp_rank="1",pp_rank="0",tp_rank="2"} 2
sglang:num_running_reqs{dp_rank="1",pp_rank="1",tp_rank="2"} 100
sglang:num_queue_reqs{dp_rank="0",pid="910",tp_rank="0"} 3
sglang:num_queue_reqs{dp_rank="0",pid="930",tp_rank="0"} 300
sglang:num_queue_reqs{dp_rank="1",pid="911",tp_rank="1"} 4
sglang:token_usage{tp_rank="0"} 0.5
sglang:token_usage{tp_rank="1"} 0.9
`
	got, info := readAll(t, in, t0)
	want := []string{"line=1 t=1.000 metrics/scrape engine=-1 run=3 wait=7 kv=0.5 dt=- queries=- hits=- prompt=- gen=- preempt=-"}
	check(t, got, want)
	if info.RankRepeats != 1 {
		t.Errorf("RankRepeats = %d, want 1", info.RankRepeats)
	}
}

// TestSGLangOldNames reads SGLang 0.3's names for running and waiting
// (late 2024), and prefers today's when both are there.
func TestSGLangOldNames(t *testing.T) {
	in := `# scrape 1001
sglang:num_requests_running{name="m"} 2.0
sglang:num_requests_waiting{name="m"} 5.0
sglang:queue_req{name="m"} 7.0
sglang:token_usage{name="m"} 0.01
sglang:max_total_num_tokens{name="m"} 161721.0
# scrape 1002
sglang:num_requests_running{name="m"} 2.0
sglang:num_running_reqs{name="m"} 3.0
sglang:num_requests_waiting{name="m"} 5.0
sglang:num_queue_reqs{name="m"} 6.0
`
	info := checkRead(t, in,
		"line=1 t=1.000 metrics/scrape engine=0 run=2 wait=5 kv=0.01 dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=7 t=2.000 metrics/scrape engine=0 run=3 wait=6 kv=- dt=1 queries=- hits=- prompt=- gen=- preempt=-",
	)
	if info.Engine != "sglang" || info.KVPoolTokens != 161721 {
		t.Errorf("%s", formatInfo(info))
	}
}
