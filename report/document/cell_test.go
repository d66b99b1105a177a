package document

import (
	"math"
	"testing"
)

func TestCellFormatting(t *testing.T) {
	for _, c := range []struct {
		cell          Cell
		str, disp, mk string
	}{
		{Num(0.125, 2), "0.12", "0.12", ""}, // binary 0.125 rounds half to even
		{Num(-0.001, 2), "0.00", "0.00", ""},
		{Num(1234.5, -1), "1234.5", "1234.5", ""},
		{Num(0.1+0.2, -1), "0.3", "0.3", ""}, // 12 significant digits: no binary noise
		{Num(math.NaN(), 2), "", MissingText, ""},
		{Int(42).Mark("∗"), "42", "42", "∗"},
		{Text("0.07–0.93"), "0.07–0.93", "0.07–0.93", ""},
		{Range(0.95, 0.951, 2), "0.95", "0.95", ""},
		{Range(0.93, 0.95, 2), "0.93–0.95", "0.93–0.95", ""},
		{Range(0.93, math.Inf(1), 2), "", MissingText, ""},
		{Cell{}, "", MissingText, ""},
	} {
		if c.cell.String() != c.str || c.cell.Display() != c.disp || c.cell.Marker() != c.mk {
			t.Errorf("cell %+v: String %q Display %q marker %q; want %q %q %q",
				c.cell, c.cell.String(), c.cell.Display(), c.cell.Marker(), c.str, c.disp, c.mk)
		}
	}
}

func TestColumnAlignAndHeader(t *testing.T) {
	tab := &Table{
		Columns: []Column{{Name: "run"}, {Group: "Burst", Name: "hit"}, {Name: "p", Unit: "s", Align: AlignCenter}, {Name: "empty"}},
		Rows: [][]Cell{
			{Text("a"), Num(0.5, 2), Missing(), Missing()},
			{Text("b"), Range(1, 2, 0).Mark("∗"), Int(3), Missing()},
		},
	}
	for j, want := range []Align{AlignLeft, AlignRight, AlignCenter, AlignLeft} {
		if got := tab.ColumnAlign(j); got != want {
			t.Errorf("column %d aligned %v, want %v", j, got, want)
		}
	}
	if !tab.HasMarkers(1) || tab.HasMarkers(0) {
		t.Error("markers in the wrong column")
	}
	if h := tab.Columns[1].Header(); h != "Burst: hit" {
		t.Errorf("header %q", h)
	}
	if h := tab.Columns[2].Header(); h != "p (s)" {
		t.Errorf("header %q", h)
	}
}

func TestTablesAndFigures(t *testing.T) {
	a, b, c := &TimeSeries{ID: "a"}, &Scatter{ID: "b"}, &Bar{ID: "c"}
	t1, t2 := &Table{ID: "t1"}, &Table{ID: "t2"}
	d := &Doc{Sections: []Section{
		{ID: "s1", Blocks: []Block{t1, a, &Note{Text: "n"}, &Grid{Figures: []Figure{b, c}}}},
		{ID: "s2", Blocks: []Block{t2}},
	}}
	if got := Tables(d); len(got) != 2 || got[0] != t1 || got[1] != t2 {
		t.Errorf("Tables = %v", got)
	}
	figs := Figures(d)
	if len(figs) != 3 || figs[0] != a || figs[1] != b || figs[2] != c {
		t.Errorf("Figures = %v, want a, b, c in document order", figs)
	}
}

func TestXExtent(t *testing.T) {
	f := &TimeSeries{
		Series: []Series{{X: []float64{2, 3, 5}}, {X: nil}},
		Bands:  []Band{{From: 1, To: 4}},
		Marks:  []Mark{{At: 7}},
	}
	if lo, hi := f.XExtent(); lo != 1 || hi != 7 {
		t.Errorf("XExtent = %v, %v; want 1, 7", lo, hi)
	}
	if lo, hi := (&TimeSeries{}).XExtent(); !(lo > hi) {
		t.Errorf("empty XExtent = %v, %v; want lo > hi", lo, hi)
	}
}
