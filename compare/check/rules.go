package check

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/compare"
	"github.com/outlast-dev/outlast/internal/yamlpos"
	"github.com/outlast-dev/outlast/stats"
)

// Requirement keys of a rule over runs (each must hold for the runs its
// where selects, in every dataset the rule applies to).
const (
	ReqPersistentRuns   = "persistent_runs"         // at most this many runs persistently degraded
	ReqMinEndHitRatio   = "min_end_hit_ratio"       // every run's end hit ratio at least this
	ReqMaxEndSessions   = "max_end_sessions"        // every run's end sessions at most this
	ReqMaxRecoveryMin   = "max_recovery_min"        // every run collapsed at control recovered within this many minutes
	ReqMinRuns          = "min_runs"                // at least this many runs selected (default 1)
	ReqCollapseNotWorse = "collapse_rate_not_worse" // comparison: candidate's collapse rate not significantly higher
	ReqHitNotWorse      = "hit_ratio_not_worse"     // comparison: candidate's healthy hit ratio not significantly lower
	ReqTputNotWorse     = "throughput_not_worse"    // comparison: candidate's turn throughput not significantly lower
	ReqAlpha            = "alpha"                   // comparison: significance level (default 0.05)

	// Latency (stats.RunIndex.Latency, goodput under stats.DefaultSLO).
	ReqMaxTTFTP90      = "max_ttft_p90_s"         // every run's TTFT p90 at most this many seconds
	ReqMaxEndTTFTP90   = "max_end_ttft_p90_s"     // every run's TTFT p90 over the last 10 minutes at most this
	ReqMaxTPOTP90      = "max_tpot_p90_s"         // every run's TPOT p90 at most this
	ReqMaxE2EP90       = "max_e2e_p90_s"          // every run's end-to-end p90 at most this
	ReqMinGoodput      = "min_goodput"            // every run's goodput at least this
	ReqTTFTNotWorse    = "ttft_p90_not_worse"     // comparison: candidate's TTFT p90 not significantly higher
	ReqEndTTFTNotWorse = "end_ttft_p90_not_worse" // comparison: candidate's end TTFT p90 not significantly higher
	ReqTPOTNotWorse    = "tpot_p90_not_worse"     // comparison: candidate's TPOT p90 not significantly higher
	ReqE2ENotWorse     = "e2e_p90_not_worse"      // comparison: candidate's end-to-end p90 not significantly higher
	ReqGoodputNotWorse = "goodput_not_worse"      // comparison: candidate's goodput not significantly lower
)

var runRequirements = []string{ReqPersistentRuns, ReqMinEndHitRatio, ReqMaxEndSessions, ReqMaxRecoveryMin, ReqMinRuns,
	ReqMaxTTFTP90, ReqMaxEndTTFTP90, ReqMaxTPOTP90, ReqMaxE2EP90, ReqMinGoodput}
var compareRequirements = []string{ReqCollapseNotWorse, ReqHitNotWorse, ReqTputNotWorse, ReqAlpha,
	ReqTTFTNotWorse, ReqEndTTFTNotWorse, ReqTPOTNotWorse, ReqE2ENotWorse, ReqGoodputNotWorse}

// Rules is a parsed rules file.
type Rules struct {
	Rules []Rule
}

// Rule is one named requirement. A rule with Compare (or with a
// comparison requirement) compares a candidate column with a baseline;
// any other rule checks the runs of each dataset, or of Dataset only.
type Rule struct {
	Name string
	// Line is the rule's line in the rules file (0 for flags).
	Line int
	// Where selects runs by runs-table column (see compare.RunsColumn);
	// every condition must hold.
	Where []Cond
	// Dataset, if set, is the one column label a run rule applies to.
	Dataset string
	// Baseline and Candidate name the compared columns; empty means the
	// first column against every other.
	Baseline, Candidate string
	// Require holds the requirements by key; comparison flags are 1 for
	// true and 0 for false.
	Require map[string]float64
}

// Cond is one where condition: the column's value equals Value (numbers
// compare as numbers, so 0.035 matches 3.5e-2).
type Cond struct {
	Column, Value string
}

// IsComparison reports whether the rule compares columns.
func (r *Rule) IsComparison() bool {
	if r.Baseline != "" || r.Candidate != "" {
		return true
	}
	for _, k := range compareRequirements {
		if _, ok := r.Require[k]; ok && k != ReqAlpha {
			return true
		}
	}
	return false
}

// ruleKeys are the keys of one rule.
var ruleKeys = []string{"name", "where", "dataset", "compare", "require"}

// Parse parses a rules file:
//
//	rules:
//	  - name: TEXT
//	    where: {COLUMN: VALUE, ...}          # optional
//	    dataset: LABEL                       # optional, run rules only
//	    compare: {baseline: A, candidate: B} # optional
//	    require: {KEY: VALUE, ...}
//
// Errors are *textpos.ParseError values at the offending node,
// "file:line:column: reason": YAML syntax, unknown keys (with the key most
// likely meant), duplicate keys, a rule without name or require, and
// requirements of both kinds in one rule.
func Parse(data []byte, file string) (*Rules, error) {
	f := &yamlpos.File{Name: file, Columns: true}
	root, err := f.Decode(data, "a rules file")
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, f.Errorf(nil, "empty rules file")
	}
	if root.Kind != yaml.MappingNode {
		return nil, f.Errorf(root, "want a mapping with a rules: key, got %s", yamlpos.Describe(root))
	}
	top, err := fields(f, root, "", "the rules file", []string{"rules"})
	if err != nil {
		return nil, err
	}
	list, ok := top["rules"]
	if !ok {
		return nil, f.Errorf(root, "no rules: key")
	}
	if list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		return nil, f.Errorf(list, "rules: want a list of rules")
	}
	rs := &Rules{}
	names := map[string]int{}
	for i, item := range list.Content {
		item = yamlpos.Resolve(item)
		r, err := parseRule(f, item, fmt.Sprintf("rules[%d]", i))
		if err != nil {
			return nil, err
		}
		if prev, dup := names[r.Name]; dup {
			return nil, f.Errorf(item, "rule %q already defined on line %d", r.Name, prev)
		}
		names[r.Name] = item.Line
		rs.Rules = append(rs.Rules, r)
	}
	return rs, nil
}

// parseRule parses one item of the rules list; path names it in messages
// ("rules[0]").
func parseRule(f *yamlpos.File, item *yaml.Node, path string) (Rule, error) {
	r := Rule{Line: item.Line, Require: map[string]float64{}}
	fs, err := fields(f, item, path, "a rule", ruleKeys)
	if err != nil {
		return r, err
	}
	n, ok := fs["name"]
	if !ok || n.Kind != yaml.ScalarNode || strings.TrimSpace(n.Value) == "" {
		return r, f.Errorf(item, "rule without a name")
	}
	r.Name = n.Value
	if w, ok := fs["where"]; ok {
		conds, err := f.Mapping(w, path+".where")
		if err != nil {
			return r, err
		}
		for _, e := range conds {
			if err := checkColumn(e.Name); err != nil {
				return r, f.Errorf(e.Key, "where: %v", err)
			}
			if e.Value.Kind != yaml.ScalarNode {
				return r, f.Errorf(e.Value, "where: %s: want a single value", e.Name)
			}
			r.Where = append(r.Where, Cond{Column: e.Name, Value: e.Value.Value})
		}
	}
	if d, ok := fs["dataset"]; ok {
		if d.Kind != yaml.ScalarNode {
			return r, f.Errorf(d, "dataset: want a column label")
		}
		r.Dataset = d.Value
	}
	if c, ok := fs["compare"]; ok {
		pair, err := fields(f, c, path+".compare", "compare", []string{"baseline", "candidate"})
		if err != nil {
			return r, err
		}
		b, okB := pair["baseline"]
		cand, okC := pair["candidate"]
		if !okB || !okC {
			return r, f.Errorf(c, "compare: want both baseline and candidate")
		}
		r.Baseline, r.Candidate = b.Value, cand.Value
	}
	req, ok := fs["require"]
	if !ok {
		return r, f.Errorf(item, "rule %q has no require", r.Name)
	}
	reqs, err := f.Mapping(req, path+".require")
	if err != nil {
		return r, err
	}
	known := slices.Concat(runRequirements, compareRequirements)
	for _, e := range reqs {
		if !slices.Contains(known, e.Name) {
			return r, f.UnknownKey(e, "require", known)
		}
		v, err := yamlRequirement(e.Name, e.Value)
		if err != nil {
			return r, f.Errorf(e.Value, "require: %v", err)
		}
		r.Require[e.Name] = v
	}
	if err := r.validate(); err != nil {
		return r, f.Errorf(req, "rule %q: %v", r.Name, err)
	}
	return r, nil
}

// fields returns the values of mapping n by key, every key one of known:
// another key is an error naming section and the known key it most likely
// meant.
func fields(f *yamlpos.File, n *yaml.Node, path, section string, known []string) (map[string]*yaml.Node, error) {
	es, err := f.Mapping(n, path)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*yaml.Node, len(es))
	for _, e := range es {
		if !slices.Contains(known, e.Name) {
			return nil, f.UnknownKey(e, section, known)
		}
		out[e.Name] = e.Value
	}
	return out, nil
}

// checkColumn accepts a runs-table column or a label key. A rule that
// selects by verdict is told why it cannot, and what the verdicts are: a
// rules file written for the verdicts of before (healthy) learns the new
// words.
func checkColumn(name string) error {
	if strings.HasPrefix(name, compare.LabelPrefix) && len(name) > len(compare.LabelPrefix) {
		return nil
	}
	if name == "verdict" {
		vs := make([]string, len(stats.JudgedVerdicts))
		for i, v := range stats.JudgedVerdicts {
			vs[i] = string(v)
		}
		return fmt.Errorf(`"verdict" is an outcome, not a runs column: select runs by their setup and judge outcomes with require (%s); the verdicts are %s (healthy, recovered and collapsed are no longer verdicts)`,
			strings.Join([]string{ReqPersistentRuns, ReqMinEndHitRatio, ReqMaxEndSessions, ReqMaxRecoveryMin}, ", "), strings.Join(vs, ", "))
	}
	if name == "run" || slices.Contains(compare.RunsColumns(), name) {
		return nil
	}
	return fmt.Errorf("unknown runs column %q", name)
}

// isFlag reports whether requirement key is a comparison flag (true or
// false) rather than a number.
func isFlag(key string) bool {
	return slices.Contains(compareRequirements, key) && key != ReqAlpha
}

// yamlRequirement reads a requirement's value from the rules file: a YAML
// boolean for the comparison flags, a YAML number otherwise. A quoted
// number or boolean is refused as run.yaml refuses one
// (ingest/manifest): "0.5" is a string that looks like a number, and a
// typed file should not guess.
func yamlRequirement(key string, n *yaml.Node) (float64, error) {
	want, tags := "a number", []string{"!!int", "!!float"}
	if isFlag(key) {
		want, tags = "true or false", []string{"!!bool"}
	}
	if n.Kind != yaml.ScalarNode || !slices.Contains(tags, n.ShortTag()) {
		return 0, fmt.Errorf("%s: want %s, got %s", key, want, yamlpos.Describe(n))
	}
	if isFlag(key) {
		var b bool
		if err := n.Decode(&b); err != nil {
			return 0, fmt.Errorf("%s: want true or false, got %s", key, yamlpos.Describe(n))
		}
		return flagValue(b), nil
	}
	var v float64
	if err := n.Decode(&v); err != nil {
		return 0, fmt.Errorf("%s: want a number, got %s", key, yamlpos.Describe(n))
	}
	return checkRequirement(key, v, n.Value)
}

func flagValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// requirementValue parses a requirement's value given as a flag's text:
// true/false for the comparison flags, a non-negative number otherwise.
func requirementValue(key, s string) (float64, error) {
	if isFlag(key) {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return 0, fmt.Errorf("%s: want true or false, have %q", key, s)
		}
		return flagValue(b), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: want a number ≥ 0, have %q", key, s)
	}
	return checkRequirement(key, v, s)
}

// checkRequirement checks the range of number v of requirement key,
// written s.
func checkRequirement(key string, v float64, s string) (float64, error) {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s: want a number ≥ 0, have %q", key, s)
	}
	if key == ReqAlpha && !(v > 0 && v < 1) {
		return 0, fmt.Errorf("alpha: want a level in (0, 1), have %q", s)
	}
	if key == ReqMinEndHitRatio && v > 1 {
		return 0, fmt.Errorf("%s: want a hit ratio in [0, 1], have %q", key, s)
	}
	if key == ReqMinGoodput && v > 1 {
		return 0, fmt.Errorf("%s: want a share of turns in [0, 1], have %q", key, s)
	}
	if (key == ReqPersistentRuns || key == ReqMinRuns) && v != float64(int(v)) {
		return 0, fmt.Errorf("%s: want a whole number, have %q", key, s)
	}
	return v, nil
}

// validate checks that a rule's requirements are of one kind.
func (r *Rule) validate() error {
	var run, cmp bool
	for k := range r.Require {
		if slices.Contains(runRequirements, k) {
			run = true
		} else if k != ReqAlpha {
			cmp = true
		}
	}
	switch {
	case len(r.Require) == 0:
		return errors.New("require is empty")
	case run && cmp:
		return errors.New("mixes run requirements with comparison requirements; make two rules")
	case run && (r.Baseline != "" || r.Candidate != ""):
		return errors.New("compare: needs a comparison requirement (" + strings.Join(compareRequirements[:3], ", ") + ")")
	case !run && !cmp:
		return errors.New("alpha alone requires nothing")
	case cmp && r.Dataset != "":
		return errors.New("dataset: applies to run requirements only; use compare: {baseline, candidate}")
	}
	return nil
}

// boundForm reads a requirement written as a bound, "end_ttft_p90_s <= 5"
// or "goodput>=0.9": MEASURE<=X is the requirement max_MEASURE, MEASURE>=X
// min_MEASURE, when that requirement exists; ok is false otherwise.
func boundForm(q string) (key, value string, ok bool) {
	for op, prefix := range map[string]string{"<=": "max_", ">=": "min_"} {
		m, v, found := strings.Cut(q, op)
		if !found {
			continue
		}
		key = prefix + strings.TrimSpace(m)
		if slices.Contains(runRequirements, key) {
			return key, strings.TrimSpace(v), true
		}
	}
	return "", "", false
}

// FromFlags builds one rule named "flags" from --where COLUMN=VALUE and
// --require KEY=VALUE flags (a bound may be written MEASURE<=VALUE or
// MEASURE>=VALUE: end_ttft_p90_s<=5 is max_end_ttft_p90_s=5), checked as
// Parse checks a file.
func FromFlags(where, require []string) (*Rules, error) {
	r := Rule{Name: "flags", Require: map[string]float64{}}
	for _, w := range where {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return nil, fmt.Errorf("--where %q: want COLUMN=VALUE", w)
		}
		if err := checkColumn(k); err != nil {
			return nil, fmt.Errorf("--where: %v", err)
		}
		r.Where = append(r.Where, Cond{Column: k, Value: v})
	}
	for _, q := range require {
		k, v, ok := boundForm(q)
		if !ok {
			k, v, ok = strings.Cut(q, "=")
		}
		if !ok {
			return nil, fmt.Errorf("--require %q: want KEY=VALUE (or MEASURE<=VALUE, MEASURE>=VALUE)", q)
		}
		if !slices.Contains(runRequirements, k) && !slices.Contains(compareRequirements, k) {
			return nil, fmt.Errorf("--require: unknown requirement %q (want %s)", k, strings.Join(slices.Concat(runRequirements, compareRequirements), ", "))
		}
		val, err := requirementValue(k, v)
		if err != nil {
			return nil, fmt.Errorf("--require: %v", err)
		}
		r.Require[k] = val
	}
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("flags: %v", err)
	}
	return &Rules{Rules: []Rule{r}}, nil
}
