package inputs

import (
	"slices"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// TestRequestRows checks what the readers of the table rely on: each
// format has a name of schema's vocabulary and one way to be opened; only
// outlast's own log, the first, has no sniff; no default name is claimed
// twice; a format with a Glob can be told from its content.
func TestRequestRows(t *testing.T) {
	vocab := []string{schema.GatewayOutlast, schema.GatewayAIPerf, schema.GatewayGuideLLM, schema.GatewayInferencePerf}
	seen := map[string]string{}
	for i, f := range Requests {
		if !slices.Contains(vocab, f.Name) || slices.Index(RequestNames(), f.Name) != i {
			t.Errorf("row %d: name %q is not one of schema's gateway formats, or not unique", i, f.Name)
		}
		if (f.Records == nil) == (f.Open == nil) {
			t.Errorf("%s: want exactly one of Records and Open", f.Name)
		}
		if (f.Sniff == nil) != (i == 0) {
			t.Errorf("%s: only the first row, outlast's own log, goes without a sniff", f.Name)
		}
		if f.Glob != "" && f.Sniff == nil {
			t.Errorf("%s: a Glob needs a Sniff to tell its files", f.Name)
		}
		if len(f.Files) == 0 {
			t.Errorf("%s: no default file name", f.Name)
		}
		for _, n := range f.Files {
			if other, ok := seen[n]; ok {
				t.Errorf("%s: %s is %s's already", f.Name, n, other)
			}
			seen[n] = f.Name
		}
	}
	if RequestLog.Defaults[0] != "gateway.jsonl" || len(RequestLog.Defaults) != len(seen) {
		t.Errorf("RequestLog.Defaults = %v, want gateway.jsonl first, then every row's files", RequestLog.Defaults)
	}
	for _, f := range EngineLogs {
		if !slices.Contains(schema.EngineNames, f.Name) || f.Match == nil || f.Open == nil || f.Version == nil || f.Model == nil {
			t.Errorf("engine row %q is incomplete or not one of schema.EngineNames", f.Name)
		}
	}
}
