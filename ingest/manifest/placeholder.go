package manifest

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/internal/yamlpos"
)

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
