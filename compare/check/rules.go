package check

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/compare"
	"go.yaml.in/yaml/v3"
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
)

var runRequirements = []string{ReqPersistentRuns, ReqMinEndHitRatio, ReqMaxEndSessions, ReqMaxRecoveryMin, ReqMinRuns}
var compareRequirements = []string{ReqCollapseNotWorse, ReqHitNotWorse, ReqTputNotWorse, ReqAlpha}

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

// ParseError is an error at a position of a rules file.
type ParseError struct {
	File         string
	Line, Column int
	Msg          string
}

// Error returns "FILE:LINE:COLUMN: message".
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// Parse parses a rules file:
//
//	rules:
//	  - name: TEXT
//	    where: {COLUMN: VALUE, ...}          # optional
//	    dataset: LABEL                       # optional, run rules only
//	    compare: {baseline: A, candidate: B} # optional
//	    require: {KEY: VALUE, ...}
//
// Unknown keys, a rule without name or require, and requirements of both
// kinds in one rule are errors with their line and column.
func Parse(data []byte, file string) (*Rules, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty rules file", file)
	}
	errf := func(n *yaml.Node, format string, args ...any) error {
		return &ParseError{File: file, Line: n.Line, Column: n.Column, Msg: fmt.Sprintf(format, args...)}
	}
	root := doc.Content[0]
	top, err := mapping(root, errf, "the rules file", "rules")
	if err != nil {
		return nil, err
	}
	list, ok := top["rules"]
	if !ok {
		return nil, errf(root, "no rules: key")
	}
	if list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		return nil, errf(list, "rules: want a list of rules")
	}
	rs := &Rules{}
	names := map[string]int{}
	for _, item := range list.Content {
		fields, err := mapping(item, errf, "a rule", "name", "where", "dataset", "compare", "require")
		if err != nil {
			return nil, err
		}
		r := Rule{Line: item.Line, Require: map[string]float64{}}
		n, ok := fields["name"]
		if !ok || n.Kind != yaml.ScalarNode || strings.TrimSpace(n.Value) == "" {
			return nil, errf(item, "rule without a name")
		}
		r.Name = n.Value
		if prev, dup := names[r.Name]; dup {
			return nil, errf(n, "rule %q already defined on line %d", r.Name, prev)
		}
		names[r.Name] = item.Line
		if w, ok := fields["where"]; ok {
			if _, err := mapping(w, errf, "where"); err != nil {
				return nil, err
			}
			for i := 0; i+1 < len(w.Content); i += 2 {
				k, v := w.Content[i], w.Content[i+1]
				if err := checkColumn(k.Value); err != nil {
					return nil, errf(k, "where: %v", err)
				}
				if v.Kind != yaml.ScalarNode {
					return nil, errf(v, "where: %s: want a single value", k.Value)
				}
				r.Where = append(r.Where, Cond{Column: k.Value, Value: v.Value})
			}
		}
		if d, ok := fields["dataset"]; ok {
			if d.Kind != yaml.ScalarNode {
				return nil, errf(d, "dataset: want a column label")
			}
			r.Dataset = d.Value
		}
		if c, ok := fields["compare"]; ok {
			pair, err := mapping(c, errf, "compare", "baseline", "candidate")
			if err != nil {
				return nil, err
			}
			b, okB := pair["baseline"]
			cand, okC := pair["candidate"]
			if !okB || !okC {
				return nil, errf(c, "compare: want both baseline and candidate")
			}
			r.Baseline, r.Candidate = b.Value, cand.Value
		}
		req, ok := fields["require"]
		if !ok {
			return nil, errf(item, "rule %q has no require", r.Name)
		}
		reqs, err := mapping(req, errf, "require", append(append([]string{}, runRequirements...), compareRequirements...)...)
		if err != nil {
			return nil, err
		}
		for _, k := range sortedKeys(reqs) {
			v, err := requirementValue(k, reqs[k].Value)
			if err != nil {
				return nil, errf(reqs[k], "require: %v", err)
			}
			r.Require[k] = v
		}
		if err := r.validate(); err != nil {
			return nil, errf(req, "rule %q: %v", r.Name, err)
		}
		rs.Rules = append(rs.Rules, r)
	}
	return rs, nil
}

// mapping returns a mapping node's values by key; with allowed keys, any
// other key is an error at its position.
func mapping(n *yaml.Node, errf func(*yaml.Node, string, ...any) error, what string, allowed ...string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, errf(n, "%s: want a mapping of keys to values", what)
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if len(allowed) > 0 && !contains(allowed, k.Value) {
			return nil, errf(k, "unknown key %q in %s (want %s)", k.Value, what, strings.Join(allowed, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, errf(k, "key %q given twice in %s", k.Value, what)
		}
		out[k.Value] = v
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]*yaml.Node) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// In file order, so conditions print as written.
	sort.Slice(keys, func(i, j int) bool {
		a, b := m[keys[i]], m[keys[j]]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return keys
}

// checkColumn accepts a runs-table column or a label key.
func checkColumn(name string) error {
	if strings.HasPrefix(name, compare.LabelPrefix) && len(name) > len(compare.LabelPrefix) {
		return nil
	}
	if name == "run" || contains(compare.RunsColumns(), name) {
		return nil
	}
	return fmt.Errorf("unknown runs column %q", name)
}

// requirementValue parses a requirement's value: true/false for the
// comparison flags, a non-negative number otherwise.
func requirementValue(key, s string) (float64, error) {
	switch key {
	case ReqCollapseNotWorse, ReqHitNotWorse, ReqTputNotWorse:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return 0, fmt.Errorf("%s: want true or false, have %q", key, s)
		}
		if b {
			return 1, nil
		}
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%s: want a number ≥ 0, have %q", key, s)
	}
	if key == ReqAlpha && !(v > 0 && v < 1) {
		return 0, fmt.Errorf("alpha: want a level in (0, 1), have %q", s)
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
		if contains(runRequirements, k) {
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

// FromFlags builds one rule named "flags" from --where COLUMN=VALUE and
// --require KEY=VALUE flags, checked as Parse checks a file.
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
		k, v, ok := strings.Cut(q, "=")
		if !ok {
			return nil, fmt.Errorf("--require %q: want KEY=VALUE", q)
		}
		if !contains(runRequirements, k) && !contains(compareRequirements, k) {
			return nil, fmt.Errorf("--require: unknown requirement %q (want %s)", k, strings.Join(append(append([]string{}, runRequirements...), compareRequirements...), ", "))
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
