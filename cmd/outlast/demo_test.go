package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/internal/browsertest"
)

// TestDemoReportInBrowser runs the README's demo (scripts/demo.sh: simulate,
// ingest, report) with the outlast command, checks that it shows what
// ingest warns of, then opens the report in
// headless Chromium: every chart must draw, with no console error and no
// request leaving the page. The screenshot is saved in the test's temporary
// directory, and in $OUTLAST_SCREENSHOT_DIR when set. Without chromium the
// test skips locally and fails in CI (CI=true), which installs it.
func TestDemoReportInBrowser(t *testing.T) {
	browsertest.Require(t) // also skips in -short mode: the demo takes about 15 s
	tmp := t.TempDir()
	// The outlast command TestMain puts on $PATH (this binary, run as
	// outlast), rather than a go build of its own: the same code, without
	// a link's seconds.
	bin, err := exec.LookPath("outlast")
	if err != nil {
		t.Fatal(err)
	}
	demo := exec.Command("bash", filepath.Join("scripts", "demo.sh"), bin, filepath.Join(tmp, "demo"))
	demo.Dir = filepath.Join("..", "..")
	out, err := demo.CombinedOutput()
	if err != nil {
		t.Fatalf("demo.sh: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Open the report: ") {
		t.Errorf("demo does not say where the report is:\n%s", out)
	}
	// What ingest says of the real-format fixtures is shown, not hidden:
	// their warnings, and the fixture directories that hold no run.
	for _, want := range []string{"outlast: vllm-0.8: gateway.jsonl:33:26: unknown ev \"heartbeat\"",
		"outlast: skipped fixtures/real/guidellm-0.3-pretty: no run.yaml beside its gateway log benchmarks.json"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the demo's output lacks %q:\n%s", want, out)
		}
	}
	page := filepath.Join(tmp, "demo", "report", "index.html")
	res := browsertest.Check(t, page)
	if res.Charts < 10 {
		t.Errorf("demo report has %d charts; the paired, calibration, recovery and drain sections alone have more", res.Charts)
	}
	// The first screen, as a researcher opens the page on a laptop: the
	// first experiment's headline figure whole within it, before any
	// table; the overview's rows each on one line, the runs' short names
	// with their whole names on hover.
	l, err := browsertest.MeasureLayout(page, 1280, 800)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("layout: %+v", l)
	if l.FirstChartTop < 0 || l.FirstChartBottom > l.Height {
		t.Errorf("the first chart is at %d–%d px, not within the first %d-px screen", l.FirstChartTop, l.FirstChartBottom, l.Height)
	}
	if l.FirstTableTop >= 0 && l.FirstTableTop < l.FirstChartTop {
		t.Errorf("a table (at %d px) comes before the first figure (at %d px)", l.FirstTableTop, l.FirstChartTop)
	}
	if l.CompactRows < 36 || l.MaxRowHeight > l.MinRowHeight+2 {
		t.Errorf("%d overview rows, %d–%d px high: want every run's row on one line", l.CompactRows, l.MinRowHeight, l.MaxRowHeight)
	}
	if l.Abbreviated == 0 {
		t.Error("no run name is shortened, with its whole name on hover")
	}
	browsertest.SaveScreenshot(t, page, "demo-report.png", 1280, 4000, 10_000)
	t.Logf("%d charts drew, %d requests, %d errors", res.Drawn, res.Requests, len(res.Errors))
}
