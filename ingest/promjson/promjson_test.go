package promjson

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/internal/cputime"
)

// exports holds the query_range answers made from the vllm-2026 scrapes.
var exports = filepath.Join(readertest.FixturesDir, "prom-exports")

// t0 is the T0 of the small inputs: Unix second 1,790,000,000.
var t0 = time.Unix(1790000000, 0).UTC()

// read reads the named documents through one Reader, returning one text
// line per sample or error, and the final Info.
func read(t testing.TB, docs ...string) ([]string, Info) {
	t.Helper()
	var inputs []*lineio.Reader
	for i, d := range docs {
		name := "query_range.json"
		if len(docs) > 1 {
			name = fmt.Sprintf("q%d.json", i+1)
		}
		lr, err := lineio.NewReader(strings.NewReader(d), name)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, lr)
	}
	return readInputs(t, inputs, t0)
}

func readInputs(t testing.TB, inputs []*lineio.Reader, start time.Time) ([]string, Info) {
	t.Helper()
	r := NewReader(inputs, Options{T0: start})
	defer r.Close()
	return readertest.Scrapes(t, r.Next), r.Info()
}

func check(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// doc is a query_range answer of the given series.
func doc(series ...string) string {
	return `{"status":"success","data":{"resultType":"matrix","result":[` + strings.Join(series, ",") + `]}}`
}

// TestSmall checks a small answer against values worked out by hand: two
// series in one matrix, times with and without milliseconds.
func TestSmall(t *testing.T) {
	got, info := read(t, doc(
		`{"metric":{"__name__":"vllm:num_requests_running","engine":"0","job":"vllm"},"values":[[1790000005,"2"],[1790000010.05,"3"]]}`,
		`{"metric":{"__name__":"vllm:prompt_tokens_total","engine":"0","job":"vllm"},"values":[[1790000005,"100"],[1790000010.05,"1.5e+02"]]}`,
		`{"metric":{"__name__":"process_open_fds","job":"vllm"},"values":[[1790000005,"7"],[1,"x"]]}`,
	))
	want := []string{
		"line=1 t=5.000 metrics/scrape engine=0 run=2 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=1 t=10.050 metrics/scrape engine=0 run=3 wait=- kv=- dt=5.05 queries=- hits=- prompt=50 gen=- preempt=-",
	}
	check(t, got, want)
	if info.Engine != "vllm" || info.Scrapes != 2 {
		t.Errorf("%+v", info)
	}
}

// TestKeyOrder reads members in an order Prometheus does not write:
// values before metric, data before status, unknown members between.
func TestKeyOrder(t *testing.T) {
	in := "{\n  \"data\": {\"result\": [{\"values\": [[1790000005, \"4\"]], \"extra\": [1, {\"a\": null}], \"metric\": {\"engine\": \"0\", \"__name__\": \"vllm:num_requests_waiting\"}}],\n  \"resultType\": \"matrix\"},\n  \"stats\": {\"timings\": {}},\n  \"status\": \"success\"\n}\n"
	got, _ := read(t, in)
	check(t, got, []string{"line=2 t=5.000 metrics/scrape engine=0 run=- wait=4 kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-"})
}

// TestNotes passes Prometheus' warnings and infos on.
func TestNotes(t *testing.T) {
	in := `{"status":"success","warnings":["query hit the 11000 points limit"],"infos":["PromQL info: metric might not be a counter"],"data":{"resultType":"matrix","result":[]}}`
	got, info := read(t, in)
	if len(got) != 0 || len(info.Notes) != 2 ||
		info.Notes[0] != "query_range.json: Prometheus warning: query hit the 11000 points limit" ||
		info.Notes[1] != "query_range.json: Prometheus info: PromQL info: metric might not be a counter" {
		t.Errorf("%q %q", got, info.Notes)
	}
}

// TestFiles reads one query per file: the series meet at their times; a
// series given again with the same points is kept once, with other values
// it is an error that leaves out its time.
func TestFiles(t *testing.T) {
	run := `{"metric":{"__name__":"vllm:num_requests_running","engine":"0"},"values":[[1790000005,"1"],[1790000010,"2"]]}`
	wait := `{"metric":{"__name__":"vllm:num_requests_waiting","engine":"0"},"values":[[1790000005,"3"],[1790000010,"4"]]}`
	got, info := read(t, doc(run), doc(wait), doc(run, wait))
	want := []string{
		"line=1 t=5.000 metrics/scrape engine=0 run=1 wait=3 kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=1 t=10.000 metrics/scrape engine=0 run=2 wait=4 kv=- dt=5 queries=- hits=- prompt=- gen=- preempt=-",
	}
	check(t, got, want)
	if info.Repeats != 4 {
		t.Errorf("Repeats = %d, want 4", info.Repeats)
	}
	other := strings.Replace(wait, `"4"`, `"5"`, 1)
	got, _ = read(t, doc(run), doc(wait), doc(other))
	want = []string{
		`error: q3.json:1:164: vllm:num_requests_waiting has two values at one time: 4 (q2.json:1) and 5`,
		"line=1 t=5.000 metrics/scrape engine=0 run=1 wait=3 kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
	}
	check(t, got, want)
}

// TestErrors checks the documented bad inputs, each a positioned error at
// the offending value: truncated JSON, wrong types, negative counts, an
// error answer, another result type, an expression's result.
func TestErrors(t *testing.T) {
	ok := `{"metric":{"__name__":"vllm:num_requests_running"},"values":[[1790000005,"1"]]}`
	cases := []struct{ in, want string }{
		{doc(ok)[:60], `query_range.json:1:61: unexpected end of input, want '{': the file is cut short`},
		{doc(ok)[:85], `query_range.json:1:86: unexpected end of input, want the end of the string: the file is cut short`},
		{"", `query_range.json:1:1: unexpected end of input, want '{': the file is cut short`},
		{`{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:6: parse error"}`,
			`query_range.json:1:11: Prometheus answered status "error": bad_data: invalid parameter "query": 1:6: parse error`},
		{`{"data":{"resultType":"matrix","result":[]}}`, `query_range.json:1:1: no "status": not an answer of the Prometheus HTTP API`},
		{`{"status":"success","data":{"resultType":"vector","result":[]}}`,
			`query_range.json:1:42: resultType "vector": want "matrix", the answer of /api/v1/query_range (or of /api/v1/query with a range selector such as [1h])`},
		{`{"status":"success","data":{"result":[]}}`, `query_range.json:1:28: data has no "resultType"`},
		// An instant query's answers (docs/querying/api.md "Expression
		// query result formats"): refused by their resultType, not by
		// the shape of their result.
		{`{"status":"success","data":{"resultType":"scalar","result":[1790000005.781,"1"]}}`,
			`query_range.json:1:42: resultType "scalar": want "matrix", the answer of /api/v1/query_range (or of /api/v1/query with a range selector such as [1h])`},
		{`{"status":"success","data":{"resultType":"string","result":[1790000005.781,"vllm"]}}`,
			`query_range.json:1:42: resultType "string": want "matrix", the answer of /api/v1/query_range (or of /api/v1/query with a range selector such as [1h])`},
		{`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"vllm:num_requests_running","engine":"0"},"value":[1790000005.781,"1"]}]}}`,
			`query_range.json:1:42: resultType "vector": want "matrix", the answer of /api/v1/query_range (or of /api/v1/query with a range selector such as [1h])`},
		// Grafana's JSON of a panel's data: its data source API's answer,
		// the inspector's Panel data, one DataFrame JSON frame.
		{`{"results":{"A":{"status":200,"frames":[{"schema":{"refId":"A","fields":[{"name":"Time","type":"time"},{"name":"Value","type":"number","labels":{"__name__":"vllm:num_requests_running","engine":"0"}}]},"data":{"values":[[1790000005000],[1]]}}]}}}`,
			`query_range.json:1:1: ` + grafanaReason},
		{"{\n  \"state\": \"Done\",\n  \"series\": [],\n  \"timeRange\": {\"from\": \"2026-10-27T12:00:00.000Z\"}\n}\n",
			`query_range.json:1:1: ` + grafanaReason},
		{`{"schema":{"refId":"A","fields":[]},"data":{"values":[[1790000005000],[1]]}}`,
			`query_range.json:1:1: ` + grafanaReason},
		{doc(`{"metric":{"engine":"0"},"values":[[1790000005,"1"]]}`),
			`query_range.json:1:71: series has no __name__: export the series itself (query=vllm:num_requests_running), not an expression such as rate() or sum()`},
		{doc(`{"values":[[1790000005,"1"]]}`), `query_range.json:1:61: series has no "metric"`},
		{doc(`{"metric":{"__name__":"vllm:num_requests_running"},"values":[[1790000005,1]]}`),
			`query_range.json:1:134: value: want a string such as "0.5", got a number (1)`},
		{doc(`{"metric":{"__name__":"vllm:num_requests_running"},"values":[["1790000005","1"]]}`),
			`query_range.json:1:123: time: want a number of Unix seconds, got a string ("1790000005")`},
		{doc(`{"metric":{"__name__":"vllm:num_requests_running"},"values":[[-1,"1"]]}`),
			`query_range.json:1:123: time: want a number of Unix seconds, got a number (-1)`},
		{doc(`{"metric":{"__name__":"vllm:num_requests_running"},"values":[[1790000005,"x"]]}`),
			`query_range.json:1:134: value "x": want a number`},
		{doc(`{"metric":{"__name__":"vllm:num_requests_running"},"values":[[1790000005,"1",3]]}`),
			`query_range.json:1:137: point has more than two members: want [<unix seconds>, "<value>"]`},
		{doc(`{"metric":{"__name__":"vllm:prompt_tokens_total"},"values":[[1790000005,"-3"]]}`),
			`query_range.json:1:133: counter vllm:prompt_tokens_total has value -3`},
		{doc(`{"metric":{"__name__":"vllm:kv_cache_usage_perc"},"values":[[1790000005,"+Inf"]]}`),
			`query_range.json:1:133: gauge vllm:kv_cache_usage_perc has value +Inf`},
		{doc(`{"metric":{"__name__":"vllm:prompt_tokens_total"},"values":[[1790000005,"NaN"]]}`),
			`query_range.json:1:133: counter vllm:prompt_tokens_total has value NaN`},
		{doc(`{"metric":{"__name__":"vllm:num_requests_running"},"histograms":[[1790000005,{"count":"1"}]]}`),
			`query_range.json:1:125: vllm:num_requests_running has native histogram points: want float values`},
		{doc(`{"metric":{"__name__":"vllm:num_requests_running","a":1},"values":[]}`), `query_range.json:1:115: want a string, got a number`},
		{doc(`{"metric":{"__name__":"vllm:num_requests_running"},"values":[[1790000005.,"1"]]}`),
			`query_range.json:1:134: unexpected ',', want a digit after the decimal point`},
		{doc(`{"metric":{"__name__":"vllm:num_requests_running"},"values":[[1.79e+,"1"]]}`),
			`query_range.json:1:129: unexpected ',', want a digit in the exponent`},
		{doc(`{"metric":{"__name__":"vllm:num_requests_running"},"values":[[1.79e+9,"1"],[01,"2"]]}`),
			`query_range.json:1:138: unexpected '1', want ','`},
		{doc(ok) + "x", `query_range.json:1:143: text after the JSON document`},
		{doc(ok) + "\n\n", ``},
		{"{\"status\":\"success\",\n\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{\"__name__\":\"vllm:num_requests_running\",\"a\":\"\x01\"},\"values\":[]}]}}",
			`query_range.json:2:96: control character '\x01' in a string`},
		{doc(`{"metric":{"__name__":"vllm:num_requests_running","a":"` + "\xff" + `"},"values":[]}`), `query_range.json:1:115: string is not valid UTF-8`},
		{doc(`{"metric":{"__name__":"vllm:num_requests_running","a":"\q"},"values":[]}`), `query_range.json:1:116: invalid escape \q`},
		{doc(`{"metric":{"__name__":"vllm:num_requests_running","a":"\u00e9\ud83d\ude00"},"values":[[1790000005,"1"]]}`), ``},
		{strings.Repeat("[", 600), `query_range.json:1:2: unexpected '[', want '{'`},
		// /api/v1/series (docs/querying/api.md "Finding series by label matchers").
		{`{"status":"success","data":[{"__name__":"vllm:num_requests_running","engine":"0","job":"vllm"}]}`,
			`query_range.json:1:28: data is a list, as /api/v1/series, /api/v1/labels or /api/v1/query_exemplars answer: not a query's result; export the series with /api/v1/query_range`},
		// promtool query instant -o json: a bare vector.
		{`[{"metric":{"__name__":"vllm:num_requests_running","engine":"0"},"value":[1790000005.781,"1"]}]` + "\n",
			`query_range.json:1:74: an instant vector's sample ("value", as /api/v1/query or promtool query instant give): want a range query's series ("values"), the answer of /api/v1/query_range or promtool query range`},
		// Grafana's Inspect > JSON > DataFrame JSON, pretty-printed.
		{"[\n  {\n    \"schema\": {\"refId\": \"A\", \"fields\": []},\n    \"data\": {\"values\": [[1790000005000], [1]]}\n  }\n]\n",
			`query_range.json:2:3: ` + grafanaReason},
		{`[{"metric":{"__name__":"vllm:num_requests_running"},"values":[[1790000005,"1"]]}] x`, `query_range.json:1:83: text after the JSON document`},
		{`{"status":"success","x":` + strings.Repeat("[", 600), `query_range.json:1:538: values nested deeper than 512`},
	}
	for _, c := range cases {
		got, _ := read(t, c.in)
		var errs []string
		for _, g := range got {
			if strings.HasPrefix(g, "error: ") {
				errs = append(errs, strings.TrimPrefix(g, "error: "))
			}
		}
		if c.want == "" && len(errs) > 0 || c.want != "" && (len(errs) != 1 || errs[0] != c.want) {
			t.Errorf("%.120q:\n got %q\nwant %q", c.in, errs, c.want)
		}
	}
}

// TestPoison checks that a bad point leaves out its time in every series,
// so that the deltas span it.
func TestPoison(t *testing.T) {
	got, _ := read(t, doc(
		`{"metric":{"__name__":"vllm:prompt_tokens_total"},"values":[[1790000005,"10"],[1790000010,"bad"],[1790000015,"30"]]}`,
		`{"metric":{"__name__":"vllm:num_requests_running"},"values":[[1790000005,"1"],[1790000010,"2"],[1790000015,"3"]]}`))
	want := []string{
		`error: query_range.json:1:151: value "bad": want a number`,
		"line=1 t=5.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=1 t=15.000 metrics/scrape engine=0 run=3 wait=- kv=- dt=10 queries=- hits=- prompt=20 gen=- preempt=-",
	}
	check(t, got, want)
}

// TestLooks tells a JSON document from exposition text.
func TestLooks(t *testing.T) {
	for in, want := range map[string]bool{
		`{"status":"success"}`:                  true,
		"\ufeff\n  { \"data\" : {}}":            true,
		`{}`:                                    true,
		`{"vllm:num_requests_running"} 1 1700`:  false,
		`{"vllm:num_requests_running",a="1"} 1`: false,
		`vllm:num_requests_running 1`:           false,
		`# scrape 1790000000`:                   false,
		``:                                      false,
		`[1,2]`:                                 false,
	} {
		if got := Looks([]byte(in)); got != want {
			t.Errorf("Looks(%q) = %v", in, got)
		}
	}
}

// scrapesAtSteps works out, independently of outlast's readers, what a
// query_range over the vllm-2026 scrapes must give: it parses each scrape
// with expfmt, then at each 5 s step from 12:00:05 to 12:05:00 takes every
// series' last scrape at or before the step, and the deltas between steps.
func scrapesAtSteps(t *testing.T) []string {
	data := readertest.FixtureFile(t, "vllm-2026", "metrics.prom")
	type scrape struct {
		at   float64
		vals map[string]float64
	}
	var scrapes []scrape
	p := expfmt.NewTextParser(model.UTF8Validation)
	for _, part := range bytes.Split(data, []byte("# scrape "))[1:] {
		nl := bytes.IndexByte(part, '\n')
		var at float64
		fmt.Sscan(string(part[:nl]), &at)
		fams, err := p.TextToMetricFamilies(bytes.NewReader(part[nl+1:]))
		if err != nil {
			t.Fatal(err)
		}
		vals := map[string]float64{}
		for name, f := range fams {
			for _, m := range f.GetMetric() {
				switch {
				case m.Gauge != nil:
					vals[name] += m.Gauge.GetValue()
				case m.Counter != nil:
					vals[name] += m.Counter.GetValue()
				}
			}
		}
		scrapes = append(scrapes, scrape{at, vals})
	}
	g := func(x float64) string { return fmt.Sprint(x) }
	var out []string
	var prev map[string]float64
	start := float64(readertest.T0.Unix())
	for step := 5.0; step <= 300; step += 5 {
		var cur map[string]float64
		for _, s := range scrapes {
			if s.at <= start+step {
				cur = s.vals
			}
		}
		line := fmt.Sprintf("t=%.3f metrics/scrape engine=0 run=%s wait=%s kv=%s", step,
			g(cur["vllm:num_requests_running"]), g(cur["vllm:num_requests_waiting"]), g(cur["vllm:kv_cache_usage_perc"]))
		counters := []string{"vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total", "vllm:prompt_tokens_total",
			"vllm:generation_tokens_total", "vllm:num_preemptions_total"}
		switch {
		case prev == nil:
			line += " dt=- queries=- hits=- prompt=- gen=- preempt=-"
		default:
			reset := false
			for _, c := range counters {
				reset = reset || cur[c] < prev[c]
			}
			line += " dt=5"
			for i, c := range counters {
				d := "-"
				if !reset {
					d = g(cur[c] - prev[c])
				}
				line += " " + []string{"queries", "hits", "prompt", "gen", "preempt"}[i] + "=" + d
			}
			if reset {
				line += " RESET"
			}
		}
		out = append(out, line)
		prev = cur
	}
	return out
}

// TestExports reads the query_range answers made from the vllm-2026
// scrapes, one file per query, all in one, and all in one as promtool
// query -o json range prints it, against scrapesAtSteps.
func TestExports(t *testing.T) {
	want := scrapesAtSteps(t)
	files, _ := filepath.Glob(filepath.Join(exports, "query_range", "*.json"))
	for _, set := range [][]string{files, {filepath.Join(exports, "query_range_all.json")}, {filepath.Join(exports, "promtool-query-range.json")}} {
		var inputs []*lineio.Reader
		for _, f := range set {
			lr, err := lineio.Open(f, filepath.Base(f))
			if err != nil {
				t.Fatal(err)
			}
			defer lr.Close()
			inputs = append(inputs, lr)
		}
		got, info := readInputs(t, inputs, readertest.T0)
		for i := range got {
			got[i] = got[i][strings.Index(got[i], "t="):]
		}
		check(t, got, want)
		if info.KVPoolTokens != 400000 || info.CounterResets != 1 || info.Scrapes != 60 {
			t.Errorf("%+v", info)
		}
		if len(set) > 1 {
			readertest.Golden(t, "query_range", []byte(strings.Join(got, "\n")+"\n"))
		}
	}
}

// FuzzQueryRange checks that no input makes the reader fail other than
// with positioned errors, or give samples that break its rules.
func FuzzQueryRange(f *testing.F) {
	data := readertest.ReadFile(f, exports, "query_range_all.json")
	f.Add(data[:3000])
	f.Add([]byte(doc(`{"metric":{"__name__":"vllm:prompt_tokens_total","a":"\u00e9"},"values":[[1790000005,"10"],[1790000010.5,"5"]]}`)))
	f.Add([]byte(`{"status":"error","errorType":"x","error":"y"}`))
	f.Add(readertest.ReadFile(f, exports, "vm-readme-export-jsonl.json"))
	f.Add(readertest.ReadFile(f, exports, "vm-guide-query-vector-isPartial-stats.json"))
	f.Add([]byte(`{"isPartial":true,"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"sglang_token_usage","instance":"a"},"values":[[1790000005,"NaN"]]},{"metric":{"__name__":"sglang:token_usage","instance":"b"},"values":[[1790000005,"0.5"]]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lr, err := lineio.NewReader(bytes.NewReader(data), "q.json")
		if err != nil {
			t.Fatal(err)
		}
		r := NewReader([]*lineio.Reader{lr}, Options{T0: t0})
		readertest.CheckScrapes(t, r.Next, bytes.Count(data, []byte("\n"))+1)
	})
}

// BenchmarkReader measures throughput on a 6-hour export of the nine vLLM
// series at 5 s steps, written as Prometheus writes it; cpu-ms/op is the
// process's CPU time (user and system) per answer read.
func BenchmarkReader(b *testing.B) {
	data := []byte(bigExport(6 * 3600 / 5))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer cputime.Report(b, "cpu-ms/op", 1)()
	for b.Loop() {
		lr, _ := lineio.NewReader(bytes.NewReader(data), "q.json")
		r := NewReader([]*lineio.Reader{lr}, Options{T0: t0})
		for _, err := range readertest.All(r.Next) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// bigExport is a query_range answer of the nine vLLM series outlast reads
// with n points each.
func bigExport(n int) string {
	names := []string{"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
		"vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total", "vllm:prompt_tokens_total",
		"vllm:generation_tokens_total", "vllm:num_preemptions_total", "vllm:cache_config_info"}
	var sb strings.Builder
	sb.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
	for k, name := range names {
		if k > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"metric":{"__name__":"%s","engine":"0","instance":"vllm-0:8000","job":"vllm","model_name":"Qwen/Qwen3-8B"},"values":[`, name)
		for i := range n {
			if i > 0 {
				sb.WriteByte(',')
			}
			v := float64(i * (k + 1) * 37)
			if k == 2 {
				v = float64(i%1000) / 1000
			}
			if name == "vllm:cache_config_info" {
				v = 1
			}
			fmt.Fprintf(&sb, `[%d.%03d,"%s"]`, 1790000000+5*i, (i*7)%1000, fmt.Sprint(v))
		}
		sb.WriteString("]}")
	}
	sb.WriteString("]}}")
	return sb.String()
}

// TestVictoriaMetrics reads what VictoriaMetrics answers beside
// Prometheus' format: "isPartial" (a loud note when true; the real answer
// of its HA guide, "isPartial": false and a vector of count(), is refused
// for its first series, which has no name), and /api/v1/export JSON
// lines, refused as that form.
func TestVictoriaMetrics(t *testing.T) {
	partial := `WARNING: VictoriaMetrics answered "isPartial": true`
	cases := []struct {
		name, in string
		want     []string
		note     string // a substring of the one note expected, "" for none
	}{
		{"partial", `{"status":"success","isPartial":true,"data":{"resultType":"matrix","result":[{"metric":{"__name__":"vllm:num_requests_running"},"values":[[1790000005,"1"]]}]}}`,
			[]string{"line=1 t=5.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-"},
			"query_range.json: " + partial},
		{"partial after data", `{"status":"success","data":{"resultType":"matrix","result":[]},"isPartial":true}`, nil, partial},
		{"whole", `{"status":"success","isPartial":false,"data":{"resultType":"matrix","result":[]}}`, nil, ""},
		{"not a boolean", `{"status":"success","isPartial":"yes","data":{"resultType":"matrix","result":[]}}`,
			[]string{`error: query_range.json:1:33: isPartial: want true or false, got a string ("yes")`}, ""},
		{"guide", string(readertest.ReadFile(t, exports, "vm-guide-query-vector-isPartial-stats.json")),
			// An instant vector, refused by its resultType (before its
			// series, which has no __name__, is looked at).
			[]string{`error: query_range.json:5:19: resultType "vector": want "matrix", the answer of /api/v1/query_range (or of /api/v1/query with a range selector such as [1h])`}, ""},
		{"export", string(readertest.ReadFile(t, exports, "vm-readme-export-jsonl.json")),
			[]string{"error: query_range.json:1:1: " + errExport.Error()}, ""},
		{"export, one line", `{"metric":{"__name__":"vllm:num_requests_running"},"values":[1],"timestamps":[1790000005000]}`,
			[]string{"error: query_range.json:1:1: " + errExport.Error()}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, info := read(t, c.in)
			check(t, got, c.want)
			readertest.CheckNote(t, info.Notes, c.note)
		})
	}
}

// TestNaNGauge reads a NaN gauge, a value the engine gave (an answer
// holds no staleness markers), as an unknown figure: the field is null,
// and so is the sum or mean it would enter; the other fields are kept.
func TestNaNGauge(t *testing.T) {
	got, _ := read(t, doc(
		`{"metric":{"__name__":"vllm:kv_cache_usage_perc","engine":"0"},"values":[[1790000005,"NaN"],[1790000010,"0.25"]]}`,
		`{"metric":{"__name__":"vllm:kv_cache_usage_perc","engine":"1"},"values":[[1790000005,"0.5"],[1790000010,"0.75"]]}`,
		`{"metric":{"__name__":"vllm:num_requests_running","engine":"0"},"values":[[1790000005,"1"],[1790000010,"NaN"]]}`,
		`{"metric":{"__name__":"vllm:num_requests_running","engine":"1"},"values":[[1790000005,"2"],[1790000010,"3"]]}`,
	))
	check(t, got, []string{
		"line=1 t=5.000 metrics/scrape engine=-1 run=3 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=1 t=10.000 metrics/scrape engine=-1 run=- wait=- kv=0.5 dt=5 queries=- hits=- prompt=- gen=- preempt=-",
	})
}

// TestRepeatedNaNGauge reads one NaN gauge point given by two
// overlapping answers: one value given twice, kept once, as any other
// repeated point (two NaNs compare unequal, and were "two values").
func TestRepeatedNaNGauge(t *testing.T) {
	kv := `{"metric":{"__name__":"vllm:kv_cache_usage_perc","engine":"0"},"values":[[1790000005,"NaN"],[1790000010,"0.25"]]}`
	run := `{"metric":{"__name__":"vllm:num_requests_running","engine":"0"},"values":[[1790000005,"1"],[1790000010,"2"]]}`
	got, info := read(t, doc(kv, run), doc(kv, run))
	check(t, got, []string{
		"line=1 t=5.000 metrics/scrape engine=0 run=1 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=1 t=10.000 metrics/scrape engine=0 run=2 wait=- kv=0.25 dt=5 queries=- hits=- prompt=- gen=- preempt=-",
	})
	if info.Repeats != 4 {
		t.Errorf("%d repeated points, want 4", info.Repeats)
	}
}

// TestUnderscoreAndServers reads the underscore spelling of a metric
// (promseries) from a query_range answer, and notes series of two scrape
// targets summed, with their labels.
func TestUnderscoreAndServers(t *testing.T) {
	got, info := read(t, doc(
		`{"metric":{"__name__":"sglang_num_running_reqs","instance":"10.0.0.1:30000","job":"sglang"},"values":[[1790000005,"4"]]}`,
		`{"metric":{"__name__":"sglang_num_running_reqs","instance":"10.0.0.2:30000","job":"sglang"},"values":[[1790000005,"6"]]}`,
	))
	check(t, got, []string{"line=1 t=5.000 metrics/scrape engine=0 run=10 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-"})
	want := `query_range.json: WARNING: sglang_num_running_reqs: in 1 of 1 samples, series of more than one scrape target were summed as if they were one engine's replicas: ` +
		`{instance="10.0.0.1:30000", job="sglang"}, {instance="10.0.0.2:30000", job="sglang"}`
	if len(info.Notes) != 1 || !strings.HasPrefix(info.Notes[0], want) || info.Engine != "sglang" {
		t.Errorf("engine %q, notes %q\nwant one beginning %q", info.Engine, info.Notes, want)
	}
}

// TestCounterRecreated: the engine was down between 1790000010 and
// 1790000200 (no points) and came back with a new prompt_tokens series
// (its _created series, which a Prometheus server stores beside vLLM's
// counters, changed) that had already passed the old count: a reset, not
// a delta of 300-100.
func TestCounterRecreated(t *testing.T) {
	got, info := read(t, doc(
		`{"metric":{"__name__":"vllm:prompt_tokens_total","engine":"0","job":"vllm"},"values":[[1790000005,"50"],[1790000010,"100"],[1790000200,"300"],[1790000205,"350"]]}`,
		`{"metric":{"__name__":"vllm:prompt_tokens_created","engine":"0","job":"vllm"},"values":[[1790000005,"1789999000.25"],[1790000010,"1789999000.25"],[1790000200,"1790000150.5"],[1790000205,"1790000150.5"]]}`,
	))
	check(t, got, []string{
		"line=1 t=5.000 metrics/scrape engine=0 run=- wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=1 t=10.000 metrics/scrape engine=0 run=- wait=- kv=- dt=5 queries=- hits=- prompt=50 gen=- preempt=-",
		"line=1 t=200.000 metrics/scrape engine=0 run=- wait=- kv=- dt=190 queries=- hits=- prompt=- gen=- preempt=- RESET",
		"line=1 t=205.000 metrics/scrape engine=0 run=- wait=- kv=- dt=5 queries=- hits=- prompt=50 gen=- preempt=-",
	})
	if info.CounterResets != 1 {
		t.Errorf("CounterResets = %d, want 1", info.CounterResets)
	}
}

// TestPromtoolQueryRange reads what promtool query -o json range prints
// (cmd/promtool/main.go jsonPrinter: the matrix alone, no envelope, times
// as prometheus/common model.Time writes them: seconds with up to three
// decimals, trailing zeros dropped) as the same answer with its envelope.
func TestPromtoolQueryRange(t *testing.T) {
	series := []string{
		`{"metric":{"__name__":"vllm:num_requests_running","engine":"0","instance":"vllm-0:8000","job":"vllm"},"values":[[1790000005,"2"],[1790000010.05,"3"],[1790000015.1,"1"]]}`,
		`{"metric":{"__name__":"vllm:prompt_tokens_total","engine":"0","instance":"vllm-0:8000","job":"vllm"},"values":[[1790000005,"100"],[1790000010.05,"150"],[1790000015.1,"400"]]}`,
	}
	want := []string{
		"line=1 t=5.000 metrics/scrape engine=0 run=2 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=1 t=10.050 metrics/scrape engine=0 run=3 wait=- kv=- dt=5.05 queries=- hits=- prompt=50 gen=- preempt=-",
		"line=1 t=15.100 metrics/scrape engine=0 run=1 wait=- kv=- dt=5.05 queries=- hits=- prompt=250 gen=- preempt=-",
	}
	bare := "[" + strings.Join(series, ",") + "]\n"
	got, info := read(t, bare)
	check(t, got, want)
	enveloped, _ := read(t, doc(series...))
	check(t, enveloped, want)
	if info.Engine != "vllm" || info.Scrapes != 3 {
		t.Errorf("%+v", info)
	}
	if !Looks([]byte(bare)) || !Looks([]byte("[]\n")) || !Looks([]byte(" [\n  {\n    \"metric\": {")) || Looks([]byte("[[")) || Looks([]byte("[1]")) {
		t.Error("Looks: want true for an array of objects or an empty one, false for other arrays")
	}
	if got, _ := read(t, "[]\n"); len(got) != 0 {
		t.Errorf("an empty matrix: got %q", got)
	}
}

// TestAppendedAnswers reads answers appended to one file, as a loop of
// curl -s … >> query_range.json leaves them (Prometheus ends an answer
// without a newline, so they meet as "}{"): each is read as if in a file
// of its own, and an error in one is located in the file.
func TestAppendedAnswers(t *testing.T) {
	running := doc(`{"metric":{"__name__":"vllm:num_requests_running","engine":"0"},"values":[[1790000005,"2"],[1790000010,"3"]]}`)
	prompt := doc(`{"metric":{"__name__":"vllm:prompt_tokens_total","engine":"0"},"values":[[1790000005,"100"],[1790000010,"150"]]}`)
	want := []string{
		"line=1 t=5.000 metrics/scrape engine=0 run=2 wait=- kv=- dt=- queries=- hits=- prompt=- gen=- preempt=-",
		"line=1 t=10.000 metrics/scrape engine=0 run=3 wait=- kv=- dt=5 queries=- hits=- prompt=50 gen=- preempt=-",
	}
	got, _ := read(t, running+prompt)
	check(t, got, want)
	got, _ = read(t, running+"\n"+prompt+"\n")
	check(t, got, want)
	bad := `{"status":"error","errorType":"timeout","error":"query timed out"}`
	got, _ = read(t, running+"\n"+bad)
	if len(got) != 3 || got[0] != `error: query_range.json:2:11: Prometheus answered status "error": timeout: query timed out` {
		t.Errorf("got %q", got)
	}
}
