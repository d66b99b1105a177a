package render

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/internal/browsertest"
	"github.com/outlast-dev/outlast/report/document"
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
	if n := len(document.Figures(sampleDoc())); res.Charts != n {
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
// chart option is not valid JSON, into which a script was injected (the
// CSP refuses to run it: only the page's own scripts have their hash in
// it) and that tries to load an image must be reported on all three
// counts.
func TestBrowserCatchesBrokenPage(t *testing.T) {
	browsertest.Require(t)
	var b bytes.Buffer
	doc := &document.Doc{Title: "broken", Sections: []document.Section{{ID: "s", Title: "s", Blocks: []document.Block{
		&document.TimeSeries{ID: "ok", Series: []document.Series{{Name: "a", X: []float64{0, 1}, Y: []float64{1, 2}}}},
		&document.TimeSeries{ID: "bad", Series: []document.Series{{Name: "b", X: []float64{0, 1}, Y: []float64{1, 2}}}},
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
	var sawBoom, sawScript, sawImage bool
	for _, e := range res.Errors {
		sawBoom = sawBoom || bytes.Contains([]byte(e), []byte("boom"))
		sawScript = sawScript || strings.Contains(e, "CSP blocked inline (script-src")
		sawImage = sawImage || bytes.Contains([]byte(e), []byte("example.invalid"))
	}
	if sawBoom || !sawScript || !sawImage {
		t.Errorf("errors %q: want the injected script blocked (not run) and the CSP-blocked image", res.Errors)
	}
	if res.Err() == nil {
		t.Error("Err() = nil for a broken page")
	}
}

// TestTableScript runs the table script on a table and drives it as a
// reader would: a click on a heading sorts (numbers as numbers, missing
// last, a second click reverses), typing into the box above the table
// filters. The page records the first column after each step.
func TestTableScript(t *testing.T) {
	browsertest.Require(t)
	var b bytes.Buffer
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><div class="tbl-wrap"><table class="data sortable">
<thead><tr><th>Run</th><th>Hit</th><th>Verdict</th></tr></thead><tbody>
<tr><td>a</td><td>0.9</td><td>healthy</td></tr>
<tr><td>b</td><td>–</td><td>unreported</td></tr>
<tr><td>c</td><td>10.5</td><td>persistent</td></tr>
<tr><td>d</td><td>2</td><td>healthy</td></tr>
</tbody></table></div><script>`)
	b.WriteString(tablesJS)
	b.WriteString(`</script><script>
(function () {
  var t = document.querySelector('table'), out = [];
  function first() {
    var s = [];
    for (var i = 0; i < t.tBodies[0].rows.length; i++) {
      var r = t.tBodies[0].rows[i];
      if (!r.hidden) { s.push(r.cells[0].textContent); }
    }
    return s.join('');
  }
  var th = t.tHead.rows[0].cells;
  th[1].click(); out.push(first());
  th[1].click(); out.push(first());
  th[2].click(); out.push(first());
  var box = document.querySelector('input.tfilter');
  box.value = 'HEALTHY'; box.dispatchEvent(new Event('input')); out.push(first());
  box.value = 'healthy d'; box.dispatchEvent(new Event('input')); out.push(first());
  document.body.dataset.steps = out.join(' ') + ' | ' + document.querySelector('span.tcount').textContent;
  document.body.dataset.checkDone = '1';
})();
</script></body></html>`)
	page := filepath.Join(t.TempDir(), "table.html")
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, err := browsertest.DumpDOM(page)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`data-steps="([^"]*)"`).FindSubmatch(dom)
	// Hit ascending: 0.9, 2, 10.5, missing; descending: missing still last;
	// by verdict: healthy (a, d in their order), persistent, unreported;
	// filtered: the healthy rows, then the one healthy row containing d.
	if want := "adcb cdab adcb ad d | 1 of 4 rows"; m == nil || string(m[1]) != want {
		t.Errorf("steps = %q, want %q", m, want)
	}
}
