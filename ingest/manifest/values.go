package manifest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/internal/rfc3339"
	"github.com/outlast-dev/outlast/internal/yamlpos"
)

// The typed values of a manifest: each reads one entry's value and names
// the entry's dotted path in its error.

func (p *parser) str(e yamlpos.Entry, path string) (string, error) {
	n := e.Value
	if yamlpos.IsNull(n) {
		return "", p.errorf(e.Key, "%s: want a value, got nothing", path)
	}
	if n.Kind != yaml.ScalarNode {
		return "", p.errorf(n, "%s: want a plain value, got %s", path, yamlpos.Describe(n))
	}
	if n.Value == "" {
		return "", p.errorf(n, "%s: want a non-empty value", path)
	}
	// The text as written: version 0.10 must not become the float 0.1.
	return n.Value, nil
}

func (p *parser) optStr(e yamlpos.Entry, path string) (string, error) {
	if yamlpos.IsNull(e.Value) {
		return "", nil
	}
	return p.str(e, path)
}

func (p *parser) oneOf(e yamlpos.Entry, path string, set []string) (string, error) {
	s, err := p.str(e, path)
	if err != nil {
		return "", err
	}
	if !slices.Contains(set, s) {
		return "", p.errorf(e.Value, "%s: want one of %s, got %q", path, strings.Join(set, ", "), s)
	}
	return s, nil
}

func (p *parser) timestamp(e yamlpos.Entry, path string) (time.Time, error) {
	s, err := p.str(e, path)
	if err != nil {
		return time.Time{}, err
	}
	t, err := rfc3339.Parse(s)
	if err != nil {
		return time.Time{}, p.errorf(e.Value, "%s: want an RFC 3339 time such as 2026-10-27T12:00:00Z, got %q", path, s)
	}
	return t.UTC(), nil
}

// optScalar decodes e's value into a T when it is a scalar with one of
// tags: nil for nothing, an error naming want for anything else.
func optScalar[T any](p *parser, e yamlpos.Entry, path, want string, tags ...string) (*T, error) {
	n := e.Value
	if yamlpos.IsNull(n) {
		return nil, nil
	}
	var v T
	if n.Kind != yaml.ScalarNode || !slices.Contains(tags, n.ShortTag()) || n.Decode(&v) != nil {
		return nil, p.errorf(n, "%s: want %s, got %s", path, want, yamlpos.Describe(n))
	}
	return &v, nil
}

func (p *parser) optBool(e yamlpos.Entry, path string) (*bool, error) {
	return optScalar[bool](p, e, path, "true or false", "!!bool")
}

func (p *parser) optInt(e yamlpos.Entry, path string) (*int64, error) {
	if e.Value.Kind == yaml.ScalarNode && e.Value.ShortTag() == "!!float" {
		// A whole number written as a float (4.0e5, 6144.0), as a
		// gateway.jsonl count may be: that integer, as JSON Schema's
		// integer takes it; a fraction is no count.
		var f float64
		if e.Value.Decode(&f) == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			v := int64(f)
			if v < 0 {
				return nil, p.errorf(e.Value, "%s: want a non-negative number, got %s", path, e.Value.Value)
			}
			return &v, nil
		}
	}
	v, err := optScalar[int64](p, e, path, "a whole number", "!!int")
	if err == nil && v != nil && *v < 0 {
		return nil, p.errorf(e.Value, "%s: want a non-negative number, got %d", path, *v)
	}
	return v, err
}

func (p *parser) optNumber(e yamlpos.Entry, path string) (*float64, error) {
	v, err := optScalar[float64](p, e, path, "a number", "!!int", "!!float")
	switch {
	case err != nil || v == nil:
		return v, err
	case math.IsNaN(*v) || math.IsInf(*v, 0):
		return nil, p.errorf(e.Value, "%s: want a finite number, got %s", path, e.Value.Value)
	case *v < 0:
		return nil, p.errorf(e.Value, "%s: want a non-negative number, got %s", path, e.Value.Value)
	}
	return v, nil
}

// maxDepth bounds nesting in free-form values (workload extras, params).
const maxDepth = 32

// maxValues bounds the free-form values of one manifest: aliases can make a
// small file expand exponentially ("billion laughs").
const maxValues = 10000

// convert turns a free-form YAML value into a JSON-encodable Go value:
// map[string]any, []any, string, int64, float64, bool or nil.
func (p *parser) convert(n *yaml.Node, path string, depth int) (any, error) {
	n = yamlpos.Resolve(n)
	if depth > maxDepth {
		return nil, p.errorf(n, "%s: nested too deeply", path)
	}
	if p.converted++; p.converted > maxValues {
		return nil, p.errorf(n, "%s: more than %d values (aliases expanding?)", path, maxValues)
	}
	switch n.Kind {
	case yaml.MappingNode:
		es, err := p.f.Entries(n, path)
		if err != nil {
			return nil, err
		}
		out := make(map[string]any, len(es))
		for _, e := range es {
			if out[e.Name], err = p.convert(e.Value, yamlpos.Join(path, e.Name), depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			v, err := p.convert(c, fmt.Sprintf("%s[%d]", path, i), depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err == nil {
				return b, nil
			}
		case "!!int":
			var i int64
			if err := n.Decode(&i); err == nil {
				return i, nil
			}
		case "!!float":
			var f float64
			if err := n.Decode(&f); err == nil {
				if math.IsNaN(f) || math.IsInf(f, 0) {
					return nil, p.errorf(n, "%s: want a finite number, got %s", path, n.Value)
				}
				return f, nil
			}
		}
		return n.Value, nil
	}
	return nil, p.errorf(n, "%s: unsupported YAML value %s", path, yamlpos.Describe(n))
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Placeholder is the value outlast init writes for what a run's files
// cannot say (experiment, design, arm, seed, trigger.kind), each with a
// comment saying what to put there. Parse refuses a manifest that still
// holds one, naming the key, so that a run is never ingested under a
// made-up design or arm.
const Placeholder = "<fill in>"

// placeholder returns an error at the first value of n that is still
// Placeholder, nil when there is none. path is n's dotted path.
func (p *parser) placeholder(n *yaml.Node, path string) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Value == Placeholder {
			return p.errorf(n, "%s: still holds outlast init's placeholder %s: replace it with the run's value (the comment beside it says what goes there)", path, Placeholder)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := p.placeholder(n.Content[i+1], yamlpos.Join(path, n.Content[i].Value)); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := p.placeholder(c, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}
