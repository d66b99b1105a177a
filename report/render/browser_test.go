package render

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/outlast-dev/outlast/internal/browsertest"
	"github.com/outlast-dev/outlast/report/model"
)

// TestBrowser renders the sample report and loads it in headless
// Chromium: every chart must initialise and paint, with no console or
// page error and no network request. It also saves a screenshot for a
// human to look at (with the page, in $OUTLAST_SCREENSHOT_DIR when set).
func TestBrowser(t *testing.T) {
	browsertest.Require(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := WriteHTML(&b, sampleDoc()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	res := browsertest.Check(t, page)
	if n := len(model.Figures(sampleDoc())); res.Charts != n {
		t.Errorf("page found %d charts, the doc has %d", res.Charts, n)
	}

	browsertest.SaveScreenshot(t, page, "report-sample.png", 1280, 2400, 50_000)
	if out := os.Getenv("OUTLAST_SCREENSHOT_DIR"); out != "" {
		// The page itself, to inspect what was checked.
		if err := os.WriteFile(filepath.Join(out, "report-sample.html"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBrowserCatchesBrokenPage proves the check can fail: a page whose
// chart option is not valid JSON, that logs a console error and that
// tries to load an image must be reported on all three counts.
func TestBrowserCatchesBrokenPage(t *testing.T) {
	browsertest.Require(t)
	var b bytes.Buffer
	doc := &model.Doc{Title: "broken", Sections: []model.Section{{ID: "s", Title: "s", Blocks: []model.Block{
		&model.TimeSeries{ID: "ok", Series: []model.Series{{Name: "a", X: []float64{0, 1}, Y: []float64{1, 2}}}},
		&model.TimeSeries{ID: "bad", Series: []model.Series{{Name: "b", X: []float64{0, 1}, Y: []float64{1, 2}}}},
	}}}}
	if err := WriteHTML(&b, doc); err != nil {
		t.Fatal(err)
	}
	html := b.Bytes()
	// Corrupt the second chart's option, as a NaN would with go-echarts'
	// own renderer.
	i := bytes.Index(html, []byte(`data-chart="c_bad"`))
	j := bytes.IndexByte(html[i:], '>')
	html = append(html[:i+j+1:i+j+1], append([]byte(`{"series":[NaN]}`), html[bytes.Index(html[i:], []byte("</script>"))+i:]...)...)
	html = bytes.Replace(html, []byte("</main>"), []byte(`</main><img src="https://example.invalid/x.png"><script>console.error("boom")</script>`), 1)
	page := filepath.Join(t.TempDir(), "broken.html")
	if err := os.WriteFile(page, html, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := browsertest.CheckInBrowser(page)
	if err != nil {
		t.Fatal(err)
	}
	if res.Charts != 2 || res.Initialised != 1 || res.Drawn != 1 {
		t.Errorf("charts total/init/drawn = %d/%d/%d, want 2/1/1", res.Charts, res.Initialised, res.Drawn)
	}
	var sawBoom, sawCSP bool
	for _, e := range res.Errors {
		sawBoom = sawBoom || bytes.Contains([]byte(e), []byte("boom"))
		sawCSP = sawCSP || bytes.Contains([]byte(e), []byte("example.invalid"))
	}
	if !sawBoom || !sawCSP {
		t.Errorf("errors %q: want the console error and the CSP-blocked image", res.Errors)
	}
	if res.Err() == nil {
		t.Error("Err() = nil for a broken page")
	}
}
