package render

import (
	"bytes"
	"encoding/json"
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
	Values []float64
	ByKey  map[string]int
}

func TestWriteJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.json")
	v := jsonOuter{Name: "<run>&", Inner: jsonInner{Zeta: 1, Alpha: "a"}, Ratio: jsonnum.Float(math.NaN()),
		Values: []float64{0.1, 1e21, 3}, ByKey: map[string]int{"b": 2, "a": 1, "c": 3}}
	if err := WriteJSON(path, v); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := `{
  "ByKey": {
    "a": 1,
    "b": 2,
    "c": 3
  },
  "Inner": {
    "Alpha": "a",
    "Zeta": 1
  },
  "Name": "<run>&",
  "Ratio": null,
  "Values": [
    0.1,
    1e+21,
    3
  ]
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

// genericJSON is the layout JSON promises, done the plain way: decode
// into generic values (numbers as json.Number) and encode them again with
// sorted keys, indented, without HTML escapes. writeSortedIndent must
// give the same bytes.
func genericJSON(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// sameAsGeneric checks writeSortedIndent against genericJSON on the
// compact JSON raw.
func sameAsGeneric(t *testing.T, raw []byte) {
	t.Helper()
	want, err := genericJSON(raw)
	if err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	var got bytes.Buffer
	if err := writeSortedIndent(&got, raw); err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("%q:\ngot  %q\nwant %q", raw, got.Bytes(), want)
	}
}

// TestSortedIndentSameAsGeneric runs the summaries of the report goldens
// and values made to reach every case through both layouts.
func TestSortedIndentSameAsGeneric(t *testing.T) {
	goldens, err := filepath.Glob(filepath.Join("..", "testdata", "*.json"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("report goldens: %v", err)
	}
	for _, p := range goldens {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			t.Fatal(err)
		}
		sameAsGeneric(t, c.Bytes())
	}
	values := []any{
		map[string]any{}, []any{}, "", 0, -1.5e-7, 1e21, true, nil,
		map[string]any{"b": []any{}, "a": map[string]any{}, "": 1, "é": "x", "B": "<>&\u2028\x01\t\"\\"},
		[]any{map[string]any{"z": []any{1, []any{2, map[string]any{"y": nil}}}, "a": false}, "a\"b", "\xff"},
		struct {
			Zeta  int
			Alpha string `json:"alpha"`
			Inner struct{ B, A float64 }
			Raw   json.RawMessage
		}{3, "<run>", struct{ B, A float64 }{0.1, 2}, json.RawMessage(`{ "k" : [1, 2 ] }`)},
	}
	for _, v := range values {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		sameAsGeneric(t, raw)
	}
}

// FuzzSortedIndent checks writeSortedIndent against genericJSON on the
// compact JSON json.Marshal writes of any value JSON decodes to.
func FuzzSortedIndent(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[{},[],"x\u003c"]}`, `[1,"\u2028",{"":null}]`, `"\t"`, `{"a":{"a":{"a":1}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var v any
		if json.Unmarshal(in, &v) != nil {
			return
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return
		}
		sameAsGeneric(t, raw)
	})
}
