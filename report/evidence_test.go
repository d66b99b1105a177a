package report

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/schema"
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

// TestPairsAcrossEngines: one paired experiment run on two engines (and a
// seed whose twin ran a patch release apart) is split into a section per
// engine and version, each with its own sign test: vLLM 0.20.2 4 of 4 (p
// = 2·(1/2)⁴ = 0.125) and SGLang 1 of 2 (p = 1). The finding over all
// pairs, each matched within its engine, pools them: 5 of 6, p =
// 2·(1/2)⁵ = 0.0625. The pair of seed 7, whose burst run ran on vLLM
// 0.20.2 and its twin on 0.20.1, is in no section's pairs: a warning
// names it.
func TestPairsAcrossEngines(t *testing.T) {
	var runs []*schema.RunData
	pair := func(seed int64, engine, burstVersion, twinVersion string, burstDrops bool) {
		b := pairRun(fmt.Sprintf("s%d-burst", seed), "p", "burst", seed)
		tw := pairRun(fmt.Sprintf("s%d-no-burst", seed), "p", "no-burst", seed)
		tw.TriggerKind = "none"
		if burstDrops {
			b.DropS, b.Sessions = 1200, 40
		}
		for _, r := range []struct {
			f fakeRun
			v string
		}{{b, burstVersion}, {tw, twinVersion}} {
			rd := r.f.build()
			rd.Run.EngineName, rd.Run.EngineVersion = engine, r.v
			runs = append(runs, rd)
		}
	}
	for seed := int64(1); seed <= 4; seed++ {
		pair(seed, "vllm", "0.20.2", "0.20.2", true)
	}
	pair(5, "sglang", "0.5.0", "0.5.0", true)
	pair(6, "sglang", "0.5.0", "0.5.0", false)
	pair(7, "vllm", "0.20.2", "0.20.1", true)
	_, sum, err := Build(runs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range sum.Findings {
		switch f.Kind {
		case "sign-test", "sign-test-pooled", "pair-split":
			s := f.Kind + ": " + f.Text
			if i := strings.Index(s, " At the end"); i > 0 {
				s = s[:i]
			}
			got = append(got, s)
		}
	}
	checkTexts(t, got, []string{
		"sign-test: p (sglang 0.5.0): bursts left 1 of 2 servers persistently degraded, their twins 0 (exact sign test p = 1, 2 pairs).",
		`sign-test: p (vllm 0.20.1): no complete pair: Table 2 needs a "no-burst" and a "burst" run with the same seed.`,
		"sign-test: p (vllm 0.20.2): bursts left 4 of 4 servers persistently degraded, their twins 0 (exact sign test p = 0.125, 4 pairs).",
		"sign-test-pooled: p (all engines): over the pairs of every engine, each matched within its engine, bursts left 5 of 6 servers persistently degraded, their twins 0 (exact sign test p = 0.0625, 6 pairs); by engine: sglang 0.5.0: 1 of 2, p = 1; vllm 0.20.2: 4 of 4, p = 0.125.",
		"pair-split: p (all engines): 1 pair is split between engines or engine versions: seed 7 (s7-burst on vllm 0.20.2, its twin s7-no-burst on vllm 0.20.1). No section pairs a burst run with a twin of another engine version, so the pair is in no Table 2, count or sign test; run both arms of a seed on one engine version.",
	})
	f := find(t, "finding", sum.Findings, func(f SummaryFinding) string { return f.Kind }, "sign-test-pooled")
	if !same(f.Numbers["p"], 0.0625) || !same(f.Numbers["pairs"], 6) || !same(f.Numbers["burst_only"], 5) || f.Engine != "" {
		t.Errorf("pooled numbers %v, engine %q", f.Numbers, f.Engine)
	}
}

// TestRegimeMapDrainBand: the drain bound λ = 1/S falls at a different x
// for each workload shape, so it is drawn as the band it spans, not as
// one line at the median. The hand-built runs' shape 1000 + 100·k over 25
// turns costs S = 25·1 s + 1e-4 s/token·(25·1000 + 100·300) = 30.5 s under
// the calibration fit, at x = (1/30.5)·25·5·2200/100000 = 0.090164; one
// more with 5000 task tokens (5500 + 100·k, L̄ = 6700) costs S = 25 +
// 1e-4·(25·5500 + 100·300) = 41.75 s, at x = (1/41.75)·25·5·6700/100000
// = 0.200599.
func TestRegimeMapDrainBand(t *testing.T) {
	runs := fixtureRuns()
	heavy := pairRun("heavy", "h", "burst", 9).build()
	heavy.Run.TaskTokens = new(int64(5000))
	doc, _, err := Build(append(runs, heavy), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := findFigure(t, doc, "regime-map").(*document.Scatter)
	if len(f.Bands) != 1 || math.Abs(f.Bands[0].From-1/30.5*25*5*2200/100000) > 1e-12 || math.Abs(f.Bands[0].To-1/41.75*25*5*6700/100000) > 1e-12 {
		t.Fatalf("bands %+v", f.Bands)
	}
	for _, l := range f.Lines {
		if strings.HasPrefix(l.Name, "drain bound") {
			t.Errorf("a drain line %+v beside the band", l)
		}
	}
	// One workload: one line, no band.
	doc, _, err = Build(fixtureRuns(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f = findFigure(t, doc, "regime-map").(*document.Scatter)
	if len(f.Bands) != 0 {
		t.Errorf("one workload: bands %+v", f.Bands)
	}
}
