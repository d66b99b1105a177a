package compare_test

import (
	"fmt"
	"log"
	"os"

	"github.com/outlast-dev/outlast/compare"
	"github.com/outlast-dev/outlast/schema"
)

// pairedRun is a 30-minute run of the paired design: a turn of 1,000
// prompt tokens completes every 10 s with cached of them cached, until the
// end of the burst slot (10 minutes) and, unless the run collapses, after
// it; a collapsed run has 100 cached from then on.
func pairedRun(version string, seed int64, arm string, collapses bool, cached int64) *schema.RunData {
	f := func(v float64) *float64 { return &v }
	i := func(v int64) *int64 { return &v }
	r := schema.Run{
		Run: fmt.Sprintf("%s-s%d-%s", version, seed, arm), Design: schema.DesignPaired, Seed: i(seed), Arm: arm,
		DurationS: 1800, EngineName: schema.EngineVLLM, EngineVersion: version, PrefixCaching: true,
		KVPoolTokens: i(400000), ArrivalRate: f(0.035), Turns: i(25), ThinkMeanS: f(5), SystemTokens: i(2048),
		TaskTokens: i(4096), OutputTokens: i(300), ToolTokens: i(1024),
		TriggerKind: schema.TriggerNone, TriggerStartS: f(300), TriggerEndS: f(600), ControlKind: schema.ControlNone, AlignS: 600,
	}
	if arm == schema.ArmBurst {
		r.TriggerKind, r.TriggerExtraRate = schema.TriggerBurst, f(0.0525)
	}
	rd := &schema.RunData{Run: r}
	for t := 5.0; t < r.DurationS; t += 10 {
		c := cached
		if collapses && t >= 600 {
			c = 100
		}
		rd.Turns = append(rd.Turns, schema.Turn{Session: "b-0001", Turn: int32(len(rd.Turns)), DoneS: t,
			PromptTokens: 1000, CachedTokens: c, OutputTokens: 300, Status: schema.TurnOK})
	}
	return rd
}

// Two engine versions ran the paired design on the same eight seeds. The
// burst collapses one run of v1 and every run of v2, and v2's healthy twins
// hit the cache a little less. Runs of one seed and arm are paired across
// the versions, so the tests are exact McNemar and the sign test: 7 seeds
// collapse in v2 only, p = 2·2⁻⁷, Holm-adjusted over the two arms to
// 0.031; every twin's hit ratio is lower in v2, p = 2·2⁻⁸ = 0.008. The
// burst arm's hit ratio has no v2 runs to compare: none is healthy.
func Example() {
	var v1, v2 []*schema.RunData
	for s := int64(1); s <= 8; s++ {
		v1 = append(v1, pairedRun("v1", s, schema.ArmBurst, s == 8, 950),
			pairedRun("v1", s, schema.ArmNoBurst, false, 940+2*s))
		v2 = append(v2, pairedRun("v2", s, schema.ArmBurst, true, 950),
			pairedRun("v2", s, schema.ArmNoBurst, false, 930+2*s))
	}
	res, err := compare.Compare([]compare.Column{{Label: "v1", Runs: v1}, {Label: "v2", Runs: v2}},
		compare.Options{Measures: []string{compare.MeasureCollapseRate, compare.MeasureEndHit}})
	if err != nil {
		log.Fatal(err)
	}
	if err := res.WriteText(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// design: paired
	// lambda: 0.035
	// pool: 400000
	// caching: on
	// control: none
	// workload: 25×(2048+4096, +300+1024) Z=5s
	//
	// collapse rate: share of runs persistently degraded
	//              │    v1     │                  v2                   │
	//              │ collapsed │ collapsed           vs base           │
	// arm=burst            1/8         8/8  +88 pp (p=0.031 n=8 pairs)
	// arm=no-burst         0/8         0/8       ~ (p=1.000 n=8 pairs)
	// test: exact McNemar on seed pairs; ~: not significant at α = 0.05; p Holm-adjusted across 2 rows
	//
	// hit ratio of runs not collapsed, last 10 minutes
	//              │     v1     │                   v2                   │
	//              │ hit ratio  │ hit ratio            vs base           │
	// arm=burst      0.950 ± 0%           –¹
	// arm=no-burst   0.949 ± 1%   0.939 ± 1%  -0.010 (p=0.008 n=8 pairs)
	// test: sign test on seed pairs; ~: not significant at α = 0.05
	// ¹ v2 has no runs not collapsed with turns in the last 10 minutes
}
