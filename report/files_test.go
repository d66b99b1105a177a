package report

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func TestWriteTablesGolden(t *testing.T) {
	dir := t.TempDir()
	d := &Doc{Sections: []Section{{ID: "s", Blocks: []Block{table2(), &Table{
		ID: "edge.cases", Caption: "Text with | pipes, *stars* and \"quotes\", commas.",
		Columns: []Column{{Name: "name"}, {Name: "value", Unit: "ms", Align: AlignCenter}, {Name: "neg"}},
		Rows: [][]Cell{
			{Text("a,b \"q\""), Num(1.23456, 3), Num(-0.0004, 2)},
			{Text("x|y_z"), Missing().Mark("†"), Num(math.Inf(-1), 1)},
			{Text("line\nbreak"), Range(0.121, 0.129, 2), Range(21, 23, 0)},
		},
	}}}}}
	if err := WriteTables(dir, d); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"table2.csv", "table2.md", "edge.cases.csv", "edge.cases.md"} {
		got, err := os.ReadFile(filepath.Join(dir, "tables", name))
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -run TestWriteTablesGolden -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, golden, got, want)
		}
	}
	// Only the final files remain: temporary files were renamed away.
	ents, _ := os.ReadDir(filepath.Join(dir, "tables"))
	if len(ents) != 4 {
		t.Errorf("tables dir holds %d entries, want 4", len(ents))
	}
}

func TestCellFormatting(t *testing.T) {
	for _, c := range []struct {
		cell          Cell
		str, disp, mk string
	}{
		{Num(0.125, 2), "0.12", "0.12", ""}, // binary 0.125 rounds half to even
		{Num(-0.001, 2), "0.00", "0.00", ""},
		{Num(1234.5, -1), "1234.5", "1234.5", ""},
		{Num(math.NaN(), 2), "", MissingText, ""},
		{Int(42).Mark("∗"), "42", "42", "∗"},
		{Text("0.07–0.93"), "0.07–0.93", "0.07–0.93", ""},
		{Range(0.95, 0.951, 2), "0.95", "0.95", ""},
		{Range(0.93, 0.95, 2), "0.93–0.95", "0.93–0.95", ""},
		{Cell{}, "", MissingText, ""},
	} {
		if c.cell.String() != c.str || c.cell.display() != c.disp || c.cell.Marker() != c.mk {
			t.Errorf("cell %+v: String %q display %q marker %q; want %q %q %q",
				c.cell, c.cell.String(), c.cell.display(), c.cell.Marker(), c.str, c.disp, c.mk)
		}
	}
}

type jsonInner struct {
	Zeta  int
	Alpha string
}

type jsonOuter struct {
	Name   string
	Inner  jsonInner
	Ratio  Float
	Values []float64
	ByKey  map[string]int
}

func TestWriteJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.json")
	v := jsonOuter{Name: "<run>&", Inner: jsonInner{Zeta: 1, Alpha: "a"}, Ratio: Float(math.NaN()),
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
	again, _ := MarshalJSONBytes(v)
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

func TestSourceDate(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1764374400")
	if d, ok := SourceDate(); !ok || d != "2025-11-29" {
		t.Errorf("SourceDate() = %q, %v", d, ok)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "soon")
	if _, ok := SourceDate(); ok {
		t.Error("invalid SOURCE_DATE_EPOCH accepted")
	}
}
