package promscrape

import (
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/readertest"
)

// TestUnderscoreSpelling reads SGLang's and vLLM's metrics with an
// underscore for the colon, as sgl-router's /engine_metrics, the SMG
// sidecar and metric pipelines rename them (promseries), through each
// path: the fast path, expfmt (a HELP text with an escape sends the
// scrape there) and the timestamped forms. Two spellings of one metric
// in one scrape are one series read twice: the colon one is read, never
// the sum, and a note says so.
func TestUnderscoreSpelling(t *testing.T) {
	cases := []struct {
		name, in, form string // form "" for scrapes
		want           []string
		note           string // a substring of the one note expected, "" for none
	}{
		// The probe's m04: SGLang's /v1/loads example in the Prometheus form.
		{name: "fast path", in: "# scrape 1001\n" +
			"# TYPE sglang_num_running_reqs gauge\nsglang_num_running_reqs{dp_rank=\"0\"} 24\nsglang_num_running_reqs{dp_rank=\"1\"} 19\n" +
			"# TYPE sglang_token_usage gauge\nsglang_token_usage{dp_rank=\"0\"} 0.7303\nsglang_token_usage{dp_rank=\"1\"} 0.5551\n",
			want: []string{"line=1 t=1.000 metrics/scrape engine=-1 run=43 wait=- kv=0.6427 dt=- queries=- hits=- prompt=- gen=- preempt=-"}},
		{name: "expfmt", in: "# scrape 1001\n# HELP vllm_num_requests_running Running\\nnow.\nvllm_num_requests_running 2\n" +
			"vllm_prompt_tokens_total 100\n# scrape 1006\nvllm_num_requests_running 3\nvllm_prompt_tokens_total 160\n",
			want: []string{
				"line=1 t=1.000 metrics/scrape engine=0 run=2 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
				"line=5 t=6.000 metrics/scrape engine=0 run=3 wait=- kv=- dt=5 queries=- hits=- prompt=60 gen=- preempt=-"}},
		{name: "both spellings", in: "# scrape 1001\nvllm:num_requests_running 2\nvllm_num_requests_running 2\nvllm_num_requests_waiting 5\n",
			want: []string{"line=1 t=1.000 metrics/scrape engine=0 run=2 wait=5 kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-"},
			note: "metrics.prom: WARNING: vllm:num_requests_running and vllm_num_requests_running were both given in 1 samples"},
		{name: "federate", form: text, in: "vllm_kv_cache_usage_perc{engine=\"0\"} 0.25 1790000000000\n",
			want: []string{"line=1 t=0.000 metrics/scrape engine=0 run=- wait=- kv=0.25 dt=- queries=- hits=- prompt=- gen=- preempt=-"}},
		{name: "openmetrics", form: om, in: "sglang_num_queue_reqs 4 1790000000.000\n# EOF\n",
			want: []string{"line=1 t=0.000 metrics/scrape engine=0 run=- wait=4 kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-"}},
		{name: "not a known name", in: "# scrape 1001\nvllm_num_requests_runnin 2\nsglang_cache_hit_rate 0.5\nvllm.num_requests_running 1\n",
			want: []string{"line=1 t=1.000 metrics/scrape engine=0 run=- wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			var info Info
			if c.form == "" {
				got, info = readAll(t, c.in, t0)
			} else {
				got, info = readTimed(t, c.in, c.form, tsT0)
			}
			check(t, got, c.want)
			readertest.CheckNote(t, info.Notes, c.note)
		})
	}
}

// TestSMGUnderscoreDump reads the real SMG fragment of sglang_ names
// (fixtures/real-lines/metrics): none of its four families is one outlast
// reads, in either spelling, so its scrapes hold nothing, and its
// worker_addr labels are read over.
func TestSMGUnderscoreDump(t *testing.T) {
	raw := readertest.ReadFile(t, realDumps, "sglang-2026-smg813-underscore.prom")
	got, info := readAll(t, "# scrape 1001\n"+string(raw), t0)
	check(t, got, []string{"line=1 t=1.000 metrics/scrape engine=0 run=- wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-"})
	if info.Unrecognised != 1 || info.Engine != "" {
		t.Errorf("%s", formatInfo(info))
	}
}

// TestServersSummed checks that series summed as replicas which differ in
// their scrape target (instance, job) are noted with the targets, and
// that the documented sums over vLLM's engine and SGLang's dp_rank alone
// are not.
func TestServersSummed(t *testing.T) {
	cases := []struct {
		name, in string
		want     string
		note     string
	}{
		{"two instances", `vllm:num_requests_running{engine="0",instance="vllm-0:8000",job="vllm"} 2 1790000000000
vllm:num_requests_running{engine="0",instance="vllm-1:8000",job="vllm"} 3 1790000000000
`, "line=1 t=0.000 metrics/scrape engine=0 run=5 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
			`metrics.prom: WARNING: vllm:num_requests_running: in 1 of 1 samples, series of more than one scrape target were summed as if they were one engine's replicas: {instance="vllm-0:8000", job="vllm"}, {instance="vllm-1:8000", job="vllm"}`},
		{"two jobs, counters", `vllm:prompt_tokens_total{job="a"} 1 1790000000000
vllm:prompt_tokens_total{job="b"} 1 1790000000000
vllm:prompt_tokens_total{job="a"} 2 1790000005000
vllm:prompt_tokens_total{job="b"} 4 1790000005000
`, "line=3 t=5.000 metrics/scrape engine=0 run=- wait=- kv=- dt=5 queries=- hits=- prompt=4 gen=- preempt=-",
			`vllm:prompt_tokens_total: in 2 of 2 samples, series of more than one scrape target were summed as if they were one engine's replicas: {instance="", job="a"}, {instance="", job="b"}`},
		{"one target without labels", `sglang:num_running_reqs 1 1790000000000
sglang:num_running_reqs{instance="x"} 1 1790000000000
`, "line=1 t=0.000 metrics/scrape engine=0 run=2 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
			`{instance="x", job=""}, {no instance or job label}`},
		{"engines of one target", `vllm:num_requests_running{engine="0",instance="vllm-0:8000",job="vllm"} 2 1790000000000
vllm:num_requests_running{engine="1",instance="vllm-0:8000",job="vllm"} 3 1790000000000
`, "line=1 t=0.000 metrics/scrape engine=-1 run=5 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-", ""},
		{"dp ranks without target labels", `sglang:num_running_reqs{dp_rank="0",tp_rank="0"} 2 1790000000000
sglang:num_running_reqs{dp_rank="1",tp_rank="1"} 3 1790000000000
`, "line=1 t=0.000 metrics/scrape engine=-1 run=5 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, info := readTimed(t, c.in, text, tsT0)
			if got[len(got)-1] != c.want {
				t.Errorf("last sample %s\nwant        %s", got[len(got)-1], c.want)
			}
			readertest.CheckNote(t, info.Notes, c.note)
		})
	}
}

// TestTsdbDump reads the lines of promtool tsdb dump, which name the
// metric in the label set: prometheus' own test dump (its metrics are
// none that outlast reads), that form with vLLM's series, its staleness
// markers, and its errors.
func TestTsdbDump(t *testing.T) {
	raw := string(readertest.ReadFile(t, exportsDir, "promtool-tsdb-dump-test-1.txt"))
	vllm := `{__name__="vllm:num_requests_running", engine="0", instance="vllm-0:8000", job="vllm"} 0 1793102402028
{__name__="vllm:num_requests_running", engine="0", instance="vllm-0:8000", job="vllm"} 1 1793102407009
`
	cases := []struct {
		name, in, form string
		want           []string
	}{
		// Its timestamps, 0 to 240000 ms, would be refused as not in
		// milliseconds, but none of its series is one outlast reads.
		{"prometheus testdata", raw, text, nil},
		{"vllm", vllm, text, []string{
			"line=1 t=3102402.028 metrics/scrape engine=0 run=0 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
			"line=2 t=3102407.009 metrics/scrape engine=0 run=1 wait=- kv=- dt=4.981 queries=- hits=- prompt=- gen=- preempt=-"}},
		{"stale", `{__name__="vllm:num_requests_waiting"} 1 1790000000000
{__name__="vllm:num_requests_waiting"} NaN 1790000005000
{__name__="vllm:num_requests_running"} 2 1790000010000
`, text, []string{
			"line=1 t=0.000 metrics/scrape engine=0 run=- wait=1 kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
			"line=3 t=10.000 metrics/scrape engine=0 run=2 wait=- kv=- dt=10 queries=- hits=- prompt=- gen=- preempt=-"}},
		{"label before the name, quoted and escaped", `{Zone="a", __name__="vllm:num_requests_waiting", "a b"="\x41"} 7 1790000000000
`, text, []string{"line=1 t=0.000 metrics/scrape engine=0 run=- wait=7 kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-"}},
		{"name twice", `{__name__="vllm:num_requests_waiting", __name__="x"} 7 1790000000000
`, text, []string{`error: metrics.prom:1:40: label "__name__" given twice`}},
		{"no name", `{instance="a"} 7 1790000000000
`, text, []string{`error: metrics.prom:1:1: invalid metric name: want a name, {"quoted name", ...}, or {__name__="name", ...} as promtool tsdb dump writes`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := readTimed(t, c.in, c.form, tsT0)
			check(t, got, c.want)
		})
	}
	// A dump's timestamps are milliseconds whatever their number of
	// digits.
	for _, in := range []string{raw, vllm} {
		if form, err := sniffString(in); err != nil || form != text {
			t.Errorf("Sniff: %q, %v; want %q", form, err, text)
		}
	}
}

// TestNaNGauge checks that a NaN gauge is an unknown figure in every
// form but where it is a staleness marker: its field is null, and so is
// the sum or mean it would enter.
func TestNaNGauge(t *testing.T) {
	check(t, must(readAll(t, "# scrape 1001\nvllm:kv_cache_usage_perc{engine=\"0\"} NaN\nvllm:kv_cache_usage_perc{engine=\"1\"} 0.5\n"+
		"vllm:num_requests_running{engine=\"0\"} 1\nvllm:num_requests_running{engine=\"1\"} 2\n", t0)),
		[]string{"line=1 t=1.000 metrics/scrape engine=-1 run=3 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-"})
}

func must(got []string, _ Info) []string { return got }

// sniffString runs Sniff over in.
func sniffString(in string) (string, error) {
	lr, err := lineio.NewReader(strings.NewReader(in), "metrics.prom")
	if err != nil {
		return "", err
	}
	return Sniff(lr)
}
