package promscrape

import (
	"errors"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// TestSniff tells the forms apart by their first lines and refuses a
// single dump, saying which forms to provide.
func TestSniff(t *testing.T) {
	cases := []struct{ in, form, err string }{
		{"", schema.MetricsScrapes, ""},
		{"\n\n", schema.MetricsScrapes, ""},
		{"# scrape 1790000000.000\nvllm:num_requests_running 1\n", schema.MetricsScrapes, ""},
		{"# a note\n\n# scrape 1790000000\n", schema.MetricsScrapes, ""},
		{"# HELP x X.\n# TYPE x gauge\n# scrape 1790000000\nx 1\n", schema.MetricsScrapes, ""},
		{"# TYPE x untyped\nx{a=\"1\"} 1 1790000000000\n", schema.MetricsPrometheusText, ""},
		{"x 1 1790000000.123\n# EOF\n", schema.MetricsOpenMetrics, ""},
		{"x 1 1790000000\n", schema.MetricsOpenMetrics, ""},
		{"x 1 1.79e9\n", schema.MetricsOpenMetrics, ""},
		{"# TYPE x gauge\n# UNIT x seconds\nx 1 1790000000123\n", schema.MetricsOpenMetrics, ""},
		{"{\"x.y\",a=\"1\"} 1 1790000000123\n", schema.MetricsPrometheusText, ""},
		{"x 1 1790000000123 # {a=\"b\"} 1\n", schema.MetricsPrometheusText, ""},
		{"# HELP x X.\n# TYPE x gauge\nx 1\n", "", "metrics.prom:3: " + ErrSingleDump.Error()},
		{"x 1\ny 2\n# scrape 1790000005\nx 2\n", schema.MetricsScrapes, ""}, // the reader reports lines 1-2
		{"    vllm:num_requests_running{a=\"1\"} 0.0\n", "", "metrics.prom:1: " + ErrSingleDump.Error()},
		{"# HELP x X.\n# TYPE x gauge\n", "", "metrics.prom:1: no samples, only comments: " + ErrSingleDump.Error()},
		{"$ curl http://localhost:30000/metrics\n\nx 1\n", "", "metrics.prom:1:1: not Prometheus exposition text: invalid metric name: want a sample (name{labels} value timestamp) or a # comment"},
		// Grafana's panel export (otherForm), named at its first line:
		// Inspect > Data > Download CSV in its three header styles (a BOM
		// first, CRLF lines, as the download writes them); and JSON that
		// promjson.Looks did not take.
		{"\ufeff\"Time\",\"vllm:num_requests_running{engine=\"\"0\"\", instance=\"\"localhost:8000\"\"}\"\r\n2026-03-01 10:00:00,0\r\n", "", "metrics.prom:1:1: " + csvReason},
		{"sep=,\r\n\"Time\",\"Value\"\r\n", "", "metrics.prom:1:1: " + csvReason},
		{"#name#Time,Value\r\n#type#time,number\r\n1772359200000,0\r\n", "", "metrics.prom:1:1: " + csvReason},
		{"\n  [[1790000005, \"1\"]]\n", "", "metrics.prom:2:3: " + jsonReason},
		// A gzip'd /metrics body (curl -H 'Accept-Encoding: gzip' without
		// --compressed) or a .zst file renamed.
		{"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xed\n", "", "metrics.prom:1:1: compressed data (gzip or zstd) in a file whose name does not end in .gz or .zst: " +
			"name it so (files.metrics in run.yaml), or decompress it"},
		{"\x28\xb5\x2f\xfd\x04\x00", "", "metrics.prom:1:1: compressed data (gzip or zstd) in a file whose name does not end in .gz or .zst: " +
			"name it so (files.metrics in run.yaml), or decompress it"},
		// promtool query range's default output (model.Matrix.String).
		{"vllm:num_requests_running{engine=\"0\", instance=\"vllm-0:8000\", job=\"vllm\"} =>\n2 @[1790000005]\n3 @[1790000010.05]\n", "",
			"metrics.prom:1:1: the text promtool query range prints by default (\"<series> =>\" then \"<value> @[<time>]\" lines), not a form outlast reads: " +
				"run promtool query -o json range for JSON that outlast reads (docs/run-format.md, metrics)"},
	}
	for _, c := range cases {
		lr, err := lineio.NewReader(strings.NewReader(c.in), "metrics.prom")
		if err != nil {
			t.Fatal(err)
		}
		form, err := Sniff(lr)
		var pe *textpos.ParseError
		switch {
		case c.err == "" && (err != nil || form != c.form):
			t.Errorf("%q: got %q, %v; want %q", c.in, form, err, c.form)
		case c.err != "" && (err == nil || err.Error() != c.err || !errors.As(err, &pe)):
			t.Errorf("%q: got %q, %v;\nwant error %s", c.in, form, err, c.err)
		}
	}
}

// The reasons of Sniff's errors for Grafana's exports.
const (
	csvReason = "a CSV table (as Grafana's Inspect > Data > Download CSV writes it), not a form outlast reads: " +
		"its times are formatted in the browser's time zone and its values as the panel shows them. " + exportHint
	jsonReason = "JSON that is not Prometheus' answer to a range query (an array of series, as promtool query -o json range prints), " +
		"and not exposition text. " + exportHint
)
