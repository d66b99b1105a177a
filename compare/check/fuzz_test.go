package check

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/outlast-dev/outlast/textpos"
)

// FuzzParse checks that a rules file either parses or gets a positioned
// error (file:line:column: reason), never a panic or a bare error, and
// that what parses has named rules with requirements.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("rules:\n  - name: a\n    require: {persistent_runs: 0}\n"))
	f.Add([]byte("rules:\n  - name: a\n    compare: {baseline: v1, candidate: v2}\n    require: {collapse_rate_not_worse: true}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := Parse(data, "r.yaml")
		if err != nil {
			var pe *textpos.ParseError
			if !errors.As(err, &pe) || pe.Pos.Line < 1 || pe.Pos.File != "r.yaml" {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		if len(rs.Rules) == 0 {
			t.Fatal("parsed without rules")
		}
		for _, r := range rs.Rules {
			if r.Name == "" {
				t.Errorf("a rule without a name: %+v", r)
			}
		}
	})
}
