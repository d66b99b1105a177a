package check

import (
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/compare"
	"github.com/outlast-dev/outlast/schema"
)

// withLatency gives every turn of rd a sent time 2 s before it completes
// and a first token ttft(t) after it is sent, with 101 output tokens.
func withLatency(rd *schema.RunData, ttft func(done float64) float64) *schema.RunData {
	for i := range rd.Turns {
		tn := &rd.Turns[i]
		sent := tn.DoneS - 2
		first := sent + ttft(tn.DoneS)
		tn.SentS, tn.FirstTokenS, tn.OutputTokens = &sent, &first, 101
	}
	return rd
}

// TestLatencyRules: fast answers TTFT 0.25 s throughout; slow from minute
// 20 on at 1.75 s, so its TTFT p90, and its end TTFT p90, is 1.75 s. Both
// have TPOT (2 − TTFT)/100 and end-to-end 2 s; at TTFT ≤ 2 s and TPOT ≤
// 0.1 s every turn of both meets the SLO.
func TestLatencyRules(t *testing.T) {
	fast := withLatency(run("fast", "paired", "no-burst", 1, -1), func(float64) float64 { return 0.25 })
	slow := withLatency(run("slow", "paired", "burst", 1, -1), func(done float64) float64 {
		if done >= 1200 {
			return 1.75
		}
		return 0.25
	})
	plain := run("plain", "paired", "burst", 2, -1) // no sent, no first token
	cols := []compare.Column{{Label: "A", Runs: []*schema.RunData{fast, slow}}}
	for _, tc := range []struct {
		req, where string
		pass       bool
		detail     string
	}{
		{"max_end_ttft_p90_s: 1", "", false, "largest TTFT p90 over the last 10 minutes 1.75 s (slow), at most 1 s allowed"},
		{"max_end_ttft_p90_s: 5", "", true, "largest TTFT p90 over the last 10 minutes 1.75 s (slow), at most 5 s allowed"},
		{"max_ttft_p90_s: 0.5", "{arm: no-burst}", true, "largest TTFT p90 0.25 s (fast), at most 0.5 s allowed"},
		{"max_tpot_p90_s: 0.01", "", false, "largest TPOT p90 0.0175 s (fast), at most 0.01 s allowed"},
		{"max_e2e_p90_s: 2", "", true, "largest end-to-end p90 2 s (fast), at most 2 s allowed"},
		{"min_goodput: 0.99", "", true, "smallest goodput (TTFT ≤ 2s, TPOT ≤ 100ms) 1 (fast), at least 0.99 required"},
	} {
		src := "rules:\n  - name: r\n    require: {" + tc.req + "}\n"
		if tc.where != "" {
			src = "rules:\n  - name: r\n    where: " + tc.where + "\n    require: {" + tc.req + "}\n"
		}
		v := evaluate(t, src, cols).Verdicts[0]
		d := v.Details[len(v.Details)-1]
		if v.Pass != tc.pass || d.Text != tc.detail {
			t.Errorf("%s: pass %v, %q; want %v, %q", tc.req, v.Pass, d.Text, tc.pass, tc.detail)
		}
	}
	// A run without the value fails the bound, naming the worst known run
	// too: no data is no pass.
	v := evaluate(t, "rules:\n  - name: r\n    require: {max_ttft_p90_s: 5}\n", []compare.Column{{Label: "A", Runs: []*schema.RunData{fast, plain}}}).Verdicts[0]
	if d := v.Details[1]; v.Pass || d.Text != "largest TTFT p90 missing (plain); of the runs with one, 0.25 s (fast), at most 5 s allowed" || d.Runs[0] != "plain" {
		t.Errorf("run without TTFT: %+v", v)
	}
	// The bound form of the flags.
	for _, q := range []string{"end_ttft_p90_s<=5", "end_ttft_p90_s <= 5", "max_end_ttft_p90_s=5"} {
		rs, err := FromFlags(nil, []string{q})
		if err != nil || rs.Rules[0].Require[ReqMaxEndTTFTP90] != 5 {
			t.Errorf("--require %q: %+v, %v", q, rs, err)
		}
	}
	if rs, err := FromFlags(nil, []string{"goodput>=0.9"}); err != nil || rs.Rules[0].Require[ReqMinGoodput] != 0.9 {
		t.Errorf("--require goodput>=0.9: %+v, %v", rs, err)
	}
	for _, bad := range []string{"goodput<=0.9", "ttft_p90_s>=1", "min_goodput=1.5", "end_ttft_p90_s<=-1"} {
		if _, err := FromFlags(nil, []string{bad}); err == nil {
			t.Errorf("--require %q accepted", bad)
		}
	}
	if _, err := Parse([]byte("rules:\n  - name: a\n    require: {min_goodput: 2}\n"), "r.yaml"); err == nil || !strings.Contains(err.Error(), "min_goodput: want a share of turns in [0, 1]") {
		t.Errorf("min_goodput 2: %v", err)
	}
}

// TestLatencyComparisonRule: 6 seeds whose candidate answers 1.75 s after
// minute 20 where the baseline answers 0.25 s: the sign test on 6 pairs
// gives p = 0.031, so ttft_p90_not_worse fails; the other way round it
// holds.
func TestLatencyComparisonRule(t *testing.T) {
	var a, b []*schema.RunData
	for s := int64(1); s <= 6; s++ {
		a = append(a, withLatency(run("a"+string(rune('0'+s)), "paired", "no-burst", s, -1), func(float64) float64 { return 0.25 }))
		b = append(b, withLatency(run("b"+string(rune('0'+s)), "paired", "no-burst", s, -1), func(done float64) float64 {
			if done >= 1200 {
				return 1.75
			}
			return 0.25
		}))
	}
	rules := "rules:\n  - name: r\n    compare: {baseline: A, candidate: B}\n    require: {ttft_p90_not_worse: true}\n"
	v := evaluate(t, rules, []compare.Column{{Label: "A", Runs: a}, {Label: "B", Runs: b}}).Verdicts[0]
	if v.Pass || v.Details[0].Measure != compare.MeasureTTFTP90 || !strings.Contains(v.Details[0].Text, "worse (p=0.031 n=6 pairs)") {
		t.Errorf("slower candidate: %+v", v)
	}
	v = evaluate(t, rules, []compare.Column{{Label: "A", Runs: b}, {Label: "B", Runs: a}}).Verdicts[0]
	if !v.Pass {
		t.Errorf("faster candidate failed: %+v", v)
	}
}
