package browsertest

import (
	"os"
	"testing"
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
