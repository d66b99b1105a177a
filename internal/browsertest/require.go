package browsertest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/outlast-dev/outlast/internal/slowtest"
)

// Require returns the Chromium binary for a browser test. Without one it
// skips the test, except under CI=true: CI installs Chromium (.ci/run), so
// there a missing browser fails the test rather than letting it pass
// unchecked. Outside CI, -short also skips browser tests, which take
// seconds each.
func Require(t testing.TB) string {
	t.Helper()
	ci := os.Getenv("CI") == "true"
	bin, err := FindChromium()
	switch {
	case err != nil && ci:
		t.Fatalf("CI=true but %v: CI must install it", err)
		return ""
	case err != nil:
		t.Skip(err)
		return ""
	case testing.Short() && !ci:
		t.Skip("browser check skipped in -short mode")
		return ""
	}
	return bin
}

// Check loads the page at htmlPath with CheckInBrowser, fails the test if
// the check cannot run and reports an error if the page is broken (Err).
// It returns the result for further checks, such as the number of charts.
func Check(t testing.TB, htmlPath string) Result {
	t.Helper()
	res, err := CheckInBrowser(htmlPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("browser: %+v", res)
	if err := res.Err(); err != nil {
		t.Error(err)
	}
	return res
}

// SaveScreenshot takes a width×height screenshot of the page at htmlPath
// for a human to look at, fails the test unless it is a PNG of at least
// minBytes (a blank page compresses to far less), and copies it to
// $OUTLAST_SCREENSHOT_DIR/name when that is set. It returns the PNG.
//
// It is taken only when $OUTLAST_SCREENSHOT_DIR is set or the whole test
// matrix runs (make test-all, slowtest.All), and returns nil otherwise:
// Chromium's --screenshot waits out its virtual-time budget in real time,
// 15 s or more a page, and on a loaded machine has hung past its timeout;
// whether every chart drew is Check's, from the page's own self-check.
func SaveScreenshot(t testing.TB, htmlPath, name string, width, height, minBytes int) []byte {
	t.Helper()
	if os.Getenv("OUTLAST_SCREENSHOT_DIR") == "" && !slowtest.All() {
		t.Logf("screenshot %s not taken: set OUTLAST_SCREENSHOT_DIR to keep one (make test-all takes it)", name)
		return nil
	}
	png := filepath.Join(t.TempDir(), name)
	if err := Screenshot(htmlPath, png, width, height); err != nil {
		t.Fatal(err)
	}
	img, err := os.ReadFile(png)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(img, []byte("\x89PNG\r\n\x1a\n")) || len(img) < minBytes {
		t.Errorf("screenshot %s is not a plausible PNG (%d bytes)", name, len(img))
	}
	if dir := os.Getenv("OUTLAST_SCREENSHOT_DIR"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), img, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return img
}
