package report

import (
	"path/filepath"
	"testing"

	"github.com/outlast-dev/outlast/internal/browsertest"
	"github.com/outlast-dev/outlast/report/model"
)

// TestBuildInBrowser loads the report of the fixture dataset in headless
// Chromium: every figure must become a chart that initialises and draws,
// with no page error and no request.
func TestBuildInBrowser(t *testing.T) {
	browsertest.Require(t)
	dir := t.TempDir()
	opt := Options{Dataset: "fixture"}
	if err := Write(dir, fixtureRuns(), opt); err != nil {
		t.Fatal(err)
	}
	doc, _, err := Build(fixtureRuns(), opt)
	if err != nil {
		t.Fatal(err)
	}
	r, err := browsertest.CheckInBrowser(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Error(err)
	}
	if n := len(model.Figures(doc)); r.Charts != n || n < 15 {
		t.Errorf("the page has %d charts, the report %d figures (want at least 15)", r.Charts, n)
	}
}
