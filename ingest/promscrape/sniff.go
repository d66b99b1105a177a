package promscrape

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// sniffLines bounds how far Sniff reads: a file whose first samples come
// later is taken for scrapes, whose reader then reports what it finds.
const sniffLines = 20000

// ErrSingleDump is the reason of Sniff's error for exposition text with
// neither "# scrape" lines nor sample timestamps: one dump of /metrics,
// whose samples have no time.
var ErrSingleDump = errors.New(`a /metrics dump without "# scrape <unix seconds>" lines or sample timestamps: its samples have no time. ` +
	`Record scrapes with a "# scrape" line before each (docs/run-format.md, metrics), ` +
	`or export the series with their times from Prometheus: /federate or promtool tsdb dump-openmetrics (samples with timestamps), ` +
	`or the JSON of /api/v1/query_range`)

// laterScrape reads on after a first sample without a timestamp, line n
// of the input: a "# scrape" line further on makes the input scrapes (its
// reader then reports the lines before the first one); none to the end
// makes it a single dump, refused with err.
func laterScrape(lr *lineio.Reader, n int, err error) (string, error) {
	for ; lr.Next(); n++ {
		if n == sniffLines {
			return schema.MetricsScrapes, nil
		}
		b := lr.Bytes()
		if i := skipBlank(b, 0); i < len(b) && b[i] == '#' {
			var cm comment
			if _, _ = scanComment(b, i, &cm); cm.kind == commentScrape {
				return schema.MetricsScrapes, nil
			}
		}
	}
	if rerr := lr.Err(); rerr != nil {
		return "", rerr
	}
	return "", err
}

// otherForm names the form of line b, the first of an input that is not
// blank, when it begins a table or a JSON export rather than exposition
// text: Grafana's panel exports above all, which researchers take for
// the series (grafana/grafana packages/grafana-data/src/utils/csv.ts
// toCSV: a quoted header of field names, or "sep=," first with the Excel
// header, or "#name#" lines with the full header), which holds nothing
// outlast can trust: its times are formatted in the browser's time zone
// and its values as the panel displays them; promtool query's default
// text of a range query; compressed data; or JSON, which outlast reads
// only as a range query's answer (ingest/promjson, which the caller tries
// first: what reaches Sniff is no such answer). "" for any other line.
func otherForm(b []byte) string {
	b = bytes.TrimPrefix(b, []byte("\ufeff")) // a byte-order mark, as Grafana's download writes
	switch {
	case len(b) == 0:
		return ""
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}) || bytes.HasPrefix(b, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		// The magic numbers of gzip (RFC 1952) and zstd (RFC 8878): a
		// compressed file whose name does not say so (a /metrics body
		// saved with Accept-Encoding: gzip and without curl --compressed).
		return "compressed data (gzip or zstd) in a file whose name does not end in .gz or .zst: " +
			"name it so (files.metrics in run.yaml), or decompress it"
	case b[0] == '"' || bytes.HasPrefix(b, []byte("sep=")) || bytes.HasPrefix(b, []byte("#name#")):
		return "a CSV table (as Grafana's Inspect > Data > Download CSV writes it), not a form outlast reads: " +
			"its times are formatted in the browser's time zone and its values as the panel shows them. " + exportHint
	case b[0] != '#' && bytes.HasSuffix(bytes.TrimRight(b, " \t\r"), []byte(" =>")):
		// prometheus/common model.SampleStream.String: "<metric> =>"
		// then "<value> @[<time>]" lines, promtool query's default
		// (promql) output of a range query.
		return "the text promtool query range prints by default (\"<series> =>\" then \"<value> @[<time>]\" lines), not a form outlast reads: " +
			"run promtool query -o json range for JSON that outlast reads (docs/run-format.md, metrics)"
	case b[0] == '[':
		return "JSON that is not Prometheus' answer to a range query (an array of series, as promtool query -o json range prints), " +
			"and not exposition text. " + exportHint
	}
	return ""
}

// exportHint says how to export the series in a form outlast reads.
const exportHint = "Export the series themselves from Prometheus: the JSON of /api/v1/query_range, " +
	"/federate, or promtool tsdb dump-openmetrics (docs/run-format.md, metrics)"

// Sniff reads the start of the exposition text in lr and returns its form:
// schema.MetricsScrapes when a "# scrape" line comes before the first
// sample (or the input holds nothing), else, by the first sample's
// timestamp, schema.MetricsPrometheusText (integer milliseconds) or
// schema.MetricsOpenMetrics (seconds, or a "# EOF" or "# UNIT" line); the
// lines of promtool tsdb dump, {__name__="…", …}, are the former. A
// first sample without a timestamp makes the input scrapes when a
// "# scrape" line follows it, else it is a *textpos.ParseError at that
// sample whose reason is ErrSingleDump, as is an input of comments alone;
// a first line that is not exposition text is a *textpos.ParseError at its
// column.
func Sniff(lr *lineio.Reader) (string, error) {
	om, comments := false, 0
	for n := 0; lr.Next(); n++ {
		if n == sniffLines {
			return schema.MetricsScrapes, nil
		}
		b, no := lr.Bytes(), lr.Pos().Line
		i := skipBlank(b, 0)
		if i == len(b) {
			continue
		}
		if reason := otherForm(b[i:]); reason != "" {
			return "", textpos.At(textpos.Pos{File: lr.Name(), Line: no}, i+1, b, "%s", reason)
		}
		if b[i] == '#' {
			var cm comment
			_, _ = scanComment(b, i, &cm)
			switch {
			case cm.kind == commentScrape:
				return schema.MetricsScrapes, nil
			case isEOF(b[i:]) || bytes.HasPrefix(b[skipBlank(b, i+1):], []byte("UNIT ")):
				om = true
			}
			comments++
			continue
		}
		s, cerr := scanSample(b, i, true)
		pos := textpos.Pos{File: lr.Name(), Line: no}
		if cerr != nil {
			return "", textpos.At(pos, cerr.Off+1, b, "not Prometheus exposition text: %v", cerr)
		}
		if s.tsS == s.tsE {
			return laterScrape(lr, n, &textpos.ParseError{Pos: pos, Raw: append([]byte(nil), b...), Err: ErrSingleDump})
		}
		ts := b[s.tsS:s.tsE]
		if s.dump && !om {
			return schema.MetricsPrometheusText, nil // promtool tsdb dump: milliseconds, whatever their digits
		}
		if om || bytes.ContainsAny(ts, ".eE") || len(ts) <= 11 { // seconds stay below 1e11 until the year 5138
			return schema.MetricsOpenMetrics, nil
		}
		return schema.MetricsPrometheusText, nil
	}
	if err := lr.Err(); err != nil {
		return "", err
	}
	if comments > 0 && !om {
		return "", &textpos.ParseError{Pos: textpos.Pos{File: lr.Name(), Line: 1},
			Err: fmt.Errorf("no samples, only comments: %w", ErrSingleDump)}
	}
	if om {
		return schema.MetricsOpenMetrics, nil
	}
	return schema.MetricsScrapes, nil
}
