package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"html"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func renderSample(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, sampleDoc()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withoutECharts returns the page with the embedded library cut out, so
// that checks see only what this package generates.
func withoutECharts(t *testing.T, page []byte) []byte {
	t.Helper()
	i := bytes.Index(page, []byte(echartsJS))
	if i < 0 {
		t.Fatal("embedded ECharts not found verbatim in the page")
	}
	return append(append([]byte{}, page[:i]...), page[i+len(echartsJS):]...)
}

func TestWriteHTMLDeterministic(t *testing.T) {
	a, b := renderSample(t), renderSample(t)
	if !bytes.Equal(a, b) {
		t.Fatalf("two renders differ (%d vs %d bytes)", len(a), len(b))
	}
}

var optionRe = regexp.MustCompile(`<script type="application/json" class="chart-option" data-chart="([A-Za-z0-9_]+)"[^>]*data-points="(\d+)">([^<]*)</script>`)

// chartOptions returns chart ID -> parsed option of every chart.
func chartOptions(t *testing.T, page []byte) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, m := range optionRe.FindAllSubmatch(page, -1) {
		var opt map[string]any
		if err := json.Unmarshal(m[3], &opt); err != nil {
			t.Fatalf("chart %s: option is not valid JSON: %v", m[1], err)
		}
		out[string(m[1])] = opt
	}
	return out
}

func TestWriteHTMLNoNaN(t *testing.T) {
	page := withoutECharts(t, renderSample(t))
	for _, bad := range []string{"NaN", "Infinity"} {
		if i := bytes.Index(page, []byte(bad)); i >= 0 {
			t.Errorf("%q in the generated HTML near %q", bad, page[max(0, i-80):min(len(page), i+40)])
		}
	}
	for _, m := range optionRe.FindAllSubmatch(page, -1) {
		if bytes.Contains(m[3], []byte("undefined")) || bytes.Contains(m[3], []byte("null")) {
			t.Errorf("chart %s: option holds undefined or null", m[1])
		}
	}
	opts := chartOptions(t, page)
	if len(opts) != countCharts(sampleDoc()) {
		t.Fatalf("found %d chart options, want %d", len(opts), countCharts(sampleDoc()))
	}
	// The gaps of the sample must arrive as "-" points: 8 missing minutes
	// form one gap, minute 60 and the +Inf at 75 two more.
	data := opts["c_gaps"]["series"].([]any)[0].(map[string]any)["data"].([]any)
	gaps := 0
	for _, p := range data {
		if p.([]any)[1] == "-" {
			gaps++
		}
	}
	if gaps != 10 {
		t.Errorf("gaps series has %d \"-\" points, want 10", gaps)
	}
}

func TestWriteHTMLDownsamples(t *testing.T) {
	page := renderSample(t)
	for _, m := range optionRe.FindAllSubmatch(page, -1) {
		n, _ := strconv.Atoi(string(m[2]))
		if n > MaxChartPoints {
			t.Errorf("chart %s has %d points, more than %d", m[1], n, MaxChartPoints)
		}
	}
	opt := chartOptions(t, page)["c_big_series"]
	data := opt["series"].([]any)[0].(map[string]any)["data"].([]any)
	if len(data) > MaxChartPoints || len(data) < MaxChartPoints/2 {
		t.Errorf("big series drawn with %d points, want (%d, %d]", len(data), MaxChartPoints/2, MaxChartPoints)
	}
	// The envelope survives: extremes within 1% of the full series'.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range data {
		y := p.([]any)[1].(float64)
		lo, hi = min(lo, y), max(hi, y)
	}
	var full *TimeSeries
	for _, b := range sampleDoc().Sections[1].Blocks {
		if ts, ok := b.(*TimeSeries); ok && ts.ID == "big-series" {
			full = ts
		}
	}
	flo, fhi := math.Inf(1), math.Inf(-1)
	for _, y := range full.Series[0].Y {
		flo, fhi = min(flo, y), max(fhi, y)
	}
	if math.Abs(lo-flo) > 0.01*(fhi-flo) || math.Abs(hi-fhi) > 0.01*(fhi-flo) {
		t.Errorf("downsampled range [%g, %g], full [%g, %g]", lo, hi, flo, fhi)
	}
}

func TestWriteHTMLSelfContained(t *testing.T) {
	full := renderSample(t)
	page := string(withoutECharts(t, full))
	if !strings.HasPrefix(CSP, "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:") {
		t.Errorf("CSP = %q allows more than inline code and data: images", CSP)
	}
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="`+html.EscapeString(CSP)+`">`) {
		t.Error("CSP meta missing")
	}
	for _, bad := range []string{"http://", "https://", "//cdn", "<link rel=\"stylesheet\"", "@import", "src=\""} {
		if strings.Contains(page, bad) {
			t.Errorf("page references %q", bad)
		}
	}
	if strings.Count(string(full), "<script>") != 3 {
		t.Errorf("want exactly 3 inline code scripts (guard, ECharts, runtime), got %d", strings.Count(string(full), "<script>"))
	}
	for _, want := range []string{
		`"animation":false`, `"useUTC":true`, `"tooltip":`, `"legend":`,
		`"name":"throughput (tok/s)"`, `"name":"time (min)"`, `"markArea":`, `"markLine":`,
		`id="sec-persistence"`, `href="#sec-persistence"`, `id="tbl-table2"`,
		`<th colspan="2">No burst (twin)</th>`, `<span class="mark">∗</span>`, `<td class="al-r missing">–</td>`,
		`@media print`, `&lt;angle brackets&gt; &amp; ampersands`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestWriteHTMLRejectsInvalidDoc(t *testing.T) {
	var b bytes.Buffer
	d := &Doc{Sections: []Section{{ID: "s", Blocks: []Block{
		&TimeSeries{ID: "a-b"}, &TimeSeries{ID: "a.b"},
	}}}}
	if err := WriteHTML(&b, d); err == nil || !strings.Contains(err.Error(), "already used") {
		t.Errorf("err = %v, want chart ID collision", err)
	}
	if b.Len() != 0 {
		t.Error("wrote output for an invalid doc")
	}
}

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

// TestEmbeddedEChartsIsInlineSafe pins the vendored file (see
// assets/README.md) and checks that it cannot end its <script> early.
func TestEmbeddedEChartsIsInlineSafe(t *testing.T) {
	sum := sha256.Sum256([]byte(echartsJS))
	if got := hex.EncodeToString(sum[:]); got != "bf4a223524e40b77c304bec67e1222cf551f14880cf42c69dc046558e11c07b1" {
		t.Errorf("echarts.min.js sha256 = %s, not the vendored 5.6.0", got)
	}
	for name, js := range map[string]string{"echarts": echartsJS, "guard": guardJS, "runtime": runtimeJS} {
		low := strings.ToLower(js)
		for _, bad := range []string{"</script", "<script", "<!--"} {
			if strings.Contains(low, bad) {
				t.Errorf("%s contains %q", name, bad)
			}
		}
	}
}

// TestWriteHTMLEmptyFigures: figures without data still give valid
// options (no Inf from an empty x extent, no null data).
func TestWriteHTMLEmptyFigures(t *testing.T) {
	d := &Doc{Title: "empty", Sections: []Section{{ID: "s", Blocks: []Block{
		&TimeSeries{ID: "ts"},
		&TimeSeries{ID: "one", Series: []Series{{Name: "p", X: []float64{5}, Y: []float64{math.NaN()}}}},
		&Scatter{ID: "sc", Groups: []ScatterGroup{{Name: "g", Points: [][2]float64{{math.NaN(), 1}}}}},
		&Bar{ID: "bar"},
		&Grid{},
		&Table{ID: "t", Columns: []Column{{Name: "a"}}},
	}}}}
	path := t.TempDir() + "/empty.html"
	if err := WriteHTMLFile(path, d); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page = withoutECharts(t, page)
	if n := len(chartOptions(t, page)); n != 4 {
		t.Errorf("%d chart options, want 4", n)
	}
	if bytes.Contains(page, []byte("Inf")) || bytes.Contains(page, []byte("NaN")) {
		t.Error("non-finite value in the page")
	}
}

func TestNiceRange(t *testing.T) {
	for _, c := range [][4]float64{
		{0, 89.99955, 0, 90},
		{0.3, 0.77, 0.3, 0.77},
		{10.04, 14.96, 10, 15},
		{-3.2, 118.4, -10, 120},
	} {
		lo, hi := niceRange(c[0], c[1])
		if lo != c[2] || hi != c[3] {
			t.Errorf("niceRange(%g, %g) = %g, %g; want %g, %g", c[0], c[1], lo, hi, c[2], c[3])
		}
	}
}
