package check

import (
	"strings"
	"testing"
)

// TestRequirementTypes checks that a requirement's value has its YAML
// type: a quoted number or flag is refused with run.yaml's wording, at the
// value, and so is a string YAML does not read as a number.
func TestRequirementTypes(t *testing.T) {
	rule := func(req string) string { return "rules:\n  - name: a\n    require: {" + req + "}\n" }
	for _, c := range []struct{ src, want string }{
		{rule(`min_end_hit_ratio: "0.5"`), `r.yaml:3:34: require: min_end_hit_ratio: want a number, got the quoted string "0.5"`},
		{rule(`min_end_hit_ratio: '0.5'`), `r.yaml:3:34: require: min_end_hit_ratio: want a number, got the quoted string "0.5"`},
		{rule(`min_runs: "2"`), `r.yaml:3:25: require: min_runs: want a number, got the quoted string "2"`},
		{rule(`min_end_hit_ratio: !!str 0.5`), `r.yaml:3:34: require: min_end_hit_ratio: want a number, got "0.5"`},
		{rule(`min_end_hit_ratio: NaN`), `r.yaml:3:34: require: min_end_hit_ratio: want a number, got "NaN"`},
		{rule(`min_end_hit_ratio: [1]`), `r.yaml:3:34: require: min_end_hit_ratio: want a number, got a list`},
		{rule(`hit_ratio_not_worse: "true"`), `r.yaml:3:36: require: hit_ratio_not_worse: want true or false, got the quoted string "true"`},
		{rule(`hit_ratio_not_worse: 1`), `r.yaml:3:36: require: hit_ratio_not_worse: want true or false, got 1`},
		{"rules:\n  - name: a\n    require:\n      min_end_hit_ratio: \"0.5\"\n", `r.yaml:4:26: require: min_end_hit_ratio: want a number, got the quoted string "0.5"`},
	} {
		_, err := Parse([]byte(c.src), "r.yaml")
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
	// The plain forms are read.
	for _, src := range []string{rule(`min_end_hit_ratio: 0.5`), rule(`min_end_hit_ratio: 5e-1`), rule(`min_runs: 2`),
		rule(`hit_ratio_not_worse: true, alpha: 0.01`), rule(`persistent_runs: 0x0`)} {
		if _, err := Parse([]byte(src), "r.yaml"); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// TestRulesSyntaxErrors checks that a rules file's YAML faults are placed
// at the fault (internal/yamlpos), not at the line the YAML parser names.
func TestRulesSyntaxErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"rules:\n  - name: \"a\n    require: {min_runs: 1}\n",
			"r.yaml:2:11: not valid YAML: the quoted string that opens here is not closed"},
		{"rules:\n  - name: a\n\trequire: {min_runs: 1}\n",
			"r.yaml:3:1: not valid YAML: a tab in the indentation (YAML indents with spaces only)"},
		{"rules:\n  - name: a\n    require: {min_runs: 1\n  - name: b\n",
			`r.yaml:3:14: not valid YAML: the '{' that opens here is not closed (did not find expected ',' or '}')`},
		{"rules:\n  - name: a\n    require: {min_runs: 1}\n   where: {arm: x}\n",
			"r.yaml:4:4: not valid YAML: did not find expected '-' indicator (check the indentation of this line against the lines above, and for text after a value)"},
	} {
		_, err := Parse([]byte(c.src), "r.yaml")
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}

// TestWhereVerdict: a rule cannot select runs by their verdict (where
// selects by setup; require judges outcomes). One that tries, with the
// verdict words of before (healthy) or the current ones, is refused with a
// message that says so and names the verdicts.
func TestWhereVerdict(t *testing.T) {
	for _, src := range []string{
		"rules:\n  - name: a\n    where: {verdict: healthy}\n    require: {min_runs: 1}\n",
		"rules:\n  - name: a\n    where: {verdict: never-degraded}\n    require: {min_runs: 1}\n",
	} {
		_, err := Parse([]byte(src), "r.yaml")
		want := `r.yaml:3:13: where: "verdict" is an outcome, not a runs column: select runs by their setup and judge outcomes with require (persistent_runs, min_end_hit_ratio, max_end_sessions, max_recovery_min); the verdicts are never-degraded, recovered-alone, recovered-under-control, partial, persistent (healthy, recovered and collapsed are no longer verdicts)`
		if err == nil || err.Error() != want {
			t.Errorf("%q:\n got %v\nwant %s", src, err, want)
		}
	}
	if _, err := FromFlags([]string{"verdict=healthy"}, []string{"min_runs=1"}); err == nil || !strings.Contains(err.Error(), "never-degraded") {
		t.Errorf("--where verdict=healthy: %v", err)
	}
}
