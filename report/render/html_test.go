package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/report/document"
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
	if len(opts) != len(document.Figures(sampleDoc())) {
		t.Fatalf("found %d chart options, want %d", len(opts), len(document.Figures(sampleDoc())))
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
	var full *document.TimeSeries
	for _, b := range sampleDoc().Sections[1].Blocks {
		if ts, ok := b.(*document.TimeSeries); ok && ts.ID == "big-series" {
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
	if !regexp.MustCompile(`^default-src 'none'; script-src( 'sha256-[A-Za-z0-9+/]{43}=')+; style-src 'unsafe-inline'; img-src data:; `).MatchString(CSP) {
		t.Errorf("CSP = %q allows more than the page's own scripts, inline styles and data: images", CSP)
	}
	meta := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if meta == nil || html.UnescapeString(meta[1]) != CSP {
		t.Errorf("CSP meta = %q, want %q", meta, CSP)
	}
	// Every inline script is allowed by its hash, and nothing else is.
	scripts := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(string(full), -1)
	for _, s := range scripts {
		sum := sha256.Sum256([]byte(s[1]))
		if h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(CSP, h) {
			t.Errorf("inline script starting %.40q: its hash %s is not in the CSP", s[1], h)
		}
	}
	if n := strings.Count(CSP, "'sha256-"); n != len(scripts) {
		t.Errorf("the CSP allows %d scripts, the page has %d", n, len(scripts))
	}
	for _, bad := range []string{"http://", "https://", "//cdn", "<link rel=\"stylesheet\"", "@import", "src=\""} {
		if strings.Contains(page, bad) {
			t.Errorf("page references %q", bad)
		}
	}
	if strings.Count(string(full), "<script>") != 4 {
		t.Errorf("want exactly 4 inline code scripts (guard, ECharts, runtime, tables), got %d", strings.Count(string(full), "<script>"))
	}
	for _, want := range []string{
		`"animation":false`, `"useUTC":true`, `"tooltip":`, `"legend":`,
		`"name":"throughput (tok/s)"`, `"name":"time (min)"`, `"markArea":`, `"markLine":`,
		`id="sec-persistence"`, `href="#sec-persistence"`, `id="tbl-table2"`,
		`<th colspan="2">No burst (twin)</th>`, `<span class="mark">∗</span>`, `<td class="al-r missing">–</td>`,
		`@media print`, `&lt;angle brackets&gt; &amp; ampersands`,
		`<table class="data sortable">`, `<ul class="findings">`, `<li><a href="#sec-persistence">paired-8b</a>: bursts left`,
		`<li class="warn"><a href="#sec-signals">signals</a>: one run had no metrics after minute 80 &lt;and&gt; that`, `<li>A finding without a label.</li>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestWriteHTMLRejectsInvalidDoc(t *testing.T) {
	var b bytes.Buffer
	d := &document.Doc{Sections: []document.Section{{ID: "s", Blocks: []document.Block{
		&document.TimeSeries{ID: "a-b"}, &document.TimeSeries{ID: "a.b"},
	}}}}
	if err := WriteHTML(&b, d); err == nil || !strings.Contains(err.Error(), "already used") {
		t.Errorf("err = %v, want chart ID collision", err)
	}
	if b.Len() != 0 {
		t.Error("wrote output for an invalid doc")
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
	d := &document.Doc{Title: "empty", Sections: []document.Section{{ID: "s", Blocks: []document.Block{
		&document.TimeSeries{ID: "ts"},
		&document.TimeSeries{ID: "one", Series: []document.Series{{Name: "p", X: []float64{5}, Y: []float64{math.NaN()}}}},
		&document.Scatter{ID: "sc", Groups: []document.ScatterGroup{{Name: "g", Points: [][2]float64{{math.NaN(), 1}}}}},
		&document.Bar{ID: "bar"},
		&document.Grid{},
		&document.Table{ID: "t", Columns: []document.Column{{Name: "a"}}},
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
