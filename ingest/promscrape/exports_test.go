package promscrape

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/internal/golden"
	"github.com/outlast-dev/outlast/schema"
)

// exportsDir holds the Prometheus exports of the vllm-2026 fixture's
// scrapes (its README says how they were made).
var exportsDir = filepath.Join(readertest.FixturesDir, "prom-exports")

// TestExportsMatchScrapes reads the /federate and promtool exports of the
// vllm-2026 scrapes: every sample is the scrape's, time, gauges, deltas,
// intervals and reset included; only the line differs.
func TestExportsMatchScrapes(t *testing.T) {
	data, err := os.ReadFile(fixturePath("vllm-2026"))
	if err != nil {
		t.Fatal(err)
	}
	want, wantInfo := readAll(t, string(data), fixtures[0].t0)
	for _, c := range []struct{ file, form string }{
		{"federate.prom", schema.MetricsPrometheusText},
		{"metrics.om", schema.MetricsOpenMetrics},
	} {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(exportsDir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			lr, err := lineio.NewReader(strings.NewReader(string(data)), c.file)
			if err != nil {
				t.Fatal(err)
			}
			if form, err := Sniff(lr); form != c.form || err != nil {
				t.Errorf("Sniff = %q, %v; want %q", form, err, c.form)
			}
			got, info := readTimed(t, string(data), c.form, fixtures[0].t0)
			if len(got) != len(want) {
				t.Fatalf("%d samples, want %d", len(got), len(want))
			}
			body := func(l string) string { return l[strings.Index(l, " t="):] }
			for i := range got {
				if body(got[i]) != body(want[i]) {
					t.Errorf("sample %d:\n got %s\nwant %s", i, got[i], want[i])
				}
			}
			info.Repeats = wantInfo.Repeats
			if formatInfo(info) != formatInfo(wantInfo) {
				t.Errorf("%s\nwant %s", formatInfo(info), formatInfo(wantInfo))
			}
			golden.Check(t, filepath.Join("testdata", "exports-"+c.file+".golden"), []byte(strings.Join(append(got, formatInfo(info)), "\n")+"\n"))
		})
	}
}
