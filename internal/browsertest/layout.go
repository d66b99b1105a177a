package browsertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
)

// Layout is where a report page put its parts in a width×height window,
// as a reader scrolled to its top sees them (CSS pixels from the top of
// the page).
type Layout struct {
	Width, Height int // the window's inner size
	// FirstChart is the top and bottom of the page's first chart; -1 when
	// it has none. FirstTable is the top of its first data table.
	FirstChartTop, FirstChartBottom int
	FirstTableTop                   int
	// CompactRows counts the body rows of the compact tables (class
	// compact); MinRowHeight and MaxRowHeight are their extremes, equal
	// when no row wraps onto a second line. Abbreviated counts their
	// cells with a title (the whole text shown on hover).
	CompactRows                int
	MinRowHeight, MaxRowHeight int
	Abbreviated                int
}

// measureJS is added to a copy of the page: once it has loaded, it writes
// the Layout as JSON into <body data-layout>.
const measureJS = `<script>
window.addEventListener('load', function () {
  function top(e) { return e ? Math.round(e.getBoundingClientRect().top + window.scrollY) : -1; }
  function bottom(e) { return e ? Math.round(e.getBoundingClientRect().bottom + window.scrollY) : -1; }
  var chart = document.querySelector('.chart'), table = document.querySelector('table.data');
  var rows = document.querySelectorAll('table.compact tbody tr'), min = -1, max = -1;
  rows.forEach(function (r) {
    var h = Math.round(r.getBoundingClientRect().height);
    if (min < 0 || h < min) { min = h; }
    if (h > max) { max = h; }
  });
  document.body.setAttribute('data-layout', JSON.stringify({
    Width: window.innerWidth, Height: window.innerHeight,
    FirstChartTop: top(chart), FirstChartBottom: bottom(chart), FirstTableTop: top(table),
    CompactRows: rows.length, MinRowHeight: min, MaxRowHeight: max,
    Abbreviated: document.querySelectorAll('table.compact td[title]').length
  }));
});
</script>`

var (
	cspMeta    = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`)
	layoutAttr = regexp.MustCompile(`<body\b[^>]*\bdata-layout="([^"]*)"`)
)

// MeasureLayout loads a copy of the page at htmlPath in a width×height
// headless Chromium window, with a script added that measures where its
// parts are (the copy drops the page's Content-Security-Policy, which
// allows only the page's own scripts; nothing else changes, and the
// layout does not depend on it).
func MeasureLayout(htmlPath string, width, height int) (Layout, error) {
	page, err := os.ReadFile(htmlPath)
	if err != nil {
		return Layout{}, fmt.Errorf("browsertest: %w", err)
	}
	page = cspMeta.ReplaceAll(page, nil)
	i := bytes.LastIndex(page, []byte("</body>"))
	if i < 0 {
		return Layout{}, errors.New("browsertest: no </body> in the page")
	}
	page = append(page[:i:i], append([]byte(measureJS), page[i:]...)...)
	dir, err := os.MkdirTemp("", "outlast-layout-")
	if err != nil {
		return Layout{}, fmt.Errorf("browsertest: %w", err)
	}
	defer os.RemoveAll(dir)
	copyPath := filepath.Join(dir, "page.html")
	if err := os.WriteFile(copyPath, page, 0o644); err != nil {
		return Layout{}, fmt.Errorf("browsertest: %w", err)
	}
	dom, err := runChromium(copyPath, true, "--dump-dom", fmt.Sprintf("--window-size=%d,%d", width, height))
	if err != nil {
		return Layout{}, err
	}
	all := layoutAttr.FindAllSubmatch(dom, -1)
	if len(all) == 0 {
		return Layout{}, errors.New("browsertest: the page did not record its layout (script error?)")
	}
	var l Layout
	if err := json.Unmarshal([]byte(html.UnescapeString(string(all[len(all)-1][1]))), &l); err != nil {
		return Layout{}, fmt.Errorf("browsertest: layout: %w", err)
	}
	return l, nil
}
