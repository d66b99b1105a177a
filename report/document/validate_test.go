package document

import (
	"math"
	"regexp"
	"strings"
	"testing"
)

func TestChartID(t *testing.T) {
	ident := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	for in, want := range map[string]string{
		"fig1":         "c_fig1",
		"pair-501/hit": "c_pair_501_hit",
		"1st chart":    "c_1st_chart",
		"class":        "c_class",
		"données.é":    "c_donn_es__",
		"":             "c_",
	} {
		got := ChartID(in)
		if got != want {
			t.Errorf("ChartID(%q) = %q, want %q", in, got, want)
		}
		if !ident.MatchString(got) {
			t.Errorf("ChartID(%q) = %q is not a JS identifier", in, got)
		}
	}
}

func TestValidateIDs(t *testing.T) {
	ok := func(id string) *TimeSeries { return &TimeSeries{ID: id} }
	tbl := func(id string) *Table { return &Table{ID: id, Columns: []Column{{Name: "a"}}} }
	cases := []struct {
		name string
		doc  *Doc
		want string // substring of the error; "" = valid
	}{
		{"valid", &Doc{Sections: []Section{{ID: "a", Blocks: []Block{ok("x"), tbl("t-1.v2"), &Grid{Figures: []Figure{ok("y")}}}}}}, ""},
		{"duplicate figure", &Doc{Sections: []Section{{ID: "a", Blocks: []Block{ok("x")}}, {ID: "b", Blocks: []Block{ok("x")}}}}, "already used"},
		{"collision in grid", &Doc{Sections: []Section{{ID: "a", Blocks: []Block{ok("p/1"), &Grid{Figures: []Figure{ok("p_1")}}}}}}, "already used"},
		{"empty figure ID", &Doc{Sections: []Section{{ID: "a", Blocks: []Block{ok("")}}}}, "empty figure ID"},
		{"bad section ID", &Doc{Sections: []Section{{ID: "a b"}}}, "section 0"},
		{"duplicate section", &Doc{Sections: []Section{{ID: "a"}, {ID: "a"}}}, "duplicate section"},
		{"table path", &Doc{Sections: []Section{{ID: "a", Blocks: []Block{tbl("../x")}}}}, "table \"../x\""},
		{"duplicate table", &Doc{Sections: []Section{{ID: "a", Blocks: []Block{tbl("t"), tbl("t")}}}}, "duplicate table"},
		{"short row", &Doc{Sections: []Section{{ID: "a", Blocks: []Block{&Table{ID: "t", Columns: []Column{{Name: "a"}, {Name: "b"}}, Rows: [][]Cell{{Text("x")}}}}}}}, "row 0 has 1 cells"},
		{"x decreasing", &Doc{Sections: []Section{{ID: "a", Blocks: []Block{&TimeSeries{ID: "f", Series: []Series{{X: []float64{0, 2, 1}, Y: []float64{1, 1, 1}}}}}}}}, "x decreases"},
		{"x NaN", &Doc{Sections: []Section{{ID: "a", Blocks: []Block{&TimeSeries{ID: "f", Series: []Series{{X: []float64{0, math.NaN()}, Y: []float64{1, 1}}}}}}}}, "not finite"},
		{"bad axis", &Doc{Sections: []Section{{ID: "a", Blocks: []Block{&TimeSeries{ID: "f", Series: []Series{{Axis: 1}}}}}}}, "uses y axis 1 of 1"},
		{"nil block", &Doc{Sections: []Section{{ID: "a", Blocks: []Block{(*Scatter)(nil)}}}}, "nil figure"},
		// A list may link to a section before or after it.
		{"list links", &Doc{Sections: []Section{{ID: "a", Blocks: []Block{&List{Items: []ListItem{{Link: "b"}, {Link: "a"}, {Text: "no link"}}}}}, {ID: "b"}}}, ""},
		{"dangling link", &Doc{Sections: []Section{{ID: "a", Blocks: []Block{&List{Items: []ListItem{{Link: "c"}}}}}}}, "link to \"c\", which is no section"},
		{"nil list", &Doc{Sections: []Section{{ID: "a", Blocks: []Block{(*List)(nil)}}}}, "nil list"},
	}
	for _, c := range cases {
		err := Validate(c.doc)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: unexpected error %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.want)
		}
	}
}
