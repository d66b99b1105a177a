package rundir

import (
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/ingest/promscrape"
	"github.com/outlast-dev/outlast/schema"
)

// exports are the Prometheus exports of the vllm-2026 fixture's scrapes.
func exports(name string) string { return filepath.Join(fixture("prom-exports"), name) }

// metricsSamples returns the run's samples from its metrics, without
// their lines (which differ between forms).
func metricsSamples(res *Result) []schema.EngineSample {
	var out []schema.EngineSample
	for _, s := range res.Data.Engine {
		if s.Source == schema.SourceMetrics {
			s.Line = 0
			out = append(out, s)
		}
	}
	return out
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	writeFile(t, to, readFile(t, from))
}

// setFiles adds a files: section to the run's manifest.
func setFiles(t *testing.T, dir, files string) {
	t.Helper()
	appendLine(t, filepath.Join(dir, ManifestName), "files:\n"+files)
}

// TestMetricsForms ingests the vllm-2026 run with its metrics in each form
// outlast reads, told from the content or named by files.metrics_format:
// the exposition forms give the scrapes' own samples, query_range its 5 s
// evaluations; runs.metrics_format says which form was read.
func TestMetricsForms(t *testing.T) {
	orig := read(t, fixture("vllm-2026"), Options{})
	want := metricsSamples(orig)
	if orig.Data.Run.MetricsFormat != schema.MetricsScrapes || len(want) != 60 {
		t.Fatalf("fixture: format %q, %d samples", orig.Data.Run.MetricsFormat, len(want))
	}
	gz := func(t *testing.T, from, to string) {
		f, err := os.Create(to)
		if err != nil {
			t.Fatal(err)
		}
		zw := gzip.NewWriter(f)
		zw.Write([]byte(readFile(t, from)))
		zw.Close()
		f.Close()
	}
	cases := []struct {
		name, format string
		same         bool // the scrapes' samples
		setup        func(t *testing.T, dir string)
	}{
		{"federate text", schema.MetricsPrometheusText, true, func(t *testing.T, dir string) {
			copyFile(t, exports("federate.prom"), filepath.Join(dir, "metrics.prom"))
		}},
		{"promtool dump, gzipped", schema.MetricsOpenMetrics, true, func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "metrics.prom"))
			gz(t, exports("metrics.om"), filepath.Join(dir, "metrics.om.gz"))
			setFiles(t, dir, "  metrics: metrics.om")
		}},
		{"promtool dump, named", schema.MetricsOpenMetrics, true, func(t *testing.T, dir string) {
			copyFile(t, exports("metrics.om"), filepath.Join(dir, "metrics.prom"))
			setFiles(t, dir, "  metrics_format: openmetrics")
		}},
		{"query_range, one file", schema.MetricsQueryRange, false, func(t *testing.T, dir string) {
			copyFile(t, exports("query_range_all.json"), filepath.Join(dir, "q.json"))
			setFiles(t, dir, "  metrics: q.json")
		}},
		{"query_range, a directory", schema.MetricsQueryRange, false, func(t *testing.T, dir string) {
			if err := os.CopyFS(filepath.Join(dir, "query_range"), os.DirFS(exports("query_range"))); err != nil {
				t.Fatal(err)
			}
			setFiles(t, dir, "  metrics: query_range\n  metrics_format: query-range")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyRun(t, "vllm-2026")
			c.setup(t, dir)
			res := read(t, dir, Options{})
			got := metricsSamples(res)
			if res.Data.Run.MetricsFormat != c.format {
				t.Errorf("metrics_format %q, want %q", res.Data.Run.MetricsFormat, c.format)
			}
			if len(got) != 60 || *res.Data.Run.KVPoolTokens != 400000 || res.Data.Run.MetricsSHA256 == "" {
				t.Fatalf("%d samples, pool %v, sha %q", len(got), res.Data.Run.KVPoolTokens, res.Data.Run.MetricsSHA256)
			}
			warned(t, res, "1 counter resets")
			if !c.same {
				if got[0].TS != 5 || got[59].TS != 300 {
					t.Errorf("query_range steps from %v to %v s, want 5 to 300", got[0].TS, got[59].TS)
				}
				return
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("sample %d:\n got %s\nwant %s", i, readertest.FormatScrape(got[i]), readertest.FormatScrape(want[i]))
				}
			}
		})
	}
}

// TestMetricsDirectoryHash checks the sha256 of a directory of answers:
// that of its sha256sum listing, in name order.
func TestMetricsDirectoryHash(t *testing.T) {
	dir := copyRun(t, "vllm-2026")
	qr := filepath.Join(dir, "query_range")
	if err := os.CopyFS(qr, os.DirFS(exports("query_range"))); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(qr, "notes.txt"), []byte("exported by hand\n"), 0o644)
	setFiles(t, dir, "  metrics: query_range")
	res := read(t, dir, Options{})
	names, _ := filepath.Glob(filepath.Join(qr, "*.json"))
	var listing strings.Builder
	for _, n := range names {
		fmt.Fprintf(&listing, "%x  %s\n", sha256.Sum256([]byte(readFile(t, n))), filepath.Base(n))
	}
	if want := fmt.Sprintf("%x", sha256.Sum256([]byte(listing.String()))); res.Data.Run.MetricsSHA256 != want {
		t.Errorf("sha256 %s, want %s", res.Data.Run.MetricsSHA256, want)
	}
	warned(t, res, "query_range/notes.txt: not a .json query_range answer: left out")
}

// TestMetricsRefused checks the inputs that stop an ingest, in lenient
// mode too: a single /metrics dump (no time), a format that does not fit
// the input, and a directory for a format that reads a file.
func TestMetricsRefused(t *testing.T) {
	firstScrape := func(t *testing.T, dir string) {
		rewrite(t, filepath.Join(dir, "metrics.prom"), func(s string) string {
			s = s[strings.Index(s, "\n")+1:]         // drop the first "# scrape" line
			return s[:strings.Index(s, "# scrape ")] // keep one dump
		})
	}
	cases := []struct {
		name, want string
		lenientToo bool
		setup      func(t *testing.T, dir string)
	}{
		{"single dump", "metrics.prom:3: " + promscrape.ErrSingleDump.Error(), true, firstScrape}, // its first sample
		{"directory named openmetrics", "query_range is a directory: files.metrics_format openmetrics reads a file (only query-range reads a directory of answers)", true,
			func(t *testing.T, dir string) {
				os.CopyFS(filepath.Join(dir, "query_range"), os.DirFS(exports("query_range")))
				setFiles(t, dir, "  metrics: query_range\n  metrics_format: openmetrics")
			}},
		{"federate read as scrapes", "metrics.prom:1: scrape has no time", false, func(t *testing.T, dir string) {
			copyFile(t, exports("federate.prom"), filepath.Join(dir, "metrics.prom"))
			setFiles(t, dir, "  metrics_format: scrapes")
		}},
		{"empty directory", "query_range: no .json query_range answers in the directory", true, func(t *testing.T, dir string) {
			os.Mkdir(filepath.Join(dir, "query_range"), 0o755)
			setFiles(t, dir, "  metrics: query_range")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyRun(t, "vllm-2026")
			c.setup(t, dir)
			for _, lenient := range []bool{false, true} {
				_, err := Read(dir, Options{Lenient: lenient})
				if lenient && !c.lenientToo {
					continue
				}
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("lenient %v: %v\nwant %s", lenient, err, c.want)
				}
			}
		})
	}
}

// TestMetricsDPAttention ingests SGLang scrapes with data-parallel
// attention (the series of every DP rank with its own tp_rank): the DP
// ranks are summed and no scrape is said to lack the known metrics.
func TestMetricsDPAttention(t *testing.T) {
	dir := copyRun(t, "sglang-2026")
	var b strings.Builder
	for k, ts := range []string{"1784542505", "1784542510"} {
		fmt.Fprintf(&b, "# scrape %s\n", ts)
		for dp := range 8 {
			fmt.Fprintf(&b, "sglang:num_running_reqs{dp_rank=\"%d\",engine_type=\"unified\",model_name=\"m\",moe_ep_rank=\"%d\",pp_rank=\"0\",tp_rank=\"%d\"} %d\n", dp, dp, dp, 1+k)
			fmt.Fprintf(&b, "sglang:num_queue_reqs{dp_rank=\"%d\",engine_type=\"unified\",model_name=\"m\",moe_ep_rank=\"%d\",pp_rank=\"0\",tp_rank=\"%d\"} %d\n", dp, dp, dp, dp%2)
		}
	}
	os.WriteFile(filepath.Join(dir, "metrics.prom"), []byte(b.String()), 0o644)
	res := read(t, dir, Options{})
	got := metricsSamples(res)
	if len(got) != 2 || *got[0].Running != 8 || *got[1].Running != 16 || *got[1].Waiting != 4 || got[0].EngineIndex != -1 {
		t.Errorf("samples %v", got)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "none of the known") {
			t.Errorf("warning %q", w)
		}
	}
}

// TestMetricsUnmarkedStart reads scrapes whose first one lost its
// "# scrape" line: not a single dump, so strict mode stops at it and
// lenient mode keeps the other scrapes.
func TestMetricsUnmarkedStart(t *testing.T) {
	dir := copyRun(t, "vllm-2026")
	rewrite(t, filepath.Join(dir, "metrics.prom"), func(s string) string { return s[strings.Index(s, "\n")+1:] })
	if _, err := Read(dir, Options{}); err == nil || !strings.Contains(err.Error(), "metrics.prom:1: scrape has no time") {
		t.Errorf("strict: %v", err)
	}
	res := read(t, dir, Options{Lenient: true})
	if n := len(metricsSamples(res)); n != 59 || len(res.Rejects) != 1 {
		t.Errorf("lenient: %d samples, %d rejects; want 59, 1", n, len(res.Rejects))
	}
}
