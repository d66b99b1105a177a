package manifest

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/internal/yamlpos"
)

// fileList reads files.prefill_log or files.decode_log: one file name, or
// a list of them (a log per node or rank), each inside the run directory.
func (p *parser) fileList(e yamlpos.Entry, key string) ([]string, error) {
	if e.Value.Kind != yaml.SequenceNode {
		s, err := p.fileName(e, key)
		return []string{s}, err
	}
	if len(e.Value.Content) == 0 {
		return nil, p.errorf(e.Value, "%s: want a file name or a list of them, got an empty list", key)
	}
	out := make([]string, 0, len(e.Value.Content))
	for i, n := range e.Value.Content {
		s, err := p.fileName(yamlpos.Entry{Name: e.Name, Key: e.Key, Value: n}, fmt.Sprintf("%s[%d]", key, i))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// HasRoles reports whether the run gives its engine logs by role
// (files.prefill_log, files.decode_log), a prefill/decode-disaggregated
// deployment, instead of one engine log.
func (f Files) HasRoles() bool { return len(f.PrefillLogs)+len(f.DecodeLogs) > 0 }
