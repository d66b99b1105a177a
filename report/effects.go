package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// effectConfidence is the level of the effect sizes' intervals.
const effectConfidence = 0.95

// armEffect is where one arm of a paired experiment ended: the median end
// hit ratio and end sessions of its runs with their order-statistic
// intervals (stats.NewMedianCI).
type armEffect struct {
	hit, sessions stats.MedianCI
}

// pairedEffects are the effects of the burst runs and of their twins over
// the pairs Table 2 counts (both runs judged); a run without a value is
// left out of that value.
func pairedEffects(t2 stats.Table2) (burst, twin armEffect) {
	var bh, bs, th, ts []float64
	keep := func(xs []float64, v float64) []float64 {
		if math.IsNaN(v) {
			return xs
		}
		return append(xs, v)
	}
	for _, r := range t2.Rows {
		if !r.Burst.Judged || !r.Twin.Judged {
			continue
		}
		bh, bs = keep(bh, r.Burst.EndHit), keep(bs, r.Burst.EndSessions)
		th, ts = keep(th, r.Twin.EndHit), keep(ts, r.Twin.EndSessions)
	}
	ci := func(x []float64) stats.MedianCI { return stats.NewMedianCI(x, effectConfidence) }
	return armEffect{ci(bh), ci(bs)}, armEffect{ci(th), ci(ts)}
}

// effectNumbers adds an arm's effects to nums under prefix ("burst",
// "twin"): PREFIX_end_hit (the median), PREFIX_end_hit_lo and _hi (its
// interval, null when the runs are too few), and the same for
// end_sessions.
func effectNumbers(nums numbers, prefix string, a armEffect) {
	for _, m := range []struct {
		name string
		ci   stats.MedianCI
	}{{"end_hit", a.hit}, {"end_sessions", a.sessions}} {
		nums[prefix+"_"+m.name] = m.ci.Median
		nums[prefix+"_"+m.name+"_lo"], nums[prefix+"_"+m.name+"_hi"] = m.ci.Lo, m.ci.Hi
	}
}

// medianText is a median with its interval when withCI: "0.11 (95% CI
// 0.10–0.12)", the first of a sentence, later ones "0.95 (0.94–0.95)".
func medianText(ci stats.MedianCI, prec int, withCI, first bool) string {
	if math.IsNaN(ci.Median) {
		return "–"
	}
	s := document.Num(ci.Median, prec).Display()
	switch {
	case !withCI || !ci.OK:
		return s
	case first:
		return s + fmt.Sprintf(" (%.0f%% CI %s)", 100*effectConfidence, document.Range(ci.Lo, ci.Hi, prec).Display())
	}
	return s + " (" + document.Range(ci.Lo, ci.Hi, prec).Display() + ")"
}

// effectsText says where the burst runs and the twins ended: medians with
// their intervals, or, when the pairs are too few for an interval, the
// medians and that.
func effectsText(burst, twin armEffect) string {
	withCI := burst.hit.OK && twin.hit.OK && burst.sessions.OK && twin.sessions.OK
	s := fmt.Sprintf("At the end, the burst runs' median hit ratio was %s against their twins' %s, with %s sessions in the system against %s",
		medianText(burst.hit, 2, withCI, true), medianText(twin.hit, 2, withCI, false), medianText(burst.sessions, 1, withCI, false), medianText(twin.sessions, 1, withCI, false))
	if !withCI {
		s += fmt.Sprintf(" (%s: too few for a %.0f%% interval of a median, which needs %d)", plural(min(burst.hit.N, twin.hit.N), "pair"), 100*effectConfidence, minMedianCIRuns)
	}
	return s
}

// minMedianCIRuns is the fewest values whose median has an
// order-statistic interval at effectConfidence: 6 (the extremes of 6
// cover it with probability 1 − 2/2⁶ = 0.969).
const minMedianCIRuns = 6

// experimentFindings adds the findings about an experiment whose runs
// span several sections (engines or engine versions): the sign test over
// the pairs of every section, each matched within its engine, beside the
// sections' own; and a warning naming the pairs whose two runs fell into
// different sections, which no section pairs.
func (b *builder) experimentFindings(secs []*experiment) {
	if len(secs) < 2 || secs[0].design != schema.DesignPaired {
		return
	}
	all := &experiment{name: secs[0].name, design: secs[0].design, label: secs[0].name + " (all engines)", slug: secs[0].slug}
	var t2s []stats.Table2
	burstArm := schema.ArmBurst
	for _, e := range secs {
		t2s = append(t2s, stats.NewTable2(summaries(e.runs), twinArmOf(e), burstArm))
		all.runs = append(all.runs, e.runs...)
	}
	var burstOnly, twinOnly, both, neither, unjudged int
	var engines []string
	for i, t2 := range t2s {
		burstOnly, twinOnly, both, neither, unjudged = burstOnly+t2.BurstOnly, twinOnly+t2.TwinOnly, both+t2.Both, neither+t2.Neither, unjudged+t2.Unjudged
		if n := len(t2.Rows) - t2.Unjudged; n > 0 {
			engines = append(engines, fmt.Sprintf("%s: %d of %d, %s", secs[i].engine, t2.BurstOnly+t2.Both, n, pText(t2.SignP)))
		}
	}
	if n := burstOnly + twinOnly + both + neither; len(engines) > 1 {
		p := math.NaN()
		if burstOnly+twinOnly > 0 {
			p = stats.SignTest(burstOnly, burstOnly+twinOnly)
		}
		nums := numbers{"pairs": float64(n), "burst_persistent": float64(burstOnly + both), "twin_persistent": float64(twinOnly + both),
			"burst_only": float64(burstOnly), "twin_only": float64(twinOnly), "both": float64(both), "neither": float64(neither), "p": p, "sections": float64(len(engines))}
		b.found(all, "sign-test-pooled", false, nil, nums,
			fmt.Sprintf("over the pairs of every engine, each matched within its engine, bursts left %d of %d servers persistently degraded, their twins %d (exact sign test %s, %s); by engine: %s.",
				burstOnly+both, n, twinOnly+both, pText(p), plural(n, "pair"), strings.Join(engines, "; ")))
	}
	b.splitPairFinding(all, secs)
}

// splitPairFinding warns of the pairs of a paired experiment whose burst
// run and twin are in different sections (engine versions that differ, a
// patch release apart): neither section pairs them, so they are in no
// Table 2 and no sign test.
func (b *builder) splitPairFinding(all *experiment, secs []*experiment) {
	type key struct {
		seed int64
		arm  string
	}
	where := map[key]*experiment{}
	runOf := map[key]*runInfo{}
	for _, e := range secs {
		twin := twinArmOf(e)
		for _, r := range e.runs {
			if r.run.Seed == nil || (r.run.Arm != twin && r.run.Arm != schema.ArmBurst) {
				continue
			}
			arm := r.run.Arm
			if arm == twin {
				arm = "twin"
			}
			k := key{*r.run.Seed, arm}
			where[k], runOf[k] = e, r
		}
	}
	var seeds []int64
	for k, e := range where {
		if k.arm != schema.ArmBurst {
			continue
		}
		if t, ok := where[key{k.seed, "twin"}]; ok && t != e {
			seeds = append(seeds, k.seed)
		}
	}
	if len(seeds) == 0 {
		return
	}
	sort.Slice(seeds, func(i, j int) bool { return seeds[i] < seeds[j] })
	var parts, runs []string
	for _, s := range seeds {
		bu, tw := runOf[key{s, schema.ArmBurst}], runOf[key{s, "twin"}]
		parts = append(parts, fmt.Sprintf("seed %d (%s on %s, its twin %s on %s)", s, bu.name(), where[key{s, schema.ArmBurst}].engine, tw.name(), where[key{s, "twin"}].engine))
		runs = append(runs, bu.name(), tw.name())
	}
	subj, it := "1 pair is", "the pair is"
	if len(seeds) > 1 {
		subj, it = fmt.Sprintf("%d pairs are", len(seeds)), "they are"
	}
	b.found(all, "pair-split", true, runs, numbers{"pairs": float64(len(seeds))},
		fmt.Sprintf("%s split between engines or engine versions: %s. No section pairs a burst run with a twin of another engine version, so %s in no Table 2, count or sign test; run both arms of a seed on one engine version.",
			subj, strings.Join(parts, "; "), it))
}
