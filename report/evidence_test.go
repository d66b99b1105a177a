package report

import (
	"strings"
	"testing"
)

// TestMechanismAbsentIsWarned: the hand-built paired runs s1-burst and
// s2-burst are persistent by their hit ratio, but hold 40 sessions of
// 1000 tokens against a pool of 100,000 (D/C = 0.40, below 1) beside twins
// at 8 sessions: a backlog without a working set beyond the pool is not
// the degraded regime of §4. A warning names both with their numbers, and
// summary.json's runs carry the check.
func TestMechanismAbsentIsWarned(t *testing.T) {
	_, sum := buildFixture(t, Options{})
	var f *SummaryFinding
	for i := range sum.Findings {
		if g := &sum.Findings[i]; g.Kind == "mechanism-absent" && g.Experiment == "paired-test" {
			f = g
		}
	}
	if f == nil {
		t.Fatal("no mechanism-absent finding for paired-test")
	}
	if !f.Warning || strings.Join(f.Runs, ",") != "s1-burst,s2-burst" || !strings.Contains(f.Text, "s1-burst (D/C 0.40, 40.0 sessions against 8.0 (twin))") {
		t.Errorf("finding %+v", f)
	}
	for k, want := range map[string]float64{"runs": 2, "s1-burst.demand_ratio_end": 0.4, "s1-burst.sessions_end": 40, "s1-burst.reference_sessions": 8} {
		if !same(f.Numbers[k], want) {
			t.Errorf("number %s = %v, want %v", k, f.Numbers[k], want)
		}
	}
	r := find(t, "run", sum.Runs, func(r SummaryRun) string { return r.Run }, "s1-burst")
	m := r.Mechanism
	if m.Status != "absent" || m.Twin != "s1-no-burst" || !same(m.TwinSessionsEnd, 8) || !same(m.DemandRatioEnd, 0.4) ||
		m.BeyondPool == nil || *m.BeyondPool || m.Backlog == nil || !*m.Backlog || m.ReferenceFrom != "twin" {
		t.Errorf("s1-burst mechanism %+v", m)
	}
	// A run that did not end degraded has nothing to check.
	if m := find(t, "run", sum.Runs, func(r SummaryRun) string { return r.Run }, "s3-burst").Mechanism; m.Status != "" {
		t.Errorf("s3-burst mechanism status %q, want none", m.Status)
	}
}
