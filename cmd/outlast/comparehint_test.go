package main

import (
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// TestNoMatchHint checks the warning of a comparison whose configurations
// never meet: the fewest key fields that kept them apart, each column's
// values, and the --ignore that matches them (with the fields already
// ignored); nothing when a configuration matched or none can.
func TestNoMatchHint(t *testing.T) {
	pool := func(n int64) *int64 { return &n }
	rate := func(v float64) *float64 { return &v }
	run := func(arm string, c int64, lambda float64) *schema.Run {
		return &schema.Run{Design: "paired", Arm: arm, KVPoolTokens: pool(c), ArrivalRate: rate(lambda), PrefixCaching: true}
	}
	labels := []string{"old", "new"}
	for _, tt := range []struct {
		name    string
		runs    [][]*schema.Run
		ignored []string // --ignore's, and --by's field
		given   []string // --ignore's
		want    string
	}{
		{"matched", [][]*schema.Run{{run("burst", 400000, 0.035)}, {run("burst", 400000, 0.035), run("burst", 200000, 0.035)}}, nil, nil, ""},
		{"pool", [][]*schema.Run{{run("burst", 400000, 0.035), run("no-burst", 400000, 0.035)}, {run("burst", 200000, 0.035)}}, nil, nil,
			"they differ in pool (old: 400000; new: 200000); to compare across that, add --ignore pool"},
		{"pool and lambda, arm ignored", [][]*schema.Run{{run("burst", 400000, 0.035)}, {run("no-burst", 200000, 0.04)}}, []string{"arm"}, []string{"arm"},
			"they differ in lambda (old: 0.035; new: 0.04) and pool (old: 400000; new: 200000); to compare across that, add --ignore arm,lambda,pool"},
		{"--by arm: not suggested", [][]*schema.Run{{run("burst", 400000, 0.035)}, {run("no-burst", 200000, 0.035)}}, []string{"arm"}, nil,
			"they differ in pool (old: 400000; new: 200000); to compare across that, add --ignore pool"},
		{"an empty column", [][]*schema.Run{{run("burst", 400000, 0.035)}, nil}, nil, nil, ""},
	} {
		got := noMatchHint(labels, tt.runs, tt.ignored, tt.given)
		if tt.want == "" && got != "" || tt.want != "" && !strings.HasSuffix(got, tt.want) {
			t.Errorf("%s: %q, want it to end %q", tt.name, got, tt.want)
		}
	}
}
