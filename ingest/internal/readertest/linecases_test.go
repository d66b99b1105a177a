package readertest

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/schema"
)

// TestLoadLines reads testdata/lines.yaml: a case's columns land in the
// sample's fields of those Parquet names, a left-out pointer column stays
// null, and the line keeps its escaped bytes.
func TestLoadLines(t *testing.T) {
	want := []LineCase{
		{Name: "a decode line", T0: "2026-01-01T00:00:00Z", Line: "\x1b[32mx\t \r",
			Want: &schema.EngineSample{TS: 1.5, Kind: schema.LineDecode, EngineIndex: -1, Running: F(0), TokensUsed: N(20), LoggedHitRate: F(0.25)}},
		{Name: "damaged", T0: "2026-01-01T00:00:00Z", Line: "y", Err: "malformed"},
		{Name: "not a sample", T0: "2026-01-01T00:00:00Z", Line: "z"},
	}
	if got := LoadLines(t, LinesFile); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// TestSetColumnsUnknown refuses a column an engine sample does not have.
func TestSetColumnsUnknown(t *testing.T) {
	var node yaml.Node
	if err := yaml.Unmarshal([]byte("1"), &node); err != nil {
		t.Fatal(err)
	}
	err := setColumns(new(schema.EngineSample), map[string]yaml.Node{"hit_rate": node})
	if err == nil || !strings.Contains(err.Error(), `"hit_rate"`) {
		t.Errorf("error %v, want one naming hit_rate", err)
	}
}
