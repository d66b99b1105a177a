package promscrape

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/promseries"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
)

func newTestParser() *parser { return &parser{p: expfmt.NewTextParser(model.UTF8Validation)} }

// headerScrape is the scrape of a chunk with a header whose kept lines
// are text, numbered from line 2.
func headerScrape(text []byte) *scrape {
	j := &scrape{name: "metrics.prom", c: chunk{first: 1, header: true, text: text}}
	for k := range bytes.Count(text, []byte("\n")) {
		j.c.nos = append(j.c.nos, k+2)
	}
	return j
}

// sameAsExpfmt checks the fast path against expfmt's on one chunk text:
// when the fast path takes it, expfmt must take it without error and give
// the same observations.
func sameAsExpfmt(t *testing.T, text []byte) (fast bool) {
	t.Helper()
	a := headerScrape(text)
	if !newTestParser().fast(a) {
		if a.obs != nil {
			t.Fatalf("%q: the fast path refused it but left %d observations", text, len(a.obs))
		}
		return false
	}
	b := headerScrape(text)
	newTestParser().expfmt(b)
	if b.synErr != nil {
		t.Fatalf("fast path took %q, expfmt says %v", text, b.synErr)
	}
	if len(b.sem) > 0 {
		t.Fatalf("fast path took %q, expfmt's path says %v", text, b.sem[0])
	}
	// %#v: every field, and NaN equal to itself.
	if got, want := fmt.Sprintf("%#v", a.obs), fmt.Sprintf("%#v", b.obs); got != want {
		t.Fatalf("%q:\nfast   %s\nexpfmt %s", text, got, want)
	}
	return true
}

const (
	fRun = "vllm:num_requests_running"
	fMax = "sglang:max_total_num_tokens" // neither gauge nor counter: any value
	fCnt = "vllm:prompt_tokens_total"
	lab  = `{engine="0",model_name="m"}`
)

// fastCases are chunk texts (kept lines, without the final newline), each
// taken by the fast path or not.
var fastCases = []struct {
	text string
	fast bool
}{
	{fRun + lab + " 3.0", true},
	{fRun + " 3", true},
	{fRun + lab + " 3.0 1700000000000", true},
	{fRun + lab + " 3.0 -5", true},
	{fRun + lab + " 3.0 +5", true},
	{fRun + lab + " 3.0 1.5", false}, // expfmt: not an integer timestamp
	{fRun + lab + " 3.0 99999999999999999999", false},
	{fRun + lab + " 3.0 5 6", false},
	{fRun + lab + " 3.0 ", false}, // expfmt: empty timestamp
	{fRun + lab + "  3.0", false}, // expfmt takes it; not plain
	{fRun + lab + "\t3.0", false},
	{fRun + lab + " 3.0\t5", false},
	{fRun + lab + " 3.0\r", false},
	{fRun + lab + "3.0", false},
	{fRun + " " + lab + " 3.0", false},
	{fRun + `"x" 1`, false},
	{fRun + "{} 1", false},
	{fRun + `{engine="0",} 1`, false},
	{fRun + `{engine="0", model_name="m"} 1`, false},
	{fRun + `{engine ="0"} 1`, false},
	{fRun + `{engine= "0"} 1`, false},
	{fRun + `{engine="0" } 1`, false},
	{fRun + `{engine="0",engine="1"} 1`, false}, // expfmt: duplicate label
	{fRun + `{__name__="x"} 1`, false},          // expfmt: reserved
	{fRun + `{__x="y"} 1`, true},
	{fRun + `{0a="y"} 1`, false},
	{fRun + `{a:b="y"} 1`, false},
	{fRun + `{"a"="y"} 1`, false},
	{fRun + `{a="\"q\""} 1`, false},
	{fRun + `{a="x\ny"} 1`, false},
	{fRun + `{a="x\\y"} 1`, false},
	{fRun + `{a="x\ty"} 1`, false},
	{fRun + "{a=\"x\ty\"} 1", true},
	{fRun + `{a="é ü,}{"} 1`, true},
	{fRun + "{a=\"\xff\"} 1", false},
	{fRun + `{a=""} 1`, true},
	{fRun + `{a="x"`, false},
	{`{"` + fRun + `"} 1`, false},
	{" " + fRun + " 1", false},
	{"", false},
	{"process_open_fds 71.0", false},
	{fRun + "_bucket 1", false},
	{"1" + fRun + " 1", false},
	{fMax + " NaN", true},
	{fMax + " nan", true},
	{fMax + " +Inf", true},
	{fMax + " -Inf", true},
	{fMax + " Inf", true},
	{fMax + " infinity", true},
	{fMax + " 1e3", true},
	{fMax + " 1E+03", true},
	{fMax + " -0", true},
	{fMax + " .5", true},
	{fMax + " 5.", true},
	{fMax + " 4.622168064e+010", true},
	{fMax + " 1.7931022240449998e+09", true},
	{fMax + " 0x1p3", false},
	{fMax + " 0x10", false},
	{fMax + " 1_000", false},
	{fMax + " 1e400", false},
	{fMax + " 1e-400", true},
	{fMax + " x", false},
	{fRun + " NaN", true}, // a gauge's unknown figure: read, and null in the sample
	// The underscore spelling (promseries: sgl-router, SMG, pipelines) is
	// a name of its own, read as the colon one is.
	{"sglang_num_running_reqs{dp_rank=\"0\",tp_rank=\"0\"} 3", true},
	{"# HELP vllm_num_requests_running Running.\n# TYPE vllm_num_requests_running gauge\nvllm_num_requests_running 1", true},
	{fRun + " 1\nvllm_num_requests_running 2", true},
	{"vllm_num_requests_running_bucket 1", false},
	{"vllm-num_requests_running 1", false},
	{fRun + " +Inf", false}, // a gauge must not be infinite: the error's line is expfmt's path's
	{fCnt + lab + " -1", false},
	{fCnt + lab + " 7", true},
	{"# HELP " + fRun + " Number of requests.\n" + fRun + " 1", true},
	{"# HELP " + fRun + " a \"quoted\" help\n" + fRun + " 1", true},
	{"# HELP " + fRun + " a\\nb\n" + fRun + " 1", false},
	{"# HELP " + fRun + "  two blanks\n" + fRun + " 1", false},
	{"# HELP " + fRun + " x\n# HELP " + fRun + " y\n" + fRun + " 1", false}, // expfmt: second HELP
	{"# TYPE " + fRun + " gauge\n" + fRun + " 1", true},
	{"# TYPE " + fRun + " counter\n" + fRun + " 1", true},
	{"# TYPE " + fRun + " untyped\n" + fRun + " 1", true},
	{"# TYPE " + fRun + " Gauge\n" + fRun + " 1", false},
	{"# TYPE " + fRun + " gauge \n" + fRun + " 1", false},
	{"# TYPE " + fRun + " summary\n" + fRun + " 1", false},
	{"# TYPE " + fRun + " histogram\n" + fRun + " 1", false},
	{"# TYPE " + fRun + " bogus\n" + fRun + " 1", false},
	{"# TYPE " + fRun + " gauge\n# TYPE " + fRun + " gauge\n" + fRun + " 1", false},
	{fRun + " 1\n# TYPE " + fRun + " gauge", false}, // expfmt: TYPE after samples
	{fRun + " 1\n# HELP " + fRun + " late help", true},
	{"#HELP " + fRun + " x\n" + fRun + " 1", false},
	{"# HELP " + fRun + "\n" + fRun + " 1", false},
	{"# HELP \"" + fRun + "\" x\n" + fRun + " 1", false},
	{"# plain comment\n" + fRun + " 1", false},
	{fRun + `{engine="0"} 1` + "\n" + fRun + `{engine="0"} 2`, true}, // a repeated series, kept twice
	{fRun + `{engine="0"} 1` + "\n" + fCnt + " 5\n" + fRun + `{engine="1"} 2`, true},
	{fRun + `{engine="0",pp_rank="1"} 1`, true},
	{`vllm:cache_config_info{kv_cache_size_tokens="4096"} 1`, true},
	{`vllm:cache_config_info{kv_cache_size_tokens="lots"} 1`, false},
	{`sglang:cached_tokens_total{cache_source="device",tp_rank="0"} 3`, true},
}

// TestFastLines checks the fast path on tricky lines: each is taken or
// refused as the table says, and what it takes it reads as expfmt does.
func TestFastLines(t *testing.T) {
	for _, c := range fastCases {
		if got := sameAsExpfmt(t, []byte(c.text+"\n")); got != c.fast {
			t.Errorf("%q: fast path %v, want %v", c.text, got, c.fast)
		}
	}
}

// TestFastSeriesRemembered runs the table's texts, twice over, through one
// parser, as the scrapes of an input go: the second time every series the
// fast path takes is one it has described before (describedCache), and
// what it reads must still be what expfmt reads.
func TestFastSeriesRemembered(t *testing.T) {
	ps := newTestParser()
	for pass := range 2 {
		for _, c := range fastCases {
			text := []byte(c.text + "\n")
			a := headerScrape(text)
			if got := ps.fast(a); got != c.fast {
				t.Fatalf("pass %d, %q: fast path %v, want %v", pass, c.text, got, c.fast)
			}
			if !c.fast {
				continue
			}
			b := headerScrape(text)
			newTestParser().expfmt(b)
			if got, want := fmt.Sprintf("%#v", a.obs), fmt.Sprintf("%#v", b.obs); got != want {
				t.Fatalf("pass %d, %q:\nfast   %s\nexpfmt %s", pass, c.text, got, want)
			}
		}
	}
	if len(ps.fs.series.m) == 0 {
		t.Fatal("the parser remembered no series")
	}
}

// TestFastKnownNames checks what fastSample relies on: no known metric
// name ends as expfmt's summary and histogram series do, so none is filed
// under another family.
func TestFastKnownNames(t *testing.T) {
	for m := range promseries.NumMetrics {
		for _, suf := range []string{"_sum", "_count", "_bucket"} {
			if strings.HasSuffix(promseries.Name(m), suf) {
				t.Errorf("%s ends in %s", promseries.Name(m), suf)
			}
		}
	}
}

// inputScrapes returns the kept text of every scrape of the Reader's
// input, split as the Reader splits it.
func inputScrapes(t testing.TB, data []byte) [][]byte {
	t.Helper()
	lr, err := lineio.NewReader(bytes.NewReader(data), "metrics.prom")
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(lr, Options{T0: t0})
	var out [][]byte
	for j := r.splitNext(); j != nil; j = r.splitNext() {
		if j.c.header && j.c.err == nil {
			out = append(out, j.c.text)
		}
	}
	return out
}

// realInputs are the files of scrapes the tests hold: the fixture runs,
// the real dumps and a simulated vLLM and SGLang run.
func realInputs(t testing.TB) map[string][]byte {
	t.Helper()
	in := map[string][]byte{}
	for _, fx := range fixtures {
		in[fx.run] = fixtureData(t, fx.run)
	}
	dumps, err := filepath.Glob(filepath.Join(realDumps, "*.prom"))
	if err != nil || len(dumps) == 0 {
		t.Fatalf("real dumps: %v", err)
	}
	for _, p := range dumps {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		in[filepath.Base(p)] = append([]byte("# scrape 1001\n"), pasteArtefact.ReplaceAll(b, nil)...)
	}
	for _, engine := range []string{schema.EngineVLLM, schema.EngineSGLang} {
		cfg, err := sim.Defaults(schema.DesignPaired)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Engine, cfg.DurationS = engine, 120
		in["sim-"+engine] = sim.Simulate(cfg, cfg.Arms[0], 1).Metrics
	}
	return in
}

// TestFastSameAsExpfmt runs every scrape of the real inputs through both
// paths, and checks that the fixtures' and simulated runs' scrapes all
// take the fast path (else it would not be worth having).
func TestFastSameAsExpfmt(t *testing.T) {
	for name, data := range realInputs(t) {
		scrapes := inputScrapes(t, data)
		fast := 0
		for _, s := range scrapes {
			if sameAsExpfmt(t, s) {
				fast++
			}
		}
		t.Logf("%s: %d of %d scrapes on the fast path", name, fast, len(scrapes))
		if !strings.HasSuffix(name, ".prom") && (fast != len(scrapes) || fast == 0) {
			t.Errorf("%s: %d of %d scrapes on the fast path, want all", name, fast, len(scrapes))
		}
	}
}

// TestFastMutations runs random mutations of the table's texts (bytes
// deleted, inserted, replaced by ones that matter to the syntax) through
// both paths, so that every go test explores a little beyond the table.
func TestFastMutations(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	const alphabet = " \t\n\\\"{}=,#_:.eE+-0159aINfpx\xff\xc3\xa9"
	fast := 0
	for _, c := range fastCases {
		for range 300 {
			b := []byte(c.text)
			for range 1 + rng.IntN(3) {
				k := rng.IntN(len(b) + 1)
				ch := alphabet[rng.IntN(len(alphabet))]
				switch op := rng.IntN(3); {
				case op == 0 && k < len(b):
					b = append(b[:k], b[k+1:]...)
				case op == 1 && k < len(b):
					b[k] = ch
				default:
					b = append(b[:k], append([]byte{ch}, b[k:]...)...)
				}
			}
			if sameAsExpfmt(t, append(b, '\n')) {
				fast++
			}
			sameWarm(t, []byte(c.text+"\n"), append(b, '\n'))
		}
	}
	t.Logf("%d of %d mutations on the fast path", fast, 300*len(fastCases))
}

// sameWarm checks that a parser which has read scrape warm reads scrape
// text as a new parser does: what it remembers of warm's series
// (describedCache) changes nothing, whatever follows them in text.
func sameWarm(t *testing.T, warm, text []byte) {
	t.Helper()
	ps := newTestParser()
	ps.fast(headerScrape(warm))
	a, b := headerScrape(text), headerScrape(text)
	gotOK, wantOK := ps.fast(a), newTestParser().fast(b)
	if gotOK != wantOK {
		t.Fatalf("after %q, %q: fast path %v, want %v", warm, text, gotOK, wantOK)
	}
	if got, want := fmt.Sprintf("%#v", a.obs), fmt.Sprintf("%#v", b.obs); got != want {
		t.Fatalf("after %q, %q:\nwarm %s\nnew  %s", warm, text, got, want)
	}
}

// FuzzFast checks that whatever chunk text the fast path takes, expfmt
// takes with the same observations.
func FuzzFast(f *testing.F) {
	for _, c := range fastCases {
		f.Add([]byte(c.text + "\n"))
	}
	for _, data := range realInputs(f) {
		if s := inputScrapes(f, data); len(s) > 0 {
			f.Add(s[0])
		}
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if len(text) > 0 && text[len(text)-1] != '\n' {
			text = append(text, '\n') // the splitter ends every kept line
		}
		sameAsExpfmt(t, text)
		for _, c := range fastCases[:3] {
			sameWarm(t, []byte(c.text+"\n"), text)
		}
	})
}
