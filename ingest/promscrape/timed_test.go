package promscrape

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

const (
	text = schema.MetricsPrometheusText
	om   = schema.MetricsOpenMetrics
)

// TestTimedText reads samples carrying their own millisecond timestamps:
// one sample per distinct time, at the line of its first point; HELP and
// TYPE lines, repeated or not, do not matter.
func TestTimedText(t *testing.T) {
	in := `# HELP vllm:num_requests_running Running.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0"} 2 1790000000500
vllm:prompt_tokens_total{engine="0"} 100 1790000000500
vllm:num_requests_running{engine="0"} 3 1790000004750
vllm:prompt_tokens_total{engine="0"} 160 1790000004750
# HELP vllm:num_requests_running Running.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0"} 5 1790000009000
vllm:prompt_tokens_total{engine="0"} 200 1790000009000
`
	info := checkTimed(t, in, text,
		"line=3 t=0.500 metrics/scrape engine=0 run=2 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=5 t=4.750 metrics/scrape engine=0 run=3 wait=- kv=- dt=4.25 queries=- hits=- prompt=60 gen=- preempt=-",
		"line=9 t=9.000 metrics/scrape engine=0 run=5 wait=- kv=- dt=4.25 queries=- hits=- prompt=40 gen=- preempt=-",
	)
	if info.Scrapes != 3 || info.Engine != "vllm" {
		t.Errorf("%s", formatInfo(info))
	}
}

// tsT0 is the T0 of the timed inputs below: their timestamps count from
// Unix second 1,790,000,000 (2026-09-21).
var tsT0 = t0.Add((1790000000 - 1000) * 1e9)

// TestTimedOrder reads one set of points in three layouts, scrape by
// scrape (/federate), series by series (promtool's dump) and shuffled: the
// samples are the same, each at the line of its first point.
func TestTimedOrder(t *testing.T) {
	// points are the set's six points, scrape by scrape.
	points := []string{
		`vllm:num_requests_running{engine="0"} 1 1790000005.000`,
		`vllm:prompt_tokens_total{engine="0"} 10 1790000005.000`,
		`vllm:num_requests_running{engine="0"} 2 1790000010.000`,
		`vllm:prompt_tokens_total{engine="0"} 30 1790000010.000`,
		`vllm:num_requests_running{engine="0"} 3 1790000015.000`,
		`vllm:prompt_tokens_total{engine="0"} 60 1790000015.000`,
	}
	layout := func(order ...int) string {
		var b strings.Builder
		for _, i := range order {
			b.WriteString(points[i] + "\n")
		}
		return b.String() + "# EOF\n"
	}
	byScrape, bySeries := layout(0, 1, 2, 3, 4, 5), layout(0, 2, 4, 1, 3, 5)
	// The shuffled layout also spells two times otherwise: without the
	// decimals, and with an exponent.
	shuffled := strings.NewReplacer("} 3 1790000015.000", "} 3 1790000015", "} 30 1790000010.000", "} 30 1.79000001e9").Replace(layout(5, 2, 1, 4, 3, 0))
	body := func(l string) string { return l[strings.Index(l, " t="):] }
	var first []string
	for k, in := range []string{byScrape, bySeries, shuffled} {
		got, _ := readTimed(t, in, om, tsT0)
		for i := range got {
			got[i] = body(got[i])
		}
		if k == 0 {
			first = got
			want := []string{
				" t=5.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
				" t=10.000 metrics/scrape engine=0 run=2 wait=- kv=- dt=5 queries=- hits=- prompt=20 gen=- preempt=-",
				" t=15.000 metrics/scrape engine=0 run=3 wait=- kv=- dt=5 queries=- hits=- prompt=30 gen=- preempt=-",
			}
			check(t, got, want)
			continue
		}
		check(t, got, first)
	}
	got, _ := readTimed(t, bySeries, om, tsT0)
	if !strings.HasPrefix(got[1], "line=2 ") || !strings.HasPrefix(got[2], "line=3 ") {
		t.Errorf("lines: %q", got)
	}
}

// TestTimedTargets reads two engines scraped at different moments: at
// each time every series stands at its latest point, for up to
// promseries.Lookback, so sums and deltas count each engine once.
func TestTimedTargets(t *testing.T) {
	in := `vllm:num_requests_running{engine="0",instance="a"} 1 1790000000000
vllm:num_requests_running{engine="0",instance="b"} 10 1790000002500
vllm:prompt_tokens_total{engine="0",instance="a"} 100 1790000000000
vllm:prompt_tokens_total{engine="0",instance="b"} 1000 1790000002500
vllm:num_requests_running{engine="0",instance="a"} 2 1790000005000
vllm:prompt_tokens_total{engine="0",instance="a"} 150 1790000005000
vllm:num_requests_running{engine="0",instance="b"} 20 1790000007500
vllm:prompt_tokens_total{engine="0",instance="b"} 1400 1790000007500
vllm:num_requests_running{engine="0",instance="b"} 30 1790000400000
`
	checkTimed(t, in, text,
		"line=1 t=0.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		// b's first point: in an export a series first seen is not
		// necessarily new (b was scraped at other moments, or the export
		// cut by time), so its 1000 since start is no 2.5 s delta: the
		// field is unknown there, not 1000.
		"line=2 t=2.500 metrics/scrape engine=0 run=11 wait=- kv=- dt=2.5 queries=- hits=- prompt=- gen=- preempt=-",
		"line=5 t=5.000 metrics/scrape engine=0 run=12 wait=- kv=- dt=2.5 queries=- hits=- prompt=50 gen=- preempt=-",
		"line=7 t=7.500 metrics/scrape engine=0 run=22 wait=- kv=- dt=2.5 queries=- hits=- prompt=400 gen=- preempt=-",
		// 392.5 s later a's points are older than the lookback: it vanished.
		"line=9 t=400.000 metrics/scrape engine=0 run=30 wait=- kv=- dt=392.5 queries=- hits=- prompt=- gen=- preempt=-",
	)
}

// TestTimedRepeats reads a /federate poll that saw the same scrape twice:
// its points are kept once and counted; a point at the same time with
// another value is an error at its line and column.
func TestTimedRepeats(t *testing.T) {
	block := "# TYPE vllm:num_requests_running untyped\nvllm:num_requests_running{engine=\"0\"} 1 1790000000000\n" +
		"# TYPE vllm:prompt_tokens_total untyped\nvllm:prompt_tokens_total{engine=\"0\"} 5 1790000000000\n"
	got, info := readTimed(t, block+block, text, tsT0)
	if len(got) != 1 || info.Repeats != 2 || info.Scrapes != 1 {
		t.Errorf("repeated poll: %q %+v", got, info)
	}
	got, _ = readTimed(t, block+strings.Replace(block, "} 5 ", "} 6 ", 1), text, tsT0)
	want := "error: metrics.prom:8:38: vllm:prompt_tokens_total has two values at one time: 5 (metrics.prom:4) and 6"
	if len(got) != 1 || got[0] != want { // and nothing at that time
		t.Errorf("conflict: got %q\nwant %q alone", got, want)
	}
	// The same found on sorting a series given out of order.
	in := "vllm:prompt_tokens_total 5 1790000005000\nvllm:prompt_tokens_total 4 1790000000000\nvllm:prompt_tokens_total 7 1790000005000\n"
	got, _ = readTimed(t, in, text, tsT0)
	if len(got) != 2 || got[0] != "error: metrics.prom:3:26: vllm:prompt_tokens_total has two values at one time: 5 (metrics.prom:1) and 7" {
		t.Errorf("conflict out of order: %q", got)
	}
}

// TestTimedStale reads promtool's staleness markers (NaN): the series
// stands for nothing from there on, and a marker alone makes no sample.
func TestTimedStale(t *testing.T) {
	in := `vllm:num_requests_running{engine="0"} 1 1790000000.000
vllm:num_requests_running{engine="0"} NaN 1790000005.000
vllm:num_requests_running{engine="0"} 3 1790000020.000
vllm:num_requests_waiting{engine="0"} 4 1790000000.000
vllm:num_requests_waiting{engine="0"} 5 1790000010.000
# EOF
`
	checkTimed(t, in, om,
		"line=1 t=0.000 metrics/scrape engine=0 run=1 wait=4 kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=5 t=10.000 metrics/scrape engine=0 run=- wait=5 kv=- dt=10 queries=- hits=- prompt=- gen=- preempt=-",
		"line=3 t=20.000 metrics/scrape engine=0 run=3 wait=5 kv=- dt=10 queries=- hits=- prompt=- gen=- preempt=-",
	)
	// In the text format a NaN is a value: a gauge's unknown figure, null,
	// not the end of the series; a counter's is an error.
	checkTimed(t, "vllm:num_requests_running NaN 1790000000000\nvllm:num_requests_waiting 2 1790000000000\n", text,
		"line=1 t=0.000 metrics/scrape engine=0 run=- wait=2 kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-")
	got, _ := readTimed(t, "vllm:prompt_tokens_total NaN 1790000000000\n", text, tsT0)
	if len(got) != 1 || got[0] != "error: metrics.prom:1:26: counter vllm:prompt_tokens_total has value NaN" {
		t.Errorf("NaN counter in text: %q", got)
	}
}

// TestTimedPoison checks that a bad point leaves out every sample at its
// time, so that the other series' deltas span it and nothing looks reset.
func TestTimedPoison(t *testing.T) {
	in := `vllm:prompt_tokens_total 10 1790000000000
vllm:num_requests_running 1 1790000000000
vllm:prompt_tokens_total -5 1790000005000
vllm:num_requests_running 2 1790000005000
vllm:prompt_tokens_total 40 1790000010000
vllm:num_requests_running 3 1790000010000
`
	checkTimed(t, in, text,
		"error: metrics.prom:3:26: counter vllm:prompt_tokens_total has value -5",
		"line=1 t=0.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=5 t=10.000 metrics/scrape engine=0 run=3 wait=- kv=- dt=10 queries=- hits=- prompt=30 gen=- preempt=-",
	)
}

// TestTimedLineErrors checks the reason, line and column of bad lines of
// the known metrics in both forms; the column is 1-based, in bytes.
func TestTimedLineErrors(t *testing.T) {
	cases := []struct{ form, line, want string }{
		{text, `vllm:num_requests_running 1`, `1:28: sample has no timestamp`},
		{text, `vllm:num_requests_running one 1790000000000`, `1:27: expected a number as value, got "one"`},
		{text, `vllm:num_requests_running 1 1790000000000.5`, `1:29: expected integer milliseconds as timestamp, got "1790000000000.5"`},
		{text, `vllm:num_requests_running 1 1790000000`, `1:29: timestamp 1790000000 is not in milliseconds (seconds?)`},
		{om, `vllm:num_requests_running 1 1790000000000`, `1:29: timestamp 1790000000000 is not in seconds (milliseconds?)`},
		{om, `vllm:num_requests_running 1 soon`, `1:29: expected Unix seconds as timestamp, got "soon"`},
		{text, `vllm:num_requests_running 1 1790000000000 7`, `1:43: unexpected text after the timestamp`},
		{om, `vllm:num_requests_running 1 1790000000.000 # {a="b"} 1`, ``}, // an exemplar
		{text, `vllm:num_requests_running 1 1790000000000 # {a="b"} 1`, `1:43: unexpected text after the timestamp`},
		{text, `vllm:num_requests_running{engine="0" 1 1790000000000`, `1:26: unclosed label set: no '}'`},
		{text, `vllm:num_requests_running{engine="0} 1 1790000000000`, `1:34: unterminated quoted string`},
		{text, `vllm:num_requests_running{engine="0"}1 1790000000000`, `1:38: unexpected '1' after the label set`},
		{text, `vllm:num_requests_running{engine=0} 1 1790000000000`, `1:34: expected '"' at the start of the value of label "engine"`},
		{text, `vllm:num_requests_running{engine="0",engine="1"} 1 1790000000000`, `1:38: label "engine" given twice`},
		{text, `vllm:num_requests_running{engine="0" x="1"} 1 1790000000000`, `1:38: expected ',' or '}' after the value of label "engine"`},
		{text, `vllm:num_requests_running{9="1"} 1 1790000000000`, `1:27: invalid label name`},
		{text, `vllm:num_requests_running{a="\q"} 1 1790000000000`, `1:30: invalid escape sequence '\q'`},
		{text, "vllm:num_requests_running{a=\"\xff\"} 1 1790000000000", `1:29: label "a": value is not valid UTF-8`},
		{text, `vllm:num_requests_running{a="x\ty"} 1 1790000000000`, ``}, // Go's escapes, as promtool quotes
		{text, `{"vllm:num_requests_running",engine="0"} 1 1790000000000`, ``},
		{text, `{"vllm:num_requests_running"="0"} 1 1790000000000`, `1:2: invalid metric name: a quoted name must come first in the braces`},
		{text, `1vllm 1 1790000000000`, `1:1: invalid metric name: want a sample (name{labels} value timestamp) or a # comment`},
		{text, `vllm:prompt_tokens_total -1 1790000000000`, `1:26: counter vllm:prompt_tokens_total has value -1`},
		{text, `vllm:prompt_tokens_total +Inf 1790000000000`, `1:26: counter vllm:prompt_tokens_total has value +Inf`},
		{text, `vllm:cache_config_info{kv_cache_size_tokens="lots"} 1 1790000000000`, `1:1: cache_config_info: invalid kv_cache_size_tokens "lots"`},
		// Lines of other metrics are not read (Filtering in the package doc).
		{text, `other{a="1" 1`, ``},
		{text, `other one 1790000000000`, ``},
	}
	for _, c := range cases {
		in := c.line + "\n"
		if c.form == om {
			in += "# EOF\n"
		}
		got, _ := readTimed(t, in, c.form, tsT0)
		var errs []string
		for _, g := range got {
			if strings.HasPrefix(g, "error") {
				errs = append(errs, g)
			}
		}
		switch {
		case c.want == "" && len(errs) > 0:
			t.Errorf("%s %q: got %q, want no error", c.form, c.line, errs)
		case c.want != "" && (len(errs) != 1 || !strings.HasPrefix(errs[0], "error: metrics.prom:"+c.want)):
			t.Errorf("%s %q:\n got %q\nwant %q", c.form, c.line, errs, c.want)
		}
	}
}

// TestTimedEnd checks the end of an input: OpenMetrics must end with
// "# EOF" (several documents may follow each other), and a last line
// without a newline is an error that leaves out its time.
func TestTimedEnd(t *testing.T) {
	doc := "vllm:num_requests_running 1 1790000000.000\n# EOF\n"
	doc2 := "vllm:num_requests_running 2 1790000005.000\n# EOF\n"
	for _, c := range []struct{ form, in, want string }{
		{om, doc + doc2, ""},
		{om, doc + "vllm:num_requests_running 2 1790000005.000\n", `error: metrics.prom:3: the OpenMetrics input does not end with "# EOF": it is incomplete`},
		{om, doc + "# EOF", ""},
		{om, doc + "vllm:num_requests_running 2 1790000005.000\n# EO", "error: metrics.prom:4: last line has no newline: the input is incomplete"},
		{om, doc + "vllm:num_requests_running 2 1790000005.0", "error: metrics.prom:3: last line has no newline: the input is incomplete"},
		{text, "vllm:num_requests_running 1 1790000000000\nvllm:num_requests_running 2 17900000050", "error: metrics.prom:2: last line has no newline: the input is incomplete"},
		{text, "vllm:num_requests_running 1 1790000000000\n# TYPE x gauge", ""},
	} {
		got, _ := readTimed(t, c.in, c.form, tsT0)
		var errs []string
		for _, g := range got {
			if strings.HasPrefix(g, "error") {
				errs = append(errs, g)
			}
		}
		if strings.Join(errs, "\n") != c.want {
			t.Errorf("%q: got %q, want %q", c.in, errs, c.want)
		}
	}
	// The cut line's time is left out when its timestamp is whole.
	got, _ := readTimed(t, doc+"vllm:num_requests_running 2 1790000005.000 # {", om, tsT0)
	if len(got) != 2 || !strings.HasPrefix(got[1], "line=1 ") {
		t.Errorf("cut line: %q", got)
	}
}

// FuzzTimed checks that no input makes Sniff or TimedReader fail other
// than with positioned errors, or give samples that break their rules.
func FuzzTimed(f *testing.F) {
	for _, file := range []string{"federate.prom", "metrics.om", "tsdb-dump.txt"} {
		data := readertest.ReadFile(f, exportsDir, file)
		f.Add(data[:3000])
	}
	f.Add([]byte("vllm:prompt_tokens_total{a=\"\\x\"} 5 1790000000.5\nvllm:prompt_tokens_total{a=\"\\x\"} NaN 1790000001\n# EOF\n"))
	f.Add([]byte("{\"vllm:num_requests_running\",b=\"2\",} 1 1790000000000 # {x=\"y\"} 2\n"))
	f.Add(readertest.ReadFile(f, exportsDir, "promtool-tsdb-dump-test-1.txt"))
	f.Add([]byte("{Z=\"1\", __name__=\"vllm_num_requests_waiting\", \"a b\"=\"\\x41\"} NaN 1790000000000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte("\n")) + 1
		lr, _ := lineio.NewReader(bytes.NewReader(data), "metrics.prom")
		if _, err := Sniff(lr); err != nil {
			var pe *textpos.ParseError
			if !errors.As(err, &pe) || pe.Pos.Line < 1 || pe.Pos.Line > lines {
				t.Fatalf("Sniff: bad error %v", err)
			}
		}
		for _, form := range []string{text, om} {
			lr, _ := lineio.NewReader(bytes.NewReader(data), "metrics.prom")
			readertest.CheckScrapes(t, NewTimedReader(lr, form, Options{T0: tsT0}).Next, lines)
		}
	})
}
