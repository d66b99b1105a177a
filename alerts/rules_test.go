package alerts_test

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/alerts"
	"github.com/outlast-dev/outlast/internal/golden"
)

func TestRulesGolden(t *testing.T) {
	for _, e := range alerts.Engines {
		b, err := alerts.Rules(e, alerts.Paper())
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "rules-"+e+".yml"), b)
	}
}

func TestUnknownEngine(t *testing.T) {
	if _, err := alerts.Rules("tgi", alerts.Paper()); err == nil {
		t.Error("Rules accepted engine tgi")
	}
	if _, err := alerts.Dashboard("tgi", alerts.Paper()); err == nil {
		t.Error("Dashboard accepted engine tgi")
	}
}

// TestRulesReadEveryName: each metric is read by every name outlast's
// readers know, in both spellings, and no recording rule reads another
// rule's series (Prometheus' rule backfill would record it empty).
func TestRulesReadEveryName(t *testing.T) {
	for _, e := range alerts.Engines {
		b, err := alerts.Rules(e, alerts.Paper())
		if err != nil {
			t.Fatal(err)
		}
		rules := ruleFile(t, b)
		var recorded []string
		all := ""
		for _, r := range rules {
			all += r.Expr
			if r.Record != "" {
				recorded = append(recorded, r.Record)
			}
		}
		groups, err := alerts.MetricNames(e)
		if err != nil {
			t.Fatal(err)
		}
		for what, names := range groups {
			if len(names) < 2 {
				t.Errorf("%s %s: %d names, want both spellings", e, what, len(names))
			}
			for _, n := range names {
				if !strings.Contains(all, n+"[") && !strings.Contains(all, n+"\n") && !strings.Contains(all, n+"{") {
					t.Errorf("%s: no rule reads %s (%s)", e, n, what)
				}
			}
		}
		for _, r := range rules {
			if r.Record == "" {
				continue
			}
			for _, other := range recorded {
				if strings.Contains(r.Expr, other) {
					t.Errorf("%s: recording rule %s reads recorded series %s", e, r.Record, other)
				}
			}
		}
	}
}

func TestFromRuns(t *testing.T) {
	nan := math.NaN()
	th, err := alerts.FromRuns("ds", []alerts.RunWindows{
		{Run: "p1", Class: alerts.ClassPersistent, Hits: []float64{0.08, 0.1, nan}},
		{Run: "p2", Class: alerts.ClassPersistent, Hits: []float64{0.09}},
		{Run: "h1", Class: alerts.ClassNeverDegraded, Hits: []float64{0.95, 0.7, 0.9}},
		{Run: "h2", Class: alerts.ClassNeverDegraded, Hits: []float64{nan}}, // no ratio: not counted
	})
	if err != nil {
		t.Fatal(err)
	}
	// Midway between 0.1 (p1) and 0.7 (h1).
	if th.DegradedHit.Value != 0.4 {
		t.Errorf("degraded threshold %v, want 0.4", th.DegradedHit.Value)
	}
	for _, want := range []string{"ds", "2 persistent runs", "(0.100, p1)", "1 never-degraded runs", "(0.700, h1)"} {
		if !strings.Contains(th.DegradedHit.Source, want) {
			t.Errorf("source %q lacks %q", th.DegradedHit.Source, want)
		}
	}
	if th.HealthyHit != alerts.Paper().HealthyHit || th.MinLoad != alerts.Paper().MinLoad {
		t.Errorf("FromRuns changed thresholds it does not derive: %+v", th)
	}
	b, err := alerts.Rules("vllm", th)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, "rate5m < 0.4\n") || !strings.Contains(s, "degraded hit ratio 0.4: from ds: midway") {
		t.Errorf("the rule file does not use or explain the dataset's threshold:\n%s", s)
	}

	// A gap narrower than two decimals keeps its exact middle.
	th, err = alerts.FromRuns("ds", []alerts.RunWindows{
		{Run: "p", Class: alerts.ClassPersistent, Hits: []float64{0.4951}},
		{Run: "h", Class: alerts.ClassNeverDegraded, Hits: []float64{0.4969}},
	})
	if err != nil || math.Abs(th.DegradedHit.Value-0.496) > 1e-12 {
		t.Errorf("narrow gap: threshold %v, %v; want 0.496", th.DegradedHit.Value, err)
	}

	for name, runs := range map[string][]alerts.RunWindows{
		"overlap": {
			{Run: "p", Class: alerts.ClassPersistent, Hits: []float64{0.1, 0.72}},
			{Run: "h", Class: alerts.ClassNeverDegraded, Hits: []float64{0.7}},
		},
		"no persistent run": {{Run: "h", Class: alerts.ClassNeverDegraded, Hits: []float64{0.9}}},
		"no healthy run with a ratio": {
			{Run: "p", Class: alerts.ClassPersistent, Hits: []float64{0.1}},
			{Run: "h", Class: alerts.ClassNeverDegraded, Hits: []float64{nan}},
		},
	} {
		if _, err := alerts.FromRuns("ds", runs); !errors.Is(err, alerts.ErrNoSeparation) {
			t.Errorf("%s: error %v, want ErrNoSeparation", name, err)
		}
	}
}
