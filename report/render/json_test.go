package render

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/internal/jsonnum"
)

type jsonInner struct {
	Zeta  int
	Alpha string
}

type jsonOuter struct {
	Name   string
	Inner  jsonInner
	Ratio  jsonnum.Float
	Sum    jsonnum.Float
	Values []float64
	ByKey  map[string]int
}

func TestWriteJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.json")
	v := jsonOuter{Name: "<run>&", Inner: jsonInner{Zeta: 1, Alpha: "a"}, Ratio: jsonnum.Float(math.NaN()),
		Sum: jsonnum.Float(0.1 + 0.2), Values: []float64{0.1, 1e21, 3}, ByKey: map[string]int{"b": 2, "a": 1, "c": 3}}
	if err := WriteJSON(path, v); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	// A struct's keys in field order, a map's sorted; no HTML escapes;
	// NaN as null, jsonnum.Float rounded; a final newline.
	want := `{
  "Name": "<run>&",
  "Inner": {
    "Zeta": 1,
    "Alpha": "a"
  },
  "Ratio": null,
  "Sum": 0.3,
  "Values": [
    0.1,
    1e+21,
    3
  ],
  "ByKey": {
    "a": 1,
    "b": 2,
    "c": 3
  }
}
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	again, _ := JSON(v)
	if !bytes.Equal(got, again) {
		t.Error("not deterministic")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
}

func TestWriteJSONRejectsNonFinite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.json")
	v := map[string]any{"ok": 1.0, "runs": []jsonOuter{{}, {Values: []float64{1, math.Inf(1)}}}}
	err := WriteJSON(path, v)
	if err == nil || !strings.Contains(err.Error(), "$[runs][1].Values[1]") {
		t.Errorf("err = %v, want the path of the Inf", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %d files behind", len(ents))
	}
}
