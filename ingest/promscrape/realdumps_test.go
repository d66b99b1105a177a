package promscrape

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// realDumps holds /metrics dumps copied from public issues and docs, with
// the values written down by hand in expect.yaml (its README says how).
var realDumps = filepath.Join(readertest.FixturesDir, "..", "real-lines", "metrics")

// dumpExpect is one entry of expect.yaml: the keys this test checks, the
// rest kept to make sure each is either checked or named as not read.
type dumpExpect struct {
	ID           string                        `yaml:"id"`
	File         string                        `yaml:"file"`
	Engine       string                        `yaml:"engine"`
	Running      *float64                      `yaml:"running"`
	Waiting      *float64                      `yaml:"waiting"`
	KVUsage      *float64                      `yaml:"kv_usage"`
	KVPoolTokens *int64                        `yaml:"kv_pool_tokens"`
	Engines      []string                      `yaml:"engines"`
	Counters     map[string]float64            `yaml:"counters"`
	Samples      *int                          `yaml:"samples"`
	Absent       []string                      `yaml:"absent"`
	PerRank      map[string]map[string]float64 `yaml:"per_rank"`
	Sum          map[string]float64            `yaml:"sum"`
	All          map[string]any                `yaml:",inline"`
}

// notRead are the keys of expect.yaml that name what outlast does not take
// from /metrics, with the reason; every other key is checked.
var notRead = map[string]string{
	"source": "provenance", "version": "provenance", "date": "provenance", "fragment": "provenance",
	"fragment_note": "provenance", "note": "provenance", "labels": "the label names, seen in the series",
	"dp_attention":              "shown by dp_rank labels",
	"swapped":                   "vLLM V0's swapped requests: not a sample field",
	"cpu_kv_usage":              "vLLM V0's CPU KV usage: not a sample field",
	"gpu_prefix_cache_hit_rate": "vLLM V0's hit-rate gauge: outlast takes hits and queries from the counters",
	"cache_hit_rate_gauge":      "SGLang's cache_hit_rate gauge (a percent in 0.3, a fraction from 0.4): outlast takes hits from the counters",
	"tokens_used":               "sglang:num_used_tokens: outlast takes the KV usage fraction",
	"other_gauges":              "gauges outlast does not read",
	"created_timestamps":        "*_created series: not counts",
	"cache_config_info":         "checked through kv_pool_tokens",
	"running_per_engine":        "checked through running, their sum",
	"prefix_hit_ratio_lifetime": "a ratio of two counters checked through counters",
}

// countersNotRead are counters in expect.yaml that outlast does not read.
var countersNotRead = []string{
	"vllm:request_success_total", "process_cpu_seconds_total",
	"sglang:num_requests_total", "sglang:num_aborted_requests_total",
}

// counterFields maps the counters outlast reads to the sample fields they
// feed, as deltas.
var counterFields = map[string][]string{
	"vllm:prompt_tokens_total":            {"prompt"},
	"vllm:generation_tokens_total":        {"gen"},
	"vllm:num_preemptions_total":          {"preempt"},
	"vllm:prefix_cache_queries_total":     {"queries"},
	"vllm:gpu_prefix_cache_queries_total": {"queries"},
	"vllm:prefix_cache_hits_total":        {"hits"},
	"vllm:gpu_prefix_cache_hits_total":    {"hits"},
	"sglang:prompt_tokens_total":          {"prompt", "queries"},
	"sglang:generation_tokens_total":      {"gen"},
	"sglang:cached_tokens_total":          {"hits"},
	"sglang:num_retracted_requests_total": {"preempt"},
}

// absentFields maps the words of expect.yaml's absent lists to the sample
// fields that must be null; absentNotRead are those about labels or
// series names, not values.
var absentFields = map[string][]string{
	"running": {"run"}, "waiting": {"wait"}, "kv_usage": {"kv"}, "swapped": nil,
	"prefix_cache_queries": {"queries"}, "prefix_cache_hits": {"hits"},
	"prefix cache sample values": {"queries", "hits"},
	"every counter":              {"queries", "hits", "prompt", "gen", "preempt"},
}
var absentNotRead = []string{"engine label", "engine_type", "tp_rank", "vllm:kv_cache_usage_perc",
	"vllm:prefix_cache_hits_total sample", "sglang:max_total_num_tokens"}

// pasteArtefact matches a line no file of scrapes holds: a shell prompt
// with the command that printed the dump, as pasted in docs.
var pasteArtefact = regexp.MustCompile(`(?m)^\$ .*\n(\n)?`)

// TestRealDumps reads every real /metrics dump as a file of two scrapes
// would hold it (each after a "# scrape" line) and compares what outlast
// takes from it with the values written by hand, dump by dump. The first
// scrape has the known counters at 0, so that the second's deltas are the
// counters' values. The dump as pasted, alone, is refused by Sniff: a
// single dump has no time, and a prompt line is not exposition text.
func TestRealDumps(t *testing.T) {
	data := readertest.ReadFile(t, realDumps, "expect.yaml")
	var dumps []dumpExpect
	if err := yaml.Unmarshal(data, &dumps); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(realDumps, "*.prom"))
	if len(dumps) != len(files) || len(dumps) < 14 {
		t.Fatalf("%d dumps in expect.yaml, %d files", len(dumps), len(files))
	}
	for _, d := range dumps {
		t.Run(d.ID, func(t *testing.T) {
			raw := readertest.ReadFile(t, realDumps, d.File)
			checkKeys(t, d)
			checkRefused(t, raw)
			dump := pasteArtefact.ReplaceAll(raw, nil)
			in := "# scrape 1001\n" + zeroCounters(string(dump)) + "# scrape 1006\n" + string(dump)
			got, info := readSamples(t, in)
			if len(got) != 2 {
				t.Fatalf("%d samples, want 2", len(got))
			}
			checkDump(t, d, got[1], info)
		})
	}
}

// checkKeys fails on a key of expect.yaml that is neither checked nor
// named in notRead.
func checkKeys(t *testing.T, d dumpExpect) {
	for k := range d.All {
		if _, ok := notRead[k]; !ok {
			t.Errorf("expect.yaml key %q is neither checked nor listed as not read", k)
		}
	}
	for k := range d.Sum {
		if k != "num_queue_reqs_visible_ranks" && k != "gen_throughput_visible_ranks" &&
			k != "num_retracted_reqs" && k != "num_paused_reqs" {
			t.Errorf("sum.%s: no check", k)
		}
	}
}

// checkRefused checks that the dump as pasted is not taken for scrapes.
func checkRefused(t *testing.T, raw []byte) {
	lr, _ := lineio.NewReader(bytes.NewReader(raw), "metrics.prom")
	_, err := Sniff(lr)
	var pe *textpos.ParseError
	switch {
	case !errors.As(err, &pe):
		t.Errorf("Sniff of the dump alone: %v, want a positioned error", err)
	case bytes.HasPrefix(raw, []byte("$ ")):
		if pe.Pos.Line != 1 || pe.Column != 1 {
			t.Errorf("Sniff of the pasted prompt line: %v, want line 1, column 1", err)
		}
	case !errors.Is(err, ErrSingleDump):
		t.Errorf("Sniff of the dump alone: %v, want ErrSingleDump", err)
	}
}

// zeroCounters sets the value of every sample of a known counter to 0.
func zeroCounters(dump string) string {
	lines := strings.SplitAfter(dump, "\n")
	for i, l := range lines {
		s := strings.TrimLeft(l, " \t")
		end := strings.IndexAny(s, "{ ")
		if end < 0 || !slices.Contains(slices.Collect(mapsKeys(counterFields)), s[:end]) {
			continue
		}
		v := strings.LastIndexByte(strings.TrimRight(l, "\n"), ' ')
		lines[i] = l[:v+1] + "0\n"
	}
	return strings.Join(lines, "")
}

func mapsKeys(m map[string][]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// readSamples reads scrapes, failing on any error.
func readSamples(t *testing.T, in string) ([]schema.EngineSample, Info) {
	lr, err := lineio.NewReader(strings.NewReader(in), "metrics.prom")
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(lr, Options{T0: t0})
	defer r.Close()
	var out []schema.EngineSample
	for s, err := range readertest.All(r.Next) {
		if err != nil {
			t.Fatalf("error: %v", err)
		}
		out = append(out, s)
	}
	return out, r.Info()
}

// checkDump compares the second scrape's sample s and Info with d.
func checkDump(t *testing.T, d dumpExpect, s schema.EngineSample, info Info) {
	fields := map[string]*float64{"run": s.Running, "wait": s.Waiting, "kv": s.KVUsage, "queries": s.PrefixQueries,
		"hits": s.PrefixHits, "prompt": s.PromptTokens, "gen": s.GenerationTokens, "preempt": s.Preemptions}
	want := map[string]*float64{"run": d.Running, "wait": d.Waiting, "kv": d.KVUsage}
	if v, ok := d.Sum["num_queue_reqs_visible_ranks"]; ok {
		sum := 0.0
		for _, x := range d.PerRank["num_queue_reqs"] {
			sum += x
		}
		if sum != v {
			t.Errorf("expect.yaml: per_rank num_queue_reqs sum to %v, sum says %v", sum, v)
		}
		want["wait"] = &v
	}
	for name, v := range d.Counters {
		fs, ok := counterFields[name]
		if !ok {
			if !slices.Contains(countersNotRead, name) && !strings.Contains(name, "{") {
				t.Errorf("counter %s: neither read nor listed as not read", name)
			}
			continue
		}
		for _, f := range fs {
			if want[f] != nil {
				t.Errorf("expect.yaml: two counters feed %s", f)
			}
			want[f] = &v
		}
	}
	read := false
	for f, got := range fields {
		w := want[f]
		read = read || w != nil
		switch {
		case w == nil && got != nil:
			t.Errorf("%s = %v, want null (not in the dump)", f, *got)
		case w != nil && got == nil:
			t.Errorf("%s = null, want %v", f, *w)
		case w != nil && math.Abs(*got-*w) > 1e-12*math.Max(1, math.Abs(*w)):
			t.Errorf("%s = %v, want %v", f, *got, *w)
		}
	}
	for _, a := range d.Absent {
		fs, ok := absentFields[strings.SplitN(a, " (", 2)[0]]
		if !ok {
			if !slices.Contains(absentNotRead, a) {
				t.Errorf("absent %q: no check", a)
			}
			continue
		}
		for _, f := range fs {
			if fields[f] != nil {
				t.Errorf("absent %q: %s = %v", a, f, *fields[f])
			}
		}
	}
	wantEngine, wantUnrec := d.Engine, 0
	if !read {
		wantEngine, wantUnrec = "", 2 // nothing outlast reads
	}
	if d.Samples != nil && *d.Samples == 0 && read {
		t.Errorf("samples: 0, but values expected")
	}
	var pool int64
	if d.KVPoolTokens != nil {
		pool = *d.KVPoolTokens
	}
	wantIndex := int32(0) // one replica or none labelled
	if len(d.Engines) > 1 || len(d.PerRank["num_queue_reqs"]) > 1 {
		wantIndex = -1 // several summed
	}
	if info.Engine != wantEngine || info.Unrecognised != wantUnrec || info.KVPoolTokens != pool || s.EngineIndex != wantIndex {
		t.Errorf("engine %q, unrecognised %d, KV pool %d, engine index %d; want %q, %d, %d, %d",
			info.Engine, info.Unrecognised, info.KVPoolTokens, s.EngineIndex, wantEngine, wantUnrec, pool, wantIndex)
	}
	if testing.Verbose() {
		t.Logf("%s: %s", d.File, readertest.FormatScrape(s))
	}
}
