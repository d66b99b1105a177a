package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/compare"
	"github.com/outlast-dev/outlast/internal/jsonnum"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// exampleRules is the rules file of the package documentation and of
// "outlast check --help".
func exampleRules(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/ci.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseExample(t *testing.T) {
	rs, err := Parse([]byte(exampleRules(t)), "ci.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Rules) != 3 {
		t.Fatalf("%d rules, want 3", len(rs.Rules))
	}
	r0, r2 := rs.Rules[0], rs.Rules[2]
	if r0.Name != "prevention never collapses" || r0.Line != 2 || len(r0.Where) != 1 || r0.Where[0] != (Cond{"design", "prevention"}) || r0.Require[ReqPersistentRuns] != 0 || r0.IsComparison() {
		t.Errorf("rule 0: %+v", r0)
	}
	if !r2.IsComparison() || r2.Baseline != "A" || r2.Candidate != "B" || r2.Require[ReqCollapseNotWorse] != 1 || r2.Require[ReqAlpha] != 0.05 {
		t.Errorf("rule 2: %+v", r2)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"unknown rule key", "rules:\n  - name: a\n    requre: {persistent_runs: 0}\n",
			`r.yaml:3:5: unknown key "requre" in a rule (did you mean require?); known keys: name, where, dataset, compare, require`},
		{"unknown requirement", "rules:\n  - name: a\n    require: {max_persistent: 0}\n", `r.yaml:3:15: unknown key "max_persistent" in require; known keys: persistent_runs, `},
		{"unknown top key", "rule:\n  - name: a\n", `r.yaml:1:1: unknown key "rule" in the rules file (did you mean rules?); known keys: rules`},
		{"unknown column", "rules:\n  - name: a\n    where: {desing: paired}\n    require: {persistent_runs: 0}\n", `r.yaml:3:13: where: unknown runs column "desing"`},
		{"bad number", "rules:\n  - name: a\n    require: {min_end_hit_ratio: high}\n", `r.yaml:3:34: require: min_end_hit_ratio: want a number`},
		{"bad bool", "rules:\n  - name: a\n    require: {collapse_rate_not_worse: maybe}\n", `r.yaml:3:40: require: collapse_rate_not_worse: want true or false`},
		{"whole number", "rules:\n  - name: a\n    require: {persistent_runs: 0.5}\n", "want a whole number"},
		{"mixed kinds", "rules:\n  - name: a\n    require: {persistent_runs: 0, hit_ratio_not_worse: true}\n", "mixes run requirements"},
		{"no require", "rules:\n  - name: a\n    where: {arm: burst}\n", `r.yaml:2:5: rule "a" has no require`},
		{"no name", "rules:\n  - require: {persistent_runs: 0}\n", "r.yaml:2:5: rule without a name"},
		{"duplicate name", "rules:\n  - name: a\n    require: {min_runs: 1}\n  - name: a\n    require: {min_runs: 1}\n", `rule "a" already defined on line 2`},
		{"duplicate key", "rules:\n  - name: a\n    require: {min_runs: 1, min_runs: 2}\n", "r.yaml:3:28: rules[0].require.min_runs: duplicate key (first at line 3)"},
		{"where not a mapping", "rules:\n  - name: a\n    where: [a]\n    require: {min_runs: 1}\n", "r.yaml:3:12: rules[0].where: want a mapping of keys, got a list"},
		{"not a mapping", "- a\n", "r.yaml:1:1: want a mapping with a rules: key, got a list"},
		{"alpha out of range", "rules:\n  - name: a\n    require: {hit_ratio_not_worse: true, alpha: 1.5}\n", "alpha: want a level in (0, 1)"},
		{"hit ratio above 1", "rules:\n  - name: a\n    require: {min_end_hit_ratio: 1.5}\n", "min_end_hit_ratio: want a hit ratio in [0, 1]"},
		{"syntax", "rules:\n  - name: a\n    require: {min_runs: 1}\n  - name: b: c\n", "r.yaml:4:12: not valid YAML: mapping values are not allowed in this context"},
		{"second document", "rules:\n  - name: a\n    require: {min_runs: 1}\n---\nrules: []\n", "r.yaml:4:1: a second YAML document: a rules file holds exactly one"},
		{"empty", "# nothing yet\n", "r.yaml:1: empty rules file"},
	} {
		_, err := Parse([]byte(tc.src), "r.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	var pe *textpos.ParseError
	_, err := Parse([]byte("rules:\n  - name: a\n    requre: {}\n"), "r.yaml")
	if !errors.As(err, &pe) || pe.Pos.Line != 3 || pe.Column != 5 {
		t.Errorf("error %v: want a *textpos.ParseError at line 3, column 5", err)
	}
}

func TestFromFlags(t *testing.T) {
	rs, err := FromFlags([]string{"design=prevention"}, []string{"persistent_runs=0"})
	if err != nil || len(rs.Rules) != 1 || rs.Rules[0].Where[0].Value != "prevention" {
		t.Fatalf("%+v, %v", rs, err)
	}
	for _, bad := range [][2][]string{
		{nil, {"persistent_runs"}},
		{nil, {"nope=1"}},
		{{"nope=1"}, {"persistent_runs=0"}},
		{{"arm"}, {"persistent_runs=0"}},
		{nil, {"alpha=0.1"}},
	} {
		if _, err := FromFlags(bad[0], bad[1]); err == nil {
			t.Errorf("FromFlags(%v, %v): no error", bad[0], bad[1])
		}
	}
}

// run builds a one-hour run with a turn completing every 10 s (prompt
// 1,000 tokens) whose hit ratio is 0.95, or 0.1 from degradedFrom on
// (negative: never). From 20 minutes on every window is degraded, so the
// run is persistently degraded (§3).
func run(name, design, arm string, seed int64, degradedFrom float64) *schema.RunData {
	rd := &schema.RunData{Run: schema.Run{Run: name, Design: design, Arm: arm, Seed: &seed, DurationS: 3600, PrefixCaching: true, ControlKind: "none", TriggerKind: "none"}}
	for k := 1; k < 360; k++ {
		t := float64(k) * 10
		cached := int64(950)
		if degradedFrom >= 0 && t >= degradedFrom {
			cached = 100
		}
		rd.Turns = append(rd.Turns, schema.Turn{Run: name, Session: "s", Turn: int32(k), DoneS: t, PromptTokens: 1000, CachedTokens: cached, Status: "ok"})
	}
	return rd
}

// TestMaxRecoveryMin checks max_recovery_min: a run collapsed when control
// began at 1200 s and healthy again from 1500 s recovered in 5 minutes; a
// run with no control has no recovery to check, which fails (no data is
// no pass), not "all recovered".
func TestMaxRecoveryMin(t *testing.T) {
	rec := run("r1", "recovery", "budgeter", 1, 600)
	for i := range rec.Turns {
		if rec.Turns[i].DoneS >= 1500 {
			rec.Turns[i].CachedTokens = 950
		}
	}
	rec.Run.ControlKind, rec.Run.ControlStartS = "budgeter", new(float64(1200))
	none := run("n1", "recovery", "none", 1, -1)
	// A control that begins after the run's end, and one over a run with
	// caching off, have nothing to judge either.
	late := run("l1", "recovery", "budgeter", 1, 600)
	late.Run.ControlKind, late.Run.ControlStartS = "budgeter", new(float64(5000))
	off := run("o1", "recovery", "budgeter", 1, 600)
	off.Run.ControlKind, off.Run.ControlStartS, off.Run.PrefixCaching = "budgeter", new(float64(1200)), false
	for _, tc := range []struct {
		runs []*schema.RunData
		pass bool
		want string
	}{
		{[]*schema.RunData{rec}, true, "1 runs collapsed when control began, all recovered within 10 min"},
		{[]*schema.RunData{none}, false, "no selected run has a control whose start could be judged"},
		{[]*schema.RunData{late}, false, "no selected run has a control whose start could be judged"},
		{[]*schema.RunData{off}, false, "no selected run has a control whose start could be judged"},
	} {
		rep := evaluate(t, "rules:\n  - name: r\n    require: {max_recovery_min: 10}\n", []compare.Column{{Label: "A", Runs: tc.runs}})
		v := rep.Verdicts[0]
		if v.Pass != tc.pass || !strings.Contains(v.Details[len(v.Details)-1].Text, tc.want) {
			t.Errorf("%s: %+v", tc.runs[0].Run.Run, v)
		}
	}
}

func evaluate(t *testing.T, src string, cols []compare.Column) *Report {
	t.Helper()
	rs, err := Parse([]byte(src), "r.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Evaluate(rs, cols, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestRunRules(t *testing.T) {
	ds := []*schema.RunData{
		run("p1", "prevention", "budgeter", 1, -1),
		run("p2", "prevention", "budgeter", 2, 1200),
		run("q1", "paired", "no-burst", 1, -1),
	}
	example := exampleRules(t)
	rep := evaluate(t, example[:strings.Index(example, "  - name: B")], []compare.Column{{Label: "A", Runs: ds}})
	if len(rep.Verdicts) != 2 || rep.Failed() != 1 {
		t.Fatalf("verdicts %+v", rep.Verdicts)
	}
	v0, v1 := rep.Verdicts[0], rep.Verdicts[1]
	d := v0.Details[1]
	if v0.Pass || d.OK || d.Text != "persistently degraded runs: 1 of 2, at most 0 allowed (p2)" ||
		d.Measure != ReqPersistentRuns || d.Value != 1 || d.Limit != 0 || len(d.Runs) != 1 || d.Runs[0] != "p2" {
		t.Errorf("prevention rule: %+v", v0)
	}
	// Hit ratio over the last 10 minutes: 950/1000 on every turn.
	d = v1.Details[1]
	if !v1.Pass || !d.OK || d.Text != "smallest end hit ratio 0.95 (q1), at least 0.9 required" || d.Value != 0.95 || d.Limit != 0.9 {
		t.Errorf("hit rule: %+v", v1)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.HasPrefix(out, "FAIL  prevention never collapses\n") || !strings.HasSuffix(out, "FAIL: 1 of 2 rules passed, 1 failed\n") {
		t.Errorf("text:\n%s", out)
	}
	// A run without a prefix cache is cold throughout (its hit ratio is
	// low from the start, so the regime test finds it degraded) but has
	// no regime to collapse into: it is not counted, and a rule over such
	// runs alone fails, naming them: no data is no pass.
	off := run("n1", "prevention", "budgeter", 3, 0)
	off.Run.PrefixCaching = false
	rep = evaluate(t, "rules:\n  - name: n\n    where: {seed: 3}\n    require: {persistent_runs: 0}\n", []compare.Column{{Label: "A", Runs: append(ds, off)}})
	if v := rep.Verdicts[0]; v.Pass || v.Details[1].OK || v.Details[1].Text != "persistently degraded runs: 0 of 0, at most 0 allowed; 1 caching-off run(s) not counted (uncached: n1); no run could be judged" {
		t.Errorf("caching-off run: %+v", v)
	}
	// A run whose engine reported no cached tokens has no known
	// persistence: it is not counted as healthy, and a rule over such
	// runs alone fails: no data is no pass.
	unrep := run("u1", "prevention", "budgeter", 4, 0)
	for i := range unrep.Turns {
		unrep.Turns[i].CachedTokens = 0
	}
	unrep.Run.CacheReported = new(bool)
	rep = evaluate(t, "rules:\n  - name: u\n    where: {seed: 4}\n    require: {persistent_runs: 0}\n", []compare.Column{{Label: "A", Runs: append(ds, unrep)}})
	if v := rep.Verdicts[0]; v.Pass || v.Details[1].OK || v.Details[1].Text != "persistently degraded runs: 0 of 0, at most 0 allowed; 1 run(s) whose persistence is unknown not counted (u1); no run could be judged" {
		t.Errorf("cache-unreported run: %+v", v)
	}
	rep = evaluate(t, "rules:\n  - name: u\n    where: {design: prevention}\n    require: {persistent_runs: 1}\n", []compare.Column{{Label: "A", Runs: append(ds, unrep)}})
	if v := rep.Verdicts[0]; !v.Pass || v.Details[1].Text != "persistently degraded runs: 1 of 2, at most 1 allowed (p2); 1 run(s) whose persistence is unknown not counted (u1)" {
		t.Errorf("cache-unreported run beside judged ones: %+v", v)
	}
	// A rule that selects nothing fails rather than passing vacuously.
	rep = evaluate(t, "rules:\n  - name: none\n    where: {design: drain}\n    require: {persistent_runs: 0}\n", []compare.Column{{Label: "A", Runs: ds}})
	if rep.Failed() != 1 {
		t.Errorf("empty selection passed: %+v", rep.Verdicts)
	}
}

func TestComparisonRule(t *testing.T) {
	var healthy, degraded []*schema.RunData
	for s := int64(1); s <= 6; s++ {
		healthy = append(healthy, run("h", "paired", "no-burst", s, -1))
		degraded = append(degraded, run("d", "paired", "no-burst", s, 600))
	}
	for i := range healthy {
		healthy[i].Run.Run += string(rune('a' + i))
		degraded[i].Run.Run += string(rune('a' + i))
	}
	rules := "rules:\n  - name: B not worse than A\n    compare: {baseline: A, candidate: B}\n    require: {collapse_rate_not_worse: true}\n"
	// 6 seeds, all collapsed in B only: McNemar p = 2·2⁻⁶ = 0.031 < 0.05.
	rep := evaluate(t, rules, []compare.Column{{Label: "A", Runs: healthy}, {Label: "B", Runs: degraded}})
	if d := rep.Verdicts[0].Details[0]; rep.Failed() != 1 || d.OK || !strings.Contains(d.Text, "+100 pp (p=0.031 n=6 pairs)") ||
		d.Measure != compare.MeasureCollapseRate || d.Value != 1 || !near(float64(d.P), 0.03125) {
		t.Errorf("worse candidate: %+v", rep.Verdicts)
	}
	// Better is not worse.
	rep = evaluate(t, rules, []compare.Column{{Label: "A", Runs: degraded}, {Label: "B", Runs: healthy}})
	if rep.Failed() != 0 {
		t.Errorf("better candidate failed: %+v", rep.Verdicts)
	}
	// At α = 0.01 six pairs cannot show any difference (the smallest p
	// any outcome of them could give is 0.031): the rule can neither pass
	// nor fail on them, so it fails, saying why, whichever way the
	// candidate went, rather than passing as "not significant".
	strict := strings.Replace(rules, "collapse_rate_not_worse: true}", "collapse_rate_not_worse: true, alpha: 0.01}", 1)
	for _, cols := range [][]compare.Column{
		{{Label: "A", Runs: healthy}, {Label: "B", Runs: degraded}},
		{{Label: "A", Runs: degraded}, {Label: "B", Runs: healthy}},
	} {
		rep = evaluate(t, strict, cols)
		if d := rep.Verdicts[0].Details[0]; rep.Failed() != 1 || d.OK || !strings.Contains(d.Text, "(too few runs to test at alpha = 0.01: the smallest p these runs could give is 0.031; the rule cannot pass on them)") {
			t.Errorf("alpha 0.01, untestable: %+v", rep.Verdicts)
		}
	}
	// pairs builds two columns of n seeds, B collapsed in bOnly seeds
	// alone and A in aOnly others.
	pairs := func(n, bOnly, aOnly int64) []compare.Column {
		var a, b []*schema.RunData
		for s := int64(1); s <= n; s++ {
			ha, hb := int64(-1), int64(-1)
			switch {
			case s <= bOnly:
				hb = 600
			case s <= bOnly+aOnly:
				ha = 600
			}
			ra, rb := run("a", "paired", "no-burst", s, float64(ha)), run("b", "paired", "no-burst", s, float64(hb))
			ra.Run.Run += fmt.Sprint(s)
			rb.Run.Run += fmt.Sprint(s)
			a, b = append(a, ra), append(b, rb)
		}
		return []compare.Column{{Label: "A", Runs: a}, {Label: "B", Runs: b}}
	}
	// Ten seeds, 7 collapsed in B only and 3 in A only: the test can reach
	// p = 0.002 but gives 0.34, so a worse point estimate passes.
	rep = evaluate(t, strict, pairs(10, 7, 3))
	if d := rep.Verdicts[0].Details[0]; rep.Failed() != 0 || strings.Contains(d.Text, "too few") {
		t.Errorf("testable, not significant: %+v", rep.Verdicts)
	}
	// Two configurations (arms) of six seeds each, B collapsed in all 12:
	// each row's 0.031 is 0.063 after Holm over the two, above 0.05, so
	// the rule fails as one that cannot pass.
	var ha, hb []*schema.RunData
	for _, arm := range []string{"x", "y"} {
		for s := int64(1); s <= 6; s++ {
			ra, rb := run("a"+arm, "paired", arm, s, -1), run("b"+arm, "paired", arm, s, 600)
			ra.Run.Run += fmt.Sprint(s)
			rb.Run.Run += fmt.Sprint(s)
			ha, hb = append(ha, ra), append(hb, rb)
		}
	}
	rep = evaluate(t, rules, []compare.Column{{Label: "A", Runs: ha}, {Label: "B", Runs: hb}})
	if v := rep.Verdicts[0]; v.Pass || len(v.Details) != 2 || !strings.Contains(v.Details[0].Text, "0.063 after Holm over 2 configurations") {
		t.Errorf("Holm over two arms: %+v", v)
	}
	// Arm x of six seeds and arm y of twenty, A collapsed in all of them
	// and B in none: y's tiny p takes Holm's factor, so x keeps its 0.031
	// and is significant: testable, and B, better, passes.
	var ua, ub []*schema.RunData
	for _, arm := range []struct {
		name  string
		seeds int64
	}{{"x", 6}, {"y", 20}} {
		for s := int64(1); s <= arm.seeds; s++ {
			ra, rb := run("a"+arm.name, "paired", arm.name, s, 600), run("b"+arm.name, "paired", arm.name, s, -1)
			ra.Run.Run += fmt.Sprint(s)
			rb.Run.Run += fmt.Sprint(s)
			ua, ub = append(ua, ra), append(ub, rb)
		}
	}
	rep = evaluate(t, rules, []compare.Column{{Label: "A", Runs: ua}, {Label: "B", Runs: ub}})
	if v := rep.Verdicts[0]; !v.Pass || strings.Contains(v.Details[0].Text+v.Details[1].Text, "too few") {
		t.Errorf("unequal arms, B better: %+v", v)
	}
	// Twenty seeds, one collapsed in B only: nineteen pairs tie, which is
	// no lack of runs (twenty pairs could reach any level): it passes.
	rep = evaluate(t, strict, pairs(20, 1, 0))
	if d := rep.Verdicts[0].Details[0]; rep.Failed() != 0 || strings.Contains(d.Text, "too few") {
		t.Errorf("one discordant pair of twenty: %+v", rep.Verdicts)
	}
	// Naming a column that is not there is an input error, not a verdict.
	rs, _ := Parse([]byte(rules), "r.yaml")
	if _, err := Evaluate(rs, []compare.Column{{Label: "A", Runs: healthy}, {Label: "C", Runs: degraded}}, compare.Options{}); err == nil {
		t.Error("unknown candidate: no error")
	}
	rs, _ = FromFlags(nil, []string{"collapse_rate_not_worse=true"})
	if _, err := Evaluate(rs, []compare.Column{{Label: "A", Runs: healthy}}, compare.Options{}); err == nil {
		t.Error("comparison over one dataset: no error")
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestReportFormats writes one report in each format: the text the
// command prints, JSON with the numbers, Markdown for a CI summary page.
func TestReportFormats(t *testing.T) {
	nan := jsonnum.Float(math.NaN())
	rep := &Report{Verdicts: []Verdict{
		{Rule: "runs", Pass: true, Details: []Detail{{OK: true, Text: "all runs: 4 runs (need at least 4)", Measure: ReqMinRuns, Value: 4, Limit: 4, P: nan}}},
		{Rule: "a | perfect_cache", Pass: false, Details: []Detail{
			{OK: true, Dataset: "A", Text: "all runs: 4 runs (need at least 1)", Measure: ReqMinRuns, Value: 4, Limit: 1, P: nan},
			{OK: false, Dataset: "A", Text: "smallest end hit ratio 0.93 (s1-none), at least 1 required", Measure: ReqMinEndHitRatio, Value: 0.93, Limit: 1, P: nan, Runs: []string{"s1-none"}},
		}},
	}}
	for _, tc := range []struct{ format, want string }{
		{FormatText, `PASS  runs
      ok   all runs: 4 runs (need at least 4)
FAIL  a | perfect_cache
      ok   A: all runs: 4 runs (need at least 1)
      FAIL A: smallest end hit ratio 0.93 (s1-none), at least 1 required
FAIL: 1 of 2 rules passed, 1 failed
`},
		{FormatMarkdown, `### outlast check: FAIL: 1 of 2 rules passed, 1 failed

| Rule | Verdict |
|---|---|
| runs | PASS |
| a \| perfect\_cache | **FAIL** |

#### PASS: runs

- ok all runs: 4 runs (need at least 4)

#### **FAIL**: a | perfect\_cache

- ok A: all runs: 4 runs (need at least 1)
- **FAIL** A: smallest end hit ratio 0.93 (s1-none), at least 1 required
`},
	} {
		var b bytes.Buffer
		if err := rep.Write(&b, tc.format); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tc.format, b.String(), tc.want)
		}
	}
	var b bytes.Buffer
	if err := rep.Write(&b, FormatJSON); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Pass           bool
		Passed, Failed int
		Verdicts       []struct {
			Rule    string
			Pass    bool
			Details []map[string]any
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	d := got.Verdicts[1].Details[1]
	if got.Pass || got.Passed != 1 || got.Failed != 1 || got.Verdicts[1].Pass || d["ok"] != false || d["dataset"] != "A" ||
		d["measure"] != "min_end_hit_ratio" || d["value"] != 0.93 || d["limit"] != 1.0 || d["p"] != nil || d["runs"].([]any)[0] != "s1-none" {
		t.Errorf("JSON:\n%s", b.String())
	}
	if err := rep.Write(&b, "yaml"); err == nil {
		t.Error("unknown format: no error")
	}
}

// TestMissingValueNamesTheKnownWorst checks min_end_hit_ratio over a run
// without an end hit ratio (no turn in the last 10 minutes) beside one
// degraded to 0.1: the detail names the missing one and the 0.1 too,
// which fails the rule as well.
func TestMissingValueNamesTheKnownWorst(t *testing.T) {
	deg := run("d1", "paired", "burst", 1, 600)
	cut := run("c1", "paired", "no-burst", 1, -1)
	kept := cut.Turns[:0]
	for _, tn := range cut.Turns {
		if tn.DoneS < 2400 {
			kept = append(kept, tn)
		}
	}
	cut.Turns = kept
	rep := evaluate(t, "rules:\n  - name: h\n    require: {min_end_hit_ratio: 0.5}\n", []compare.Column{{Label: "A", Runs: []*schema.RunData{deg, cut}}})
	v := rep.Verdicts[0]
	if v.Pass || !strings.Contains(v.Details[len(v.Details)-1].Text, "smallest end hit ratio missing (c1); of the runs with one, 0.1 (d1)") {
		t.Errorf("%+v", v)
	}
}
