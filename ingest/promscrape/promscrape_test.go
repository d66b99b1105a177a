package promscrape

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

func TestGolden(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.run, func(t *testing.T) {
			data := fixtureData(t, fx.run)
			lines, info := readAll(t, string(data), fx.t0)
			got := strings.Join(append(lines, formatInfo(info)), "\n") + "\n"
			readertest.Golden(t, fx.run, []byte(got))
		})
	}
}

// TestFixtureFacts checks what the fixtures were built to show, independent
// of the golden files.
func TestFixtureFacts(t *testing.T) {
	for _, fx := range fixtures {
		data := fixtureData(t, fx.run)
		lines, info := readAll(t, string(data), fx.t0)
		wantResets, wantEngine := 0, "sglang"
		if fx.run == "vllm-2026" {
			wantResets, wantEngine = 1, "vllm"
		}
		if info.Scrapes != 60 || info.CounterResets != wantResets || info.Engine != wantEngine ||
			info.KVPoolTokens != 400000 || info.Unrecognised != 0 || info.FirstS < 2 || info.FirstS > 2.1 ||
			info.LastS < 297 || info.LastS > 297.1 {
			t.Errorf("%s: %s", fx.run, formatInfo(info))
		}
		for _, l := range lines {
			if strings.HasPrefix(l, "error") || strings.Contains(l, "=-1 ") {
				t.Errorf("%s: %s", fx.run, l)
			}
		}
	}
}

// TestDeltas checks a tiny input against numbers computed by hand.
func TestDeltas(t *testing.T) {
	in := `# scrape 1002.5
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 3.0
vllm:num_requests_waiting{engine="0",model_name="m"} 1.0
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 1000.0
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 600.0
vllm:prompt_tokens_total{engine="0",model_name="m"} 1000.0
vllm:generation_tokens_total{engine="0",model_name="m"} 50.0
vllm:num_preemptions_total{engine="0",model_name="m"} 0.0
# scrape 1007.5
vllm:num_requests_running{engine="0",model_name="m"} 4.0
vllm:num_requests_waiting{engine="0",model_name="m"} 0.0
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.5
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 3500.0
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 2600.0
vllm:prompt_tokens_total{engine="0",model_name="m"} 3500.0
vllm:generation_tokens_total{engine="0",model_name="m"} 250.0
vllm:num_preemptions_total{engine="0",model_name="m"} 1.0

# scrape 1010.000
vllm:num_requests_running{engine="0",model_name="m"} 2.0
vllm:num_requests_waiting{engine="0",model_name="m"} 0.0
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.125
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 3600.0
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 2650.0
vllm:prompt_tokens_total{engine="0",model_name="m"} 3.6e+03
vllm:generation_tokens_total{engine="0",model_name="m"} 400.0
vllm:num_preemptions_total{engine="0",model_name="m"} 1.0
`
	info := checkRead(t, in,
		"line=1 t=2.500 metrics/scrape engine=0 run=3 wait=1 kv=0.25 dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=12 t=7.500 metrics/scrape engine=0 run=4 wait=0 kv=0.5 dt=5 queries=2500 hits=2000 prompt=2500 gen=200 preempt=1",
		"line=22 t=10.000 metrics/scrape engine=0 run=2 wait=0 kv=0.125 dt=2.5 queries=100 hits=50 prompt=100 gen=150 preempt=0",
	)
	if info.Scrapes != 3 || info.Engine != "vllm" || info.FirstS != 2.5 || info.LastS != 10 || info.KVPoolTokens != 0 {
		t.Errorf("%s", formatInfo(info))
	}
}

func TestCounterReset(t *testing.T) {
	scrape := func(ts string, prompt, gen float64) string {
		return fmt.Sprintf("# scrape %s\nvllm:num_requests_running{engine=\"0\"} 1.0\n"+
			"vllm:prompt_tokens_total{engine=\"0\"} %v\nvllm:generation_tokens_total{engine=\"0\"} %v\n", ts, prompt, gen)
	}
	in := scrape("1001", 100, 10) + scrape("1002", 300, 20) +
		scrape("1003", 50, 25) + // prompt went down: a restart, though gen went up
		scrape("1004", 80, 30)
	info := checkRead(t, in,
		"line=1 t=1.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=5 t=2.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=1 queries=- hits=- prompt=200 gen=10 preempt=-",
		"line=9 t=3.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=1 queries=- hits=- prompt=- gen=- preempt=- RESET",
		"line=13 t=4.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=1 queries=- hits=- prompt=30 gen=5 preempt=-",
	)
	if info.CounterResets != 1 {
		t.Errorf("CounterResets = %d, want 1", info.CounterResets)
	}

	// A series that disappears (an engine of two restarted and has not
	// re-registered yet) is a reset as well.
	in = "# scrape 1001\nvllm:prompt_tokens_total{engine=\"0\"} 10\nvllm:prompt_tokens_total{engine=\"1\"} 10\n" +
		"# scrape 1002\nvllm:prompt_tokens_total{engine=\"0\"} 20\n"
	got, _ := readAll(t, in, t0)
	if len(got) != 2 || !strings.HasSuffix(got[1], "RESET") {
		t.Errorf("vanished series: got %q", got)
	}
}

// TestCounterRecreated: an engine that restarted between two scrapes and
// has since passed its old count shows it only in its counters' _created
// series (prometheus_client writes one beside each counter outside
// multiprocess mode, as vLLM's /metrics has them: a gauge family of its
// own, fixtures/real/vllm-2026/metrics.prom). The scrapes in between
// failed (curl printed nothing while the engine was down), so nothing
// went down: without _created the delta 300-100 would be a silent guess.
func TestCounterRecreated(t *testing.T) {
	scrape := func(ts string, prompt float64, created string) string {
		s := "# scrape " + ts + "\n"
		if created == "" {
			return s // a failed scrape
		}
		return s + "# HELP vllm:prompt_tokens_total Number of prefill tokens processed.\n" +
			"# TYPE vllm:prompt_tokens_total counter\n" +
			fmt.Sprintf("vllm:prompt_tokens_total{engine=\"0\",model_name=\"m\"} %v\n", prompt) +
			"# HELP vllm:prompt_tokens_created Number of prefill tokens processed.\n" +
			"# TYPE vllm:prompt_tokens_created gauge\n" +
			"vllm:prompt_tokens_created{engine=\"0\",model_name=\"m\"} " + created + "\n"
	}
	in := scrape("1001", 100, "1.7931022225249999e+09") + scrape("1002", 150, "1.7931022225249999e+09") +
		scrape("1003", 0, "") + scrape("1004", 0, "") +
		scrape("1005", 300, "1.7931025105e+09") + // restarted: new series, already past 150
		scrape("1006", 400, "1.7931025105e+09")
	info := checkRead(t, in,
		"line=1 t=1.000 metrics/scrape engine=0 run=- wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=8 t=2.000 metrics/scrape engine=0 run=- wait=- kv=- dt=1 queries=- hits=- prompt=50 gen=- preempt=-",
		"line=15 t=3.000 metrics/scrape engine=0 run=- wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=16 t=4.000 metrics/scrape engine=0 run=- wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=17 t=5.000 metrics/scrape engine=0 run=- wait=- kv=- dt=3 queries=- hits=- prompt=- gen=- preempt=- RESET",
		"line=24 t=6.000 metrics/scrape engine=0 run=- wait=- kv=- dt=1 queries=- hits=- prompt=100 gen=- preempt=-",
	)
	if info.CounterResets != 1 || info.Unrecognised != 2 {
		t.Errorf("CounterResets = %d, Unrecognised = %d, want 1 and 2", info.CounterResets, info.Unrecognised)
	}

	// The same export with its timestamps (a Prometheus server's
	// /federate): the restart shows in _created there too.
	fed := "# TYPE vllm:prompt_tokens_total untyped\n" +
		"vllm:prompt_tokens_total{engine=\"0\"} 100 1793102405000\nvllm:prompt_tokens_created{engine=\"0\"} 1.7931022225249999e+09 1793102405000\n" +
		"vllm:prompt_tokens_total{engine=\"0\"} 300 1793102600000\nvllm:prompt_tokens_created{engine=\"0\"} 1.7931025105e+09 1793102600000\n"
	got, _ := readTimed(t, fed, "prometheus-text", t0)
	if len(got) != 2 || !strings.HasSuffix(got[1], "RESET") {
		t.Errorf("federate: got %q, want the second sample a RESET", got)
	}
}

// TestCounterRecreatedPaired: each _created series is paired with its own
// counter: of two vLLM engines only the one whose creation time changed
// resets the sample, and an unchanged one does not, whatever its order in
// the scrape; SGLang's prompt counter, which feeds two fields (Dynamo runs
// SGLang without multiprocess mode, so its counters have _created too), is
// paired once.
func TestCounterRecreatedPaired(t *testing.T) {
	vllm := func(ts string, p0, p1 float64, c0, c1 string) string {
		return "# scrape " + ts + "\n" +
			"vllm:prompt_tokens_created{engine=\"1\"} " + c1 + "\n" +
			fmt.Sprintf("vllm:prompt_tokens_total{engine=\"0\"} %v\nvllm:prompt_tokens_total{engine=\"1\"} %v\n", p0, p1) +
			"vllm:prompt_tokens_created{engine=\"0\"} " + c0 + "\n"
	}
	checkRead(t, vllm("1001", 10, 20, "5.5", "6.5")+vllm("1002", 30, 50, "5.5", "6.5")+vllm("1003", 40, 60, "5.5", "7.5")+vllm("1004", 45, 70, "5.5", "7.5"),
		"line=1 t=1.000 metrics/scrape engine=0 run=- wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=6 t=2.000 metrics/scrape engine=0 run=- wait=- kv=- dt=1 queries=- hits=- prompt=50 gen=- preempt=-",
		"line=11 t=3.000 metrics/scrape engine=0 run=- wait=- kv=- dt=1 queries=- hits=- prompt=- gen=- preempt=- RESET",
		"line=16 t=4.000 metrics/scrape engine=0 run=- wait=- kv=- dt=1 queries=- hits=- prompt=15 gen=- preempt=-",
	)
	sglang := func(ts string, p float64, c string) string {
		return "# scrape " + ts + "\n" + fmt.Sprintf("sglang:prompt_tokens_total{model_name=\"m\"} %v\n", p) +
			"sglang:prompt_tokens_created{model_name=\"m\"} " + c + "\n"
	}
	checkRead(t, sglang("1001", 10, "5.5")+sglang("1002", 30, "5.5")+sglang("1003", 40, "9.5"),
		"line=1 t=1.000 metrics/scrape engine=0 run=- wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=4 t=2.000 metrics/scrape engine=0 run=- wait=- kv=- dt=1 queries=20 hits=- prompt=20 gen=- preempt=-",
		"line=7 t=3.000 metrics/scrape engine=0 run=- wait=- kv=- dt=1 queries=- hits=- prompt=- gen=- preempt=- RESET",
	)
}

// TestHelpRepeat checks the fallback split: a HELP or TYPE seen twice starts
// a new scrape, which has no time without a "# scrape" line, whatever its
// samples carry; deltas then span the scrapes in error.
func TestHelpRepeat(t *testing.T) {
	block := func(run int, ts string) string {
		return fmt.Sprintf("# HELP vllm:num_requests_running Running.\n# TYPE vllm:num_requests_running gauge\n"+
			"vllm:num_requests_running{engine=\"0\"} %d%s\n# HELP vllm:prompt_tokens_total Prompt.\n"+
			"# TYPE vllm:prompt_tokens_total counter\nvllm:prompt_tokens_total{engine=\"0\"} %d%s\n", run, ts, run*100, ts)
	}
	in := "# scrape 1001\n" + block(1, "") + // header: time 1 s
		block(2, " 1003000") + // no header: split at its HELP; no time though its samples have one
		block(3, "") + // no header: no time
		"# scrape 1004\n" + block(4, "")
	info := checkRead(t, in,
		"line=1 t=1.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"error: metrics.prom:8: "+errNoTime.Error(),
		"error: metrics.prom:14: "+errNoTime.Error(),
		"line=20 t=4.000 metrics/scrape engine=0 run=4 wait=- kv=- dt=3 queries=- hits=- prompt=300 gen=- preempt=-",
	)
	if info.Scrapes != 2 {
		t.Errorf("Scrapes = %d, want 2", info.Scrapes)
	}
}

// TestMalformed checks that a bad scrape gives an error at the file's line,
// though expfmt numbers lines from the scrape's start, with the line itself
// for the rejects file, and that reading goes on with the next scrape.
func TestMalformed(t *testing.T) {
	good := func(ts string, p int) string {
		return fmt.Sprintf("# scrape %s\n# HELP vllm:prompt_tokens_total P.\n# TYPE vllm:prompt_tokens_total counter\n"+
			"vllm:prompt_tokens_total{engine=\"0\"} %d\n", ts, p)
	}
	in := good("1001", 10) + // lines 1-4
		"# scrape 1002\n# HELP vllm:prompt_tokens_total P.\n" +
		"vllm:prompt_tokens_total{engine=\"0\" 20\n" + // line 7: no closing brace
		"vllm:prompt_tokens_total{engine=\"0\"} x\n" + // line 8: a second error, not reported
		good("1003", 40)
	checkRead(t, in,
		"line=1 t=1.000 metrics/scrape engine=0 run=- wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		`error: metrics.prom:7:37: unexpected end of label value "0"`,
		"line=9 t=3.000 metrics/scrape engine=0 run=- wait=- kv=- dt=2 queries=- hits=- prompt=30 gen=- preempt=-",
	)

	// A bad "# scrape" line still ends the scrape before it.
	checkRead(t, good("1001", 10)+good("17xx", 20)+good("1003", 40),
		"line=1 t=1.000 metrics/scrape engine=0 run=- wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		`error: metrics.prom:5:10: invalid scrape time "17xx": want Unix seconds`,
		"line=9 t=3.000 metrics/scrape engine=0 run=- wait=- kv=- dt=2 queries=- hits=- prompt=30 gen=- preempt=-",
	)

	lr, _ := lineio.NewReader(strings.NewReader(in), "run/metrics.prom")
	r := NewReader(lr, Options{T0: t0})
	r.Next()
	_, err := r.Next()
	var pe *textpos.ParseError
	if !errors.As(err, &pe) || pe.Pos.Line != 7 || pe.Pos.File != "run/metrics.prom" ||
		string(pe.Raw) != `vllm:prompt_tokens_total{engine="0" 20` {
		t.Errorf("error = %#v", err)
	}

	// So does an error of this package's own, found after expfmt parsed the
	// scrape, on the second series of its family.
	in = good("1001", 10) + "# scrape 1002\nvllm:num_requests_running 1\n\n" +
		"vllm:prompt_tokens_total{engine=\"0\"} 20\nvllm:prompt_tokens_total{engine=\"1\"} -3\n"
	lr, _ = lineio.NewReader(strings.NewReader(in), "metrics.prom")
	r = NewReader(lr, Options{T0: t0})
	r.Next()
	_, err = r.Next()
	if !errors.As(err, &pe) || pe.Pos.Line != 9 || string(pe.Raw) != `vllm:prompt_tokens_total{engine="1"} -3` {
		t.Errorf("error = %#v", err)
	}
}

// TestExpfmtSyntax checks inputs whose reading depends on expfmt: escaped
// label values are resolved (one series across scrapes however written),
// quoted UTF-8 metric names are accepted, and so is a histogram bucket
// without "le", which expfmt drops.
func TestExpfmtSyntax(t *testing.T) {
	in := `# scrape 1001
{"vllm:num_requests_running", engine="0"} 2
sglang:cached_tokens_total{cache_source="total",note="a\"b\\c\nd"} 10
# TYPE h histogram
h_bucket 1
# scrape 1002
vllm:num_requests_running{engine="0"} 3
sglang:cached_tokens_total{note="a\"b\\c\nd", cache_source="total"} 25
`
	checkRead(t, in,
		"line=1 t=1.000 metrics/scrape engine=0 run=2 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=6 t=2.000 metrics/scrape engine=0 run=3 wait=- kv=- dt=1 queries=- hits=15 prompt=- gen=- preempt=-",
	)
}

// TestUnreadFamiliesNotChecked checks the documented cost of filtering:
// lines of families outlast does not read never reach expfmt (Reader) or
// the sample scanner (TimedReader), so their syntax errors are not
// reported; TimedReader still refuses a line that is no sample at all.
func TestUnreadFamiliesNotChecked(t *testing.T) {
	for _, c := range []struct {
		line    string
		timedOK bool
	}{{`1abc 1`, false}, {`abc one`, true}, {`# TYPE abc gaugy`, true}, {`abc{a 1`, true}, {`# HELP 1abc x`, true}} {
		got, _ := readAll(t, "# scrape 1001\n"+c.line+"\nvllm:num_requests_running 3\n", t0)
		if len(got) != 1 || strings.HasPrefix(got[0], "error") || !strings.Contains(got[0], "run=3") {
			t.Errorf("%q with a scrape line: got %q, want the scrape read", c.line, got)
		}
		got, _ = readTimed(t, c.line+"\nvllm:num_requests_running 3 1790000001000\n", schema.MetricsPrometheusText, t0)
		if read := len(got) == 1 && strings.Contains(got[0], "run=3"); read != c.timedOK {
			t.Errorf("%q with timestamps: got %q", c.line, got)
		}
	}
}

// TestLineErrors checks the reason and position for bad lines: expfmt's
// reasons for the syntax, with the column of the fault, and this package's
// own for "# scrape" lines and values it cannot use. The lines are numbered
// from the scrape's first line after its "# scrape" line.
func TestLineErrors(t *testing.T) {
	cases := []struct{ line, want string }{
		{`vllm:num_requests_waiting`, `1:26: expected float as value, got ""`},
		{`vllm:num_requests_waiting 1 2 3`, `1:31: spurious string after timestamp: " 3"`},
		{`vllm:num_requests_waiting 1 2 3  `, `1:31: spurious string after timestamp: " 3  "`},
		{`vllm:num_requests_waiting one`, `1:27: expected float as value, got "one"`},
		{`vllm:num_requests_waiting{a="1"}one`, `1:33: expected float as value, got "one"`},
		{"vllm:num_requests_waiting 	 one", `1:29: expected float as value, got "one"`},
		{`vllm:num_requests_waiting 1_000`, `1:27: expected float as value, got "1_000"`},
		{`vllm:num_requests_waiting 1 1.5`, `1:29: expected integer as timestamp, got "1.5"`},
		{`vllm:num_requests_waiting{a="1",a="2"} 1`, `1:33: duplicate label names for metric "vllm:num_requests_waiting"`},
		{`vllm:num_requests_waiting{a="1", "a"="2"} 1`, `1:34: duplicate label names for metric "vllm:num_requests_waiting"`},
		{`vllm:num_requests_waiting{__name__="x"} 1`, `1:27: label name "__name__" is reserved`},
		{`vllm:num_requests_waiting{a="\x"} 1`, `1:30: invalid escape sequence '\x'`},
		{`vllm:num_requests_waiting{a="\\\x"} 1`, `1:32: invalid escape sequence '\x'`},
		{`vllm:num_requests_waiting{a="1} 1`, `1:29: label value "1} 1" contains unescaped new-line`},
		{`vllm:num_requests_waiting{a="\"1} 1`, `1:29: label value "\"1} 1" contains unescaped new-line`},
		{`vllm:num_requests_waiting{a 1`, `1:29: expected '=' after label name, found '1'`},
		{`vllm:num_requests_waiting{a=1} 1`, `1:29: expected '"' at start of label value, found '1'`},
		{`vllm:num_requests_waiting{9="1"} 1`, `1:27: invalid label name for metric "vllm:num_requests_waiting"`},
		{`vllm:num_requests_waiting{a="1" b="2"} 1`, `1:33: unexpected end of label value "1"`},
		{"vllm:num_requests_waiting{a=\"\xff\"} 1", `1:29: invalid label value "\xff"`},
		{`{"vllm:num_requests_waiting", "x", a="1"} 1`, `1:31: multiple metric names for metric "vllm:num_requests_waiting"`},
		{`{"vllm:num_requests_waiting" x} 1`, `1:30: unexpected end of metric name 'x'`},
		{`{"vllm:num_requests_waiting`, `1:2: label name "vllm:num_requests_waiting" contains unescaped new-line`},
		{`{a="1"} 1`, `1:1: invalid metric name`},
		{`  {} 1`, `1:3: invalid metric name`},
		{`# TYPE vllm:num_requests_waiting gaugy`, `1:34: unknown metric type "gaugy"`},
		{`# TYPE vllm:num_requests_waiting gauge x`, `1:34: unknown metric type "gauge x"`},
		{`# HELP vllm:num_requests_waiting bad \t escape`, `1:38: invalid escape sequence '\t'`},
		{"vllm:num_requests_waiting 1\n# TYPE vllm:num_requests_waiting gauge", `2:3: second TYPE line for metric name "vllm:num_requests_waiting", or TYPE reported after samples`},
		{`# scrape soon`, `1:10: invalid scrape time "soon": want Unix seconds`},
		{`# scrape 1001 extra`, "1:15: unexpected text after scrape time"},
		{"vllm:prompt_tokens_total -1", "1:26: counter vllm:prompt_tokens_total has value -1"},
		{"vllm:kv_cache_usage_perc -Inf", "1:26: gauge vllm:kv_cache_usage_perc has value -Inf"},
		{"vllm:prompt_tokens_total{engine=\"0\"} 1\nvllm:prompt_tokens_total{engine=\"1\"} +Inf",
			"2:38: counter vllm:prompt_tokens_total has value +Inf"},
		// Reported by line, not by the order the metrics are checked in.
		{"vllm:prompt_tokens_total NaN\nvllm:kv_cache_usage_perc NaN", "1:26: counter vllm:prompt_tokens_total has value NaN"},
		{`vllm:cache_config_info{kv_cache_size_tokens="lots"} 1`, `1:1: cache_config_info: invalid kv_cache_size_tokens "lots"`},
	}
	for _, c := range cases {
		got, _ := readAll(t, "# scrape 1001\n"+c.line+"\n", t0)
		// The scrape line is line 1 of the input; shift the expected line.
		var line, rest int
		var reason string
		if n, _ := fmt.Sscanf(c.want, "%d:%d:", &line, &rest); n == 2 {
			reason = fmt.Sprintf("%d:%d:%s", line+1, rest, strings.SplitN(c.want, ":", 3)[2])
		} else {
			fmt.Sscanf(c.want, "%d:", &line)
			reason = fmt.Sprintf("%d:%s", line+1, strings.SplitN(c.want, ":", 2)[1])
		}
		want := "error: metrics.prom:" + reason
		var errs []string
		for _, g := range got {
			if strings.HasPrefix(g, "error") {
				errs = append(errs, g)
			}
		}
		if len(errs) != 1 || errs[0] != want {
			t.Errorf("%q:\n got %q\nwant %q", c.line, got, want)
		}
	}
}

// TestOldNames reads vLLM metric names from before their 2025 renames, and
// a cache_config_info without kv_cache_size_tokens.
func TestOldNames(t *testing.T) {
	in := `# scrape 1001
vllm:gpu_cache_usage_perc{model_name="m"} 0.5
vllm:gpu_prefix_cache_queries_total{model_name="m"} 100.0
vllm:gpu_prefix_cache_hits_total{model_name="m"} 40.0
vllm:cache_config_info{block_size="16",num_gpu_blocks="None"} 1.0
# scrape 1002
vllm:gpu_cache_usage_perc{model_name="m"} 0.75
vllm:gpu_prefix_cache_queries_total{model_name="m"} 300.0
vllm:gpu_prefix_cache_hits_total{model_name="m"} 190.0
vllm:cache_config_info{block_size="16",num_gpu_blocks="27895"} 1.0
`
	info := checkRead(t, in,
		"line=1 t=1.000 metrics/scrape engine=0 run=- wait=- kv=0.5 dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=6 t=2.000 metrics/scrape engine=0 run=- wait=- kv=0.75 dt=1 queries=200 hits=150 prompt=- gen=- preempt=-",
	)
	// num_gpu_blocks was "None" in the first scrape: the pool comes from the second.
	if info.KVPoolTokens != 27895*16 || info.Engine != "vllm" {
		t.Errorf("%s", formatInfo(info))
	}

	// With both names exported (the deprecation window) the new one is used, not the sum.
	in = `# scrape 1001
vllm:kv_cache_usage_perc{engine="0"} 0.25
vllm:gpu_cache_usage_perc{engine="0"} 0.25
vllm:prefix_cache_hits_total{engine="0"} 10
vllm:gpu_prefix_cache_hits_total{engine="0"} 10
# scrape 1002
vllm:kv_cache_usage_perc{engine="0"} 0.5
vllm:gpu_cache_usage_perc{engine="0"} 0.5
vllm:prefix_cache_hits_total{engine="0"} 15
vllm:gpu_prefix_cache_hits_total{engine="0"} 15
`
	got, _ := readAll(t, in, t0)
	if len(got) != 2 || !strings.Contains(got[1], "kv=0.5 ") || !strings.Contains(got[1], "hits=5 ") {
		t.Errorf("both names: got %q", got)
	}
}

// TestDataParallel sums two vLLM engines, averaging their KV usage.
func TestDataParallel(t *testing.T) {
	in := `# scrape 1001
vllm:num_requests_running{engine="0",model_name="m"} 3.0
vllm:num_requests_running{engine="1",model_name="m"} 5.0
vllm:num_requests_waiting{engine="0",model_name="m"} 1.0
vllm:num_requests_waiting{engine="1",model_name="m"} 0.0
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.2
vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.6
vllm:prompt_tokens_total{engine="0",model_name="m"} 100.0
vllm:prompt_tokens_total{engine="1",model_name="m"} 200.0
vllm:cache_config_info{block_size="16",engine="0",kv_cache_size_tokens="400000",num_gpu_blocks="25000"} 1.0
vllm:cache_config_info{block_size="16",engine="1",kv_cache_size_tokens="400000",num_gpu_blocks="25000"} 1.0
# scrape 1006
vllm:num_requests_running{engine="0",model_name="m"} 4.0
vllm:num_requests_running{engine="1",model_name="m"} 4.0
vllm:num_requests_waiting{engine="0",model_name="m"} 2.0
vllm:num_requests_waiting{engine="1",model_name="m"} 2.0
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.5
vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.25
vllm:prompt_tokens_total{engine="0",model_name="m"} 150.0
vllm:prompt_tokens_total{engine="1",model_name="m"} 270.0
`
	info := checkRead(t, in,
		"line=1 t=1.000 metrics/scrape engine=-1 run=8 wait=1 kv=0.4 dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=12 t=6.000 metrics/scrape engine=-1 run=8 wait=4 kv=0.375 dt=5 queries=- hits=- prompt=120 gen=- preempt=-",
	)
	if info.KVPoolTokens != 800000 {
		t.Errorf("KVPoolTokens = %d, want 800000 (two pools)", info.KVPoolTokens)
	}
}

// TestSGLangRanks checks the rank-0 rule and the cache_source tiers.
func TestSGLangRanks(t *testing.T) {
	r := func(tp string) string {
		return `engine_type="unified",model_name="m",moe_ep_rank="0",pp_rank="0",tp_rank="` + tp + `"`
	}
	scrape := func(ts string, running, usage float64, prompt, dev, host, total, retr float64) string {
		return fmt.Sprintf(`# scrape %s
sglang:num_running_reqs{%s} %v
sglang:num_running_reqs{%s} %v
sglang:num_queue_reqs{%s} 2.0
sglang:num_queue_reqs{%s} 2.0
sglang:token_usage{%s} %v
sglang:token_usage{%s} 0.99
sglang:max_total_num_tokens{%s} 400000.0
sglang:max_total_num_tokens{%s} 400000.0
sglang:prompt_tokens_total{engine_type="unified",model_name="m"} %v
sglang:generation_tokens_total{engine_type="unified",model_name="m"} 10.0
sglang:cached_tokens_total{cache_source="device",engine_type="unified",model_name="m"} %v
sglang:cached_tokens_total{cache_source="host",engine_type="unified",model_name="m"} %v
sglang:cached_tokens_total{cache_source="total",engine_type="unified",model_name="m"} %v
sglang:num_retracted_requests_total{%s} %v
sglang:num_retracted_requests_total{%s} %v
`, ts, r("0"), running, r("1"), running+100, r("0"), r("1"), r("0"), usage, r("1"), r("0"), r("1"),
			prompt, dev, host, total, r("0"), retr, r("1"), retr+50)
	}
	// "total" beside the tiers counts the requests that came without a
	// breakdown (SGLang's TokenizerMetricsCollector.observe_one_finished_request:
	// a request's cached tokens go to its tiers or to "total", never both),
	// so it is added to them.
	in := scrape("1001", 3, 0.5, 1000, 500, 100, 5, 1) + scrape("1006", 4, 0.25, 3000, 1700, 150, 20, 3)
	info := checkRead(t, in,
		"line=1 t=1.000 metrics/scrape engine=0 run=3 wait=2 kv=0.5 dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=17 t=6.000 metrics/scrape engine=0 run=4 wait=2 kv=0.25 dt=5 queries=2000 hits=1265 prompt=2000 gen=0 preempt=2",
	)
	if info.Engine != "sglang" || info.KVPoolTokens != 400000 {
		t.Errorf("%s", formatInfo(info))
	}

	// Tiers that appear after "total" (the first request with a breakdown)
	// are new series counting from zero; "total" goes on: no reset.
	in = "# scrape 1001\nsglang:cached_tokens_total{cache_source=\"total\"} 10\nsglang:prompt_tokens_total 20\n" +
		"# scrape 1002\nsglang:cached_tokens_total{cache_source=\"total\"} 10\nsglang:cached_tokens_total{cache_source=\"device\"} 7\nsglang:prompt_tokens_total 30\n" +
		"# scrape 1003\nsglang:cached_tokens_total{cache_source=\"total\"} 12\nsglang:cached_tokens_total{cache_source=\"device\"} 9\nsglang:prompt_tokens_total 40\n"
	checkRead(t, in,
		"line=1 t=1.000 metrics/scrape engine=0 run=- wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=4 t=2.000 metrics/scrape engine=0 run=- wait=- kv=- dt=1 queries=10 hits=7 prompt=10 gen=- preempt=-",
		"line=8 t=3.000 metrics/scrape engine=0 run=- wait=- kv=- dt=1 queries=10 hits=4 prompt=10 gen=- preempt=-",
	)

	// Without tiers the "total" series is used; so is a counter without the label (before 2026-02).
	in = "# scrape 1001\nsglang:cached_tokens_total{cache_source=\"total\"} 10\nsglang:prompt_tokens_total 20\n" +
		"# scrape 1002\nsglang:cached_tokens_total{cache_source=\"total\"} 25\nsglang:prompt_tokens_total 50\n" +
		"# scrape 1003\nsglang:cached_tokens_total 26\nsglang:prompt_tokens_total 60\n" +
		"# scrape 1004\nsglang:cached_tokens_total 30\nsglang:prompt_tokens_total 70\n"
	checkRead(t, in,
		"line=1 t=1.000 metrics/scrape engine=0 run=- wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=4 t=2.000 metrics/scrape engine=0 run=- wait=- kv=- dt=1 queries=30 hits=15 prompt=30 gen=- preempt=-",
		// The series changed identity: the old one vanished, so a reset.
		"line=7 t=3.000 metrics/scrape engine=0 run=- wait=- kv=- dt=1 queries=- hits=- prompt=- gen=- preempt=- RESET",
		"line=10 t=4.000 metrics/scrape engine=0 run=- wait=- kv=- dt=1 queries=10 hits=4 prompt=10 gen=- preempt=-",
	)
}

// TestSGLangPriority: with --enable-priority-scheduling SGLang labels every
// scheduler series priority="" and writes num_running_reqs and
// num_queue_reqs twice over: the total under priority="", and each
// priority's part under priority="<n>" (python/sglang/srt/metrics/
// collector.py, SchedulerMetricsCollector.init_new and
// _log_gauge_queue_count). The parts are left out, not added to the total;
// a Prometheus server drops the empty label, so the total may come
// without it.
func TestSGLangPriority(t *testing.T) {
	l := `engine_type="unified",model_name="m",moe_ep_rank="0",pp_rank="0",`
	in := "# scrape 1001\n" +
		"sglang:num_running_reqs{" + l + `priority="",tp_rank="0"} 5.0` + "\n" +
		"sglang:num_running_reqs{" + l + `priority="0",tp_rank="0"} 3.0` + "\n" +
		"sglang:num_running_reqs{" + l + `priority="10",tp_rank="0"} 2.0` + "\n" +
		"sglang:num_queue_reqs{" + l + `priority="",tp_rank="0"} 7.0` + "\n" +
		"sglang:num_queue_reqs{" + l + `priority="0",tp_rank="0"} 7.0` + "\n" +
		"sglang:num_queue_reqs{" + l + `priority="10",tp_rank="0"} 0.0` + "\n" +
		"sglang:token_usage{" + l + `priority="",tp_rank="0"} 0.5` + "\n" +
		"# scrape 1002\n" + // as a Prometheus server's /federate gives them: no empty label
		`sglang:num_running_reqs{engine_type="unified",model_name="m",tp_rank="0"} 6.0` + "\n" +
		`sglang:num_running_reqs{engine_type="unified",model_name="m",priority="0",tp_rank="0"} 6.0` + "\n" +
		`sglang:num_queue_reqs{engine_type="unified",model_name="m",tp_rank="0"} 1.0` + "\n" +
		`sglang:num_queue_reqs{engine_type="unified",model_name="m",priority="10",tp_rank="0"} 1.0` + "\n"
	checkRead(t, in,
		"line=1 t=1.000 metrics/scrape engine=0 run=5 wait=7 kv=0.5 dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=9 t=2.000 metrics/scrape engine=0 run=6 wait=1 kv=- dt=1 queries=- hits=- prompt=- gen=- preempt=-",
	)
}

// TestEdges covers unrecognised scrapes, time order and a truncated file.
func TestEdges(t *testing.T) {
	in := "# a comment before anything\n\n" +
		"# scrape 1001\nvllm:prompt_tokens_total 10\n" +
		"# scrape 1002\nprocess_open_fds 7\n" + // none of the known metrics
		"# scrape 1003\nvllm:prompt_tokens_total 30\n" +
		"# scrape 1003\nvllm:prompt_tokens_total 40\n" + // same time again
		"# scrape 1004\nvllm:prompt_tokens_total 4" // cut mid-number
	info := checkRead(t, in,
		"line=3 t=1.000 metrics/scrape engine=0 run=- wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=5 t=2.000 metrics/scrape engine=0 run=- wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		// Deltas span the unrecognised scrape.
		"line=7 t=3.000 metrics/scrape engine=0 run=- wait=- kv=- dt=2 queries=- hits=- prompt=20 gen=- preempt=-",
		"error: metrics.prom:9:10: scrape time 3.000 s is not after the previous scrape's 3.000 s",
		"error: metrics.prom:12: last line has no newline: the scrape is incomplete",
	)
	if info.Scrapes != 3 || info.Unrecognised != 1 || info.Engine != "vllm" {
		t.Errorf("%s", formatInfo(info))
	}

	// A cut that leaves a line malformed is reported as the cut, with the
	// line; an earlier error in the scrape comes first.
	cut := "# scrape 1001\nvllm:prompt_tokens_total 10\n# scrape 1002\nvllm:prompt_tok"
	got, _ := readAll(t, cut, t0)
	if len(got) != 2 || got[1] != "error: metrics.prom:4: last line has no newline: the scrape is incomplete" {
		t.Errorf("cut line: got %q", got)
	}
	got, _ = readAll(t, "# scrape 1001\nvllm:prompt_tokens_total x\nvllm:prompt_tok", t0)
	if len(got) != 1 || got[0] != `error: metrics.prom:2:26: expected float as value, got "x"` {
		t.Errorf("error before the cut: got %q", got)
	}

	_, info = readAll(t, "", t0)
	if info.Scrapes != 0 || !math.IsNaN(info.FirstS) || !math.IsNaN(info.LastS) || info.Engine != "" {
		t.Errorf("empty input: %s", formatInfo(info))
	}

	// A header with nothing after it is still a scrape, with nothing known.
	got, info = readAll(t, "# scrape 1001.25\n", t0)
	if len(got) != 1 || !strings.HasPrefix(got[0], "line=1 t=1.250 ") || info.Unrecognised != 1 {
		t.Errorf("empty scrape: %q %s", got, formatInfo(info))
	}
}

func FuzzScrape(f *testing.F) {
	for _, fx := range fixtures {
		data := fixtureData(f, fx.run)
		// The first two scrapes, and a short prefix that mutates faster;
		// whole files make the fuzzer slow.
		parts := bytes.SplitAfterN(data, []byte("# scrape "), 4)
		f.Add(bytes.Join(parts[:3], nil))
		f.Add(data[:2000])
	}
	f.Add([]byte("m{a=\"1\"} 1 1000\nm{a=\"1\"} 2 2000\n# HELP m x\n# HELP m x\n"))
	f.Add([]byte("# scrape 1001\nvllm:prompt_tokens_total 5\n# scrape 1002\nvllm:prompt_tokens_total 3"))
	f.Add([]byte("# scrape 1001\nsglang_num_running_reqs{instance=\"a\"} 2\nsglang_num_running_reqs{instance=\"b\"} NaN\n# scrape 1002\nsglang:num_running_reqs 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lr, err := lineio.NewReader(bytes.NewReader(data), "metrics.prom")
		if err != nil {
			t.Fatal(err)
		}
		r := NewReader(lr, Options{T0: t0})
		defer r.Close()
		readertest.CheckScrapes(t, r.Next, bytes.Count(data, []byte("\n"))+1)
	})
}

// BenchmarkReader measures throughput on the vLLM fixture (the larger,
// histogram-heavy exposition).
func BenchmarkReader(b *testing.B) {
	data := fixtureData(b, "vllm-2026")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		lr, _ := lineio.NewReader(bytes.NewReader(data), "metrics.prom")
		r := NewReader(lr, Options{T0: fixtures[0].t0})
		for _, err := range readertest.All(r.Next) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkExpfmt measures expfmt alone on the same scrapes, split
// beforehand: the ceiling for BenchmarkReader.
func BenchmarkExpfmt(b *testing.B) {
	data := fixtureData(b, "vllm-2026")
	size := len(data)
	var chunks [][]byte
	for len(data) > 0 {
		n := bytes.Index(data[1:], []byte("\n# scrape ")) + 2 // through the newline
		if n == 1 {
			n = len(data)
		}
		chunks, data = append(chunks, data[:n]), data[n:]
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range chunks {
			if _, err := p.TextToMetricFamilies(bytes.NewReader(c)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestBadCacheConfigAfterPoolKnown checks that a bad cache_config_info is
// an error only while the KV pool is unknown, now that scrapes are parsed
// in parallel and only the consumer knows whether it is.
func TestBadCacheConfigAfterPoolKnown(t *testing.T) {
	good := `vllm:cache_config_info{kv_cache_size_tokens="4096"} 1`
	bad := `vllm:cache_config_info{kv_cache_size_tokens="lots"} 1`
	got, _ := readAll(t, "# scrape 1001\n"+good+"\n# scrape 1002\n"+bad+"\n", t0)
	for _, g := range got {
		if strings.HasPrefix(g, "error") {
			t.Errorf("pool known, then a bad one: %q", got)
		}
	}
	got, _ = readAll(t, "# scrape 1001\n"+bad+"\n# scrape 1002\n"+good+"\n", t0)
	if len(got) != 2 || !strings.HasPrefix(got[0], "error: metrics.prom:2:1: cache_config_info") || strings.HasPrefix(got[1], "error") {
		t.Errorf("a bad one first: got %q, want an error at line 2, then the scrape", got)
	}
}

// TestErrorsOutliveTheirScrape reads many scrapes, some with a bad line,
// and checks each error's line only once all are read: the scrapes'
// buffers are reused for later ones (Reader.recycle), and an error must
// keep its own copy of the line it quotes.
func TestErrorsOutliveTheirScrape(t *testing.T) {
	var b strings.Builder
	bad := map[int]string{} // input line -> the bad line
	line := 0
	add := func(s string) { b.WriteString(s + "\n"); line++ }
	for k := range 60 {
		add(fmt.Sprintf("# scrape %d", 1001+k))
		add(fmt.Sprintf(`vllm:num_requests_running{engine="0"} %d`, k))
		if k%7 == 3 {
			s := fmt.Sprintf(`vllm:num_requests_waiting{engine="%s"} not-a-number-%d`, strings.Repeat("x", k), k)
			add(s)
			bad[line] = s
		}
		add(fmt.Sprintf(`vllm:prompt_tokens_total{engine="0"} %d`, 100*k))
	}
	lr, err := lineio.NewReader(strings.NewReader(b.String()), "metrics.prom")
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(lr, Options{T0: t0})
	var errs []*textpos.ParseError
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if err == nil {
			continue
		}
		var pe *textpos.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("Next: %v", err)
		}
		errs = append(errs, pe)
	}
	if len(errs) != len(bad) {
		t.Fatalf("%d errors, want %d", len(errs), len(bad))
	}
	for _, e := range errs {
		if want, ok := bad[e.Pos.Line]; !ok || string(e.Raw) != want {
			t.Errorf("error at line %d quotes %q, want %q", e.Pos.Line, e.Raw, want)
		}
	}
}

// TestCounterDeclaredEmpty reads SGLang scrapes in which the labelled
// counter cached_tokens_total is declared (HELP, TYPE) before its first
// series, as prometheus_client prints a labelled counter without children:
// it stands at 0 there, so the first series counts from 0 and its first
// 500 hits are not lost. A TYPE line that ends the input declares nothing
// (its samples may be lost to a cut).
func TestCounterDeclaredEmpty(t *testing.T) {
	scrape := func(ts string, prompt int, cached string) string {
		s := "# scrape " + ts + "\n" +
			"# HELP sglang:num_running_reqs x\n# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs{tp_rank=\"0\"} 1\n" +
			"# HELP sglang:prompt_tokens_total x\n# TYPE sglang:prompt_tokens_total counter\n" +
			fmt.Sprintf("sglang:prompt_tokens_total{tp_rank=\"0\"} %d\n", prompt) +
			"# HELP sglang:cached_tokens_total x\n# TYPE sglang:cached_tokens_total counter\n"
		if cached != "" {
			s += "sglang:cached_tokens_total{cache_source=\"device\",tp_rank=\"0\"} " + cached + "\n"
		}
		return s
	}
	in := scrape("1001", 0, "") + scrape("1002", 1000, "") + scrape("1003", 2000, "500") + scrape("1004", 3000, "1000")
	checkRead(t, in,
		"line=1 t=1.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=10 t=2.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=1 queries=1000 hits=0 prompt=1000 gen=- preempt=-",
		"line=19 t=3.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=1 queries=1000 hits=500 prompt=1000 gen=- preempt=-",
		"line=29 t=4.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=1 queries=1000 hits=500 prompt=1000 gen=- preempt=-",
	)
	// The input ends with the last scrape's TYPE line (a paste cut after
	// it): that scrape's hits are unknown, not 0.
	in = scrape("1001", 0, "0") + scrape("1002", 1000, "")
	checkRead(t, in,
		"line=1 t=1.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=11 t=2.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=1 queries=1000 hits=- prompt=1000 gen=- preempt=-",
	)
}

// TestCounterGap reads vLLM scrapes in which the prefix-cache counters are
// missing from two scrapes that have other series: their deltas there and
// at the scrape after are unknown, and Info counts the gap.
func TestCounterGap(t *testing.T) {
	scrape := func(ts string, counters string) string {
		s := "# scrape " + ts + "\n# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\"} 1\n"
		if counters != "" {
			s += "# TYPE vllm:prefix_cache_queries_total counter\nvllm:prefix_cache_queries_total{engine=\"0\"} " + counters + "\n"
		}
		return s
	}
	info := checkRead(t, scrape("1001", "0")+scrape("1002", "1000")+scrape("1003", "")+scrape("1004", "")+scrape("1005", "3000")+scrape("1006", "3500"),
		"line=1 t=1.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=6 t=2.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=1 queries=1000 hits=- prompt=- gen=- preempt=-",
		"line=11 t=3.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=1 queries=- hits=- prompt=- gen=- preempt=-",
		"line=14 t=4.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=1 queries=- hits=- prompt=- gen=- preempt=-",
		"line=17 t=5.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=1 queries=- hits=- prompt=- gen=- preempt=-",
		"line=22 t=6.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=1 queries=500 hits=- prompt=- gen=- preempt=-",
	)
	if info.CounterGaps != 1 {
		t.Errorf("CounterGaps = %d, want 1", info.CounterGaps)
	}
}

// TestSameColumns checks that a fault found by expfmt in a scrape and by
// TimedReader's scanner in an export is placed at the same column: the
// same bad line, with a timestamp, is read both ways.
func TestSameColumns(t *testing.T) {
	cases := []struct{ line, col string }{
		{`vllm:num_requests_running one 1790000000000`, "27"},
		{`vllm:num_requests_running{engine="0"}one 1790000000000`, "38"},
		{`vllm:num_requests_running 1 1790000000000.5`, "29"},
		{`vllm:num_requests_running 1 1790000000000 7`, "43"},
		{`vllm:num_requests_running{engine="0} 1 1790000000000`, "34"},
		{`vllm:num_requests_running{engine=0} 1 1790000000000`, "34"},
		{`vllm:num_requests_running{engine="0",engine="1"} 1 1790000000000`, "38"},
		{`vllm:num_requests_running{engine="0" x="1"} 1 1790000000000`, "38"},
		{`vllm:num_requests_running{9="1"} 1 1790000000000`, "27"},
		{`vllm:num_requests_running{a="\q"} 1 1790000000000`, "30"},
		{`vllm:num_requests_running{a="\\\q"} 1 1790000000000`, "32"},
		{"vllm:num_requests_running{a=\"\xff\"} 1 1790000000000", "29"},
		{`{engine="0"} 1 1790000000000`, "1"},
		{`vllm:prompt_tokens_total -1 1790000000000`, "26"},
		{`vllm:prompt_tokens_total{engine="0"} NaN 1790000000000`, "38"},
		{`vllm:kv_cache_usage_perc +Inf 1790000000000`, "26"},
		{`vllm:cache_config_info{kv_cache_size_tokens="lots"} 1 1790000000000`, "1"},
	}
	errCol := func(got []string) string {
		for _, g := range got {
			if rest, ok := strings.CutPrefix(g, "error: metrics.prom:"); ok {
				f := strings.SplitN(rest, ":", 3)
				return f[0] + ":" + f[1]
			}
		}
		return "no error"
	}
	for _, c := range cases {
		scrape, _ := readAll(t, "# scrape 1001\n"+c.line+"\n", t0)
		timed, _ := readTimed(t, c.line+"\n", schema.MetricsPrometheusText, tsT0)
		if got := errCol(scrape); got != "2:"+c.col {
			t.Errorf("%q as a scrape: error at %s, want 2:%s (%q)", c.line, got, c.col, scrape)
		}
		if got := errCol(timed); got != "1:"+c.col {
			t.Errorf("%q as an export: error at %s, want 1:%s (%q)", c.line, got, c.col, timed)
		}
	}
}

// TestValueColumnBlankBeforeLabels checks that a value error on a line
// with a blank before its label set, which expfmt takes, is at the value.
func TestValueColumnBlankBeforeLabels(t *testing.T) {
	got, _ := readAll(t, "# scrape 1001\nvllm:prompt_tokens_total {engine=\"0\"} -1\n", t0)
	want := "error: metrics.prom:2:39: counter vllm:prompt_tokens_total has value -1"
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestNewestShapes reads series in the shapes the newest engines write,
// built from their sources (no real dump with them was found): SGLang's
// tokenizer counters with an is_streaming label and cached tokens split
// by cache_source (python/sglang/srt/observability/metrics_collector.py,
// TokenizerMetricsCollector), and vLLM's families beside the ones outlast
// reads that must not be taken for them (vllm/v1/metrics/loggers.py,
// PrometheusStatLogger: num_requests_waiting_by_reason,
// external_prefix_cache_*, prompt_tokens_by_source, prompt_tokens_cached).
func TestNewestShapes(t *testing.T) {
	sg := func(ts string, pf, pt, gf, gt, dev, host, total float64) string {
		l := `engine_type="unified",model_name="m"`
		return fmt.Sprintf(`# scrape %s
sglang:num_running_reqs{%[2]s,moe_ep_rank="0",pp_rank="0",tp_rank="0"} 3.0
sglang:num_queue_reqs{%[2]s,moe_ep_rank="0",pp_rank="0",tp_rank="0"} 1.0
sglang:prompt_tokens_total{%[2]s,is_streaming="false"} %[3]v
sglang:prompt_tokens_total{%[2]s,is_streaming="true"} %[4]v
sglang:generation_tokens_total{%[2]s,is_streaming="false"} %[5]v
sglang:generation_tokens_total{%[2]s,is_streaming="true"} %[6]v
sglang:cached_tokens_total{cache_source="device",%[2]s} %[7]v
sglang:cached_tokens_total{cache_source="host",%[2]s} %[8]v
sglang:cached_tokens_total{cache_source="total",%[2]s} %[9]v
`, ts, l, pf, pt, gf, gt, dev, host, total)
	}
	checkRead(t, sg("1001", 100, 50, 10, 5, 60, 10, 5)+sg("1006", 300, 150, 30, 25, 160, 30, 15),
		"line=1 t=1.000 metrics/scrape engine=0 run=3 wait=1 kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=11 t=6.000 metrics/scrape engine=0 run=3 wait=1 kv=- dt=5 queries=300 hits=130 prompt=300 gen=40 preempt=-",
	)

	vl := func(ts string, q, h, eq, eh, p, cached float64) string {
		l := `engine="0",model_name="m"`
		return fmt.Sprintf(`# scrape %s
vllm:num_requests_running{%[2]s} 2.0
vllm:num_requests_waiting{%[2]s} 4.0
vllm:num_requests_waiting_by_reason{%[2]s,reason="capacity"} 3.0
vllm:num_requests_waiting_by_reason{%[2]s,reason="deferred"} 1.0
vllm:kv_cache_usage_perc{%[2]s} 0.5
vllm:prefix_cache_queries_total{%[2]s} %[3]v
vllm:prefix_cache_hits_total{%[2]s} %[4]v
vllm:external_prefix_cache_queries_total{%[2]s} %[5]v
vllm:external_prefix_cache_hits_total{%[2]s} %[6]v
vllm:prompt_tokens_total{%[2]s} %[7]v
vllm:prompt_tokens_by_source_total{%[2]s,source="local_cache_hit"} %[4]v
vllm:prompt_tokens_by_source_total{%[2]s,source="local_compute"} 1.0
vllm:prompt_tokens_cached_total{%[2]s} %[8]v
`, ts, l, q, h, eq, eh, p, cached)
	}
	checkRead(t, vl("1001", 100, 40, 60, 20, 100, 60)+vl("1006", 400, 240, 160, 100, 400, 340),
		"line=1 t=1.000 metrics/scrape engine=0 run=2 wait=4 kv=0.5 dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=15 t=6.000 metrics/scrape engine=0 run=2 wait=4 kv=0.5 dt=5 queries=300 hits=200 prompt=300 gen=- preempt=-",
	)
}
