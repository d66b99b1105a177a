package stats

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Table2Arm is one arm of a Table 2 row.
type Table2Arm struct {
	Run         string
	EndHit      float64
	EndSessions float64
	Persistent  bool
	// Judged is RunSummary.Judged: without it, Persistent says nothing.
	Judged bool
}

// Table2Row is one pair of Table 2.
type Table2Row struct {
	Experiment string
	Seed       int64
	Twin       Table2Arm
	Burst      Table2Arm
}

// Table2 lists paired runs with an identical base workload (§3, Table 2)
// and the sign test over discordant pairs.
type Table2 struct {
	Rows []Table2Row
	// BurstOnly counts pairs where only the burst run degraded persistently,
	// TwinOnly only the twin, Both and Neither the rest, among the pairs
	// whose two runs were judged (RunSummary.Judged); Unjudged counts the
	// other rows, left out of the counts and the test.
	BurstOnly int
	TwinOnly  int
	Both      int
	Neither   int
	Unjudged  int
	// SignP is the exact two-sided sign test of BurstOnly among BurstOnly +
	// TwinOnly; NaN without discordant pairs.
	SignP    float64
	Warnings []string
}

// NewTable2 pairs runs by (experiment, seed) between twinArm and burstArm
// and fills Table 2. Runs without a seed are left out; when several runs
// share an (experiment, seed, arm), the first by run name is used and a
// warning says so. Rows are ordered by experiment, then seed.
func NewTable2(summaries []RunSummary, twinArm, burstArm string) Table2 {
	type key struct {
		exp  string
		seed int64
	}
	pick := func(arm string) (map[key]RunSummary, []string) {
		m := map[key]RunSummary{}
		var warn []string
		for _, s := range sortedByRun(summaries) {
			if s.Arm != arm || s.Seed == nil {
				continue
			}
			k := key{s.Experiment, *s.Seed}
			if prev, dup := m[k]; dup {
				warn = append(warn, fmt.Sprintf("experiment %q seed %d arm %q: runs %s and %s; using %s", k.exp, k.seed, arm, prev.Run, s.Run, prev.Run))
				continue
			}
			m[k] = s
		}
		return m, warn
	}
	twins, w1 := pick(twinArm)
	bursts, w2 := pick(burstArm)
	t := Table2{SignP: math.NaN(), Warnings: append(w1, w2...)}
	keys := make([]key, 0, len(twins))
	var lone []string
	for k, s := range twins {
		if _, ok := bursts[k]; ok {
			keys = append(keys, k)
		} else {
			lone = append(lone, s.Run)
		}
	}
	for k, s := range bursts {
		if _, ok := twins[k]; !ok {
			lone = append(lone, s.Run)
		}
	}
	for _, s := range summaries {
		if s.Seed == nil && (s.Arm == twinArm || s.Arm == burstArm) {
			lone = append(lone, s.Run)
		}
	}
	if len(lone) > 0 {
		sort.Strings(lone)
		t.Warnings = append(t.Warnings, fmt.Sprintf("%d run(s) without a %q/%q partner of the same seed, left out: %s",
			len(lone), twinArm, burstArm, strings.Join(lone, ", ")))
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].exp != keys[j].exp {
			return keys[i].exp < keys[j].exp
		}
		return keys[i].seed < keys[j].seed
	})
	arm := func(s RunSummary) Table2Arm {
		return Table2Arm{Run: s.Run, EndHit: s.EndHit, EndSessions: s.EndSessions, Persistent: s.Persistent, Judged: s.Judged()}
	}
	for _, k := range keys {
		row := Table2Row{Experiment: k.exp, Seed: k.seed, Twin: arm(twins[k]), Burst: arm(bursts[k])}
		t.Rows = append(t.Rows, row)
		switch {
		case !row.Burst.Judged || !row.Twin.Judged:
			t.Unjudged++
			var why []string
			for _, a := range []RunSummary{twins[k], bursts[k]} {
				if !a.Judged() {
					why = append(why, fmt.Sprintf("%s (%s)", a.Run, unjudgedReason(a)))
				}
			}
			t.Warnings = append(t.Warnings, fmt.Sprintf("experiment %q seed %d: persistence unknown for %s; the pair is left out of the counts and the sign test",
				k.exp, k.seed, strings.Join(why, " and ")))
		case row.Burst.Persistent && row.Twin.Persistent:
			t.Both++
		case row.Burst.Persistent:
			t.BurstOnly++
		case row.Twin.Persistent:
			t.TwinOnly++
		default:
			t.Neither++
		}
	}
	if n := t.BurstOnly + t.TwinOnly; n > 0 {
		t.SignP = SignTest(t.BurstOnly, n)
	}
	return t
}

// unjudgedReason says why a run was not judged (RunSummary.Judged).
func unjudgedReason(s RunSummary) string {
	switch {
	case s.TriggerAfterEnd:
		return "its trigger starts after its end"
	case s.NoWindowAfter:
		return "no 5-minute window with a turn after its trigger"
	case s.Short:
		return "shorter than the 10-minute end window"
	}
	switch s.Verdict {
	case VerdictNoTurns:
		return "no turn"
	case VerdictUncached:
		return "prefix caching off"
	case VerdictCacheUnreported:
		return "cached tokens unreported"
	}
	return "no turn in the last 10 minutes"
}

func sortedByRun(summaries []RunSummary) []RunSummary {
	s := append([]RunSummary(nil), summaries...)
	sort.SliceStable(s, func(i, j int) bool { return s[i].Run < s[j].Run })
	return s
}
