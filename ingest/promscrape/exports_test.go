package promscrape

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
)

// exportsDir holds the Prometheus exports of the vllm-2026 fixture's
// scrapes (its README says how they were made).
var exportsDir = filepath.Join(readertest.FixturesDir, "prom-exports")

// TestExportsMatchScrapes reads the /federate and promtool exports (both
// dump forms) of the vllm-2026 scrapes: every sample is the scrape's,
// time, gauges, deltas, intervals and reset included; only the line
// differs.
func TestExportsMatchScrapes(t *testing.T) {
	data := fixtureData(t, "vllm-2026")
	want, wantInfo := readAll(t, string(data), fixtures[0].t0)
	for _, c := range []struct{ file, form string }{
		{"federate.prom", schema.MetricsPrometheusText},
		{"metrics.om", schema.MetricsOpenMetrics},
		{"tsdb-dump.txt", schema.MetricsPrometheusText}, // promtool tsdb dump: {__name__="…", …} value ms
	} {
		t.Run(c.file, func(t *testing.T) {
			data := readertest.ReadFile(t, exportsDir, c.file)
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
			readertest.Golden(t, "exports-"+c.file, []byte(strings.Join(append(got, formatInfo(info)), "\n")+"\n"))
		})
	}
}

// shifted returns n copies of the export file, each copy's timestamps
// moved on by 300 s: a 5-minute run made n times as long.
func shifted(b testing.TB, file string, n int, om bool) []byte {
	data := readertest.ReadFile(b, exportsDir, file)
	lines := strings.SplitAfter(string(data), "\n")
	var out strings.Builder
	for k := range n {
		for _, l := range lines {
			i := strings.LastIndexByte(l, ' ')
			if l == "" || l[0] == '#' || i < 0 {
				out.WriteString(l)
				continue
			}
			ts := strings.TrimSpace(l[i+1:])
			if om {
				var sec, ms int64
				fmt.Sscanf(ts, "%d.%d", &sec, &ms)
				fmt.Fprintf(&out, "%s%d.%03d\n", l[:i+1], sec+300*int64(k), ms)
			} else {
				var v int64
				fmt.Sscan(ts, &v)
				fmt.Fprintf(&out, "%s%d\n", l[:i+1], v+300000*int64(k))
			}
		}
	}
	return []byte(out.String())
}

// BenchmarkTimedText measures TimedReader on /federate polls of the
// vllm-2026 scrapes, as a run 40 times as long.
func BenchmarkTimedText(b *testing.B) { benchTimed(b, "federate.prom", schema.MetricsPrometheusText) }

// BenchmarkTimedOpenMetrics measures TimedReader on promtool's dump of the
// vllm-2026 scrapes, as a run 40 times as long.
func BenchmarkTimedOpenMetrics(b *testing.B) { benchTimed(b, "metrics.om", schema.MetricsOpenMetrics) }

func benchTimed(b *testing.B, file, form string) {
	data := shifted(b, file, 40, form == schema.MetricsOpenMetrics)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		lr, _ := lineio.NewReader(bytes.NewReader(data), file)
		r := NewTimedReader(lr, form, Options{T0: fixtures[0].t0})
		n := 0
		for _, err := range readertest.All(r.Next) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 40*60 {
			b.Fatalf("%d samples", n)
		}
	}
}
