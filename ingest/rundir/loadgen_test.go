package rundir

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/readertest"
	"github.com/outlast-dev/outlast/internal/duckdbtest"
	"github.com/outlast-dev/outlast/schema"
)

// loadgenRuns are the fixture runs of the load generators' exports.
var loadgenRuns = []string{"aiperf-2025", "aiperf-2026", "guidellm-0.6.1", "guidellm-main", "inference-perf-0.6.1"}

// TestLoadgenFixturesIngestStrict reads each load generator's fixture run
// strictly and checks what the runs table says of it.
func TestLoadgenFixturesIngestStrict(t *testing.T) {
	want := map[string]string{
		"aiperf-2025":          "aiperf sessions=20 turns=57 cache_reported=false excluded=2 load=concurrency/null/4 clock=/- engine=0",
		"aiperf-2026":          "aiperf sessions=30 turns=140 cache_reported=true excluded=3 load=poisson/0.133/16 clock=/- engine=25",
		"guidellm-0.6.1":       "guidellm sessions=14 turns=60 cache_reported=false excluded=0 load=concurrent/null/3 clock=/- engine=24",
		"guidellm-main":        "guidellm sessions=17 turns=76 cache_reported=true excluded=0 load=concurrent/null/4 clock=/- engine=90",
		"inference-perf-0.6.1": "inference-perf sessions=12 turns=48 cache_reported=true excluded=0 load=constant/0.16/null clock=created/0.151 engine=30",
	}
	for _, name := range loadgenRuns {
		t.Run(name, func(t *testing.T) {
			res := read(t, fixture(name), Options{Version: "test"})
			r := res.Data.Run
			got := fmt.Sprintf("%s sessions=%d turns=%d cache_reported=%v excluded=%s load=%s/%s/%s clock=%s/%s engine=%d",
				r.GatewayFormat, len(res.Data.Sessions), len(res.Data.Turns), readertest.Ptr(r.CacheReported), readertest.Ptr(r.ExcludedRecords),
				r.LoadStrategy, readertest.Ptr(r.LoadRate), readertest.Ptr(r.LoadConcurrency), r.ClockAnchor, optF(r.ClockUncertaintyS, "%.3f"), len(res.Data.Engine))
			if got != want[name] {
				t.Errorf("got  %s\nwant %s", got, want[name])
			}
			if len(r.GatewaySHA256) != 64 || res.Data.Run.RejectedLines != 0 {
				t.Errorf("gateway hash %q, rejected %d", r.GatewaySHA256, r.RejectedLines)
			}
			for _, w := range res.Warnings {
				if strings.Contains(w, " span ") {
					t.Errorf("the engine log and the requests disagree: %s", w)
				}
			}
			if !*r.CacheReported {
				warned(t, res, "--enable-prompt-tokens-details")
			}
		})
	}
}

func optF(v *float64, format string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(format, *v)
}

// TestLoadgenStreamSameBytesAsInMemory checks that the load generators'
// runs give the same dataset bytes streamed as read into memory.
func TestLoadgenStreamSameBytesAsInMemory(t *testing.T) {
	for _, name := range loadgenRuns {
		t.Run(name, func(t *testing.T) { ingestBoth(t, fixture(name), Options{Version: "test"}) })
	}
}

// TestGatewayFormatOverridesDetection reads a GuideLLM report as AIPerf's
// export because the manifest says so: its first line is no AIPerf record.
func TestGatewayFormatOverridesDetection(t *testing.T) {
	_, err := Read(editedManifest(t, "guidellm-main", "gateway_format: guidellm", "gateway_format: aiperf"), Options{})
	if err == nil || !strings.Contains(err.Error(), "benchmarks.json:1:") {
		t.Errorf("%v, want an AIPerf reader's error on line 1", err)
	}
}

// sweepRun is a run directory holding the two-benchmark GuideLLM sweep of
// ../guidellm/testdata/sweep.json with the vllm-2026 engine log and
// metrics.
func sweepRun(t *testing.T, files string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sweep")
	for src, dst := range map[string]string{
		"../guidellm/testdata/sweep.json":      "benchmarks.json",
		fixture("vllm-2026") + "/engine.log":   "engine.log",
		fixture("vllm-2026") + "/metrics.prom": "metrics.prom",
	} {
		writeFile(t, filepath.Join(dir, dst), readFile(t, src))
	}
	m := "format: outlast-run/1\nrun: sw\nexperiment: e\ndesign: observe\narm: none\nstarted_at: 2026-10-27T12:00:02Z\nduration_s: 225\n" +
		"engine: {name: vllm, model: Qwen/Qwen3-8B, prefix_caching: true}\nfiles:\n  gateway: benchmarks.json\n" + files
	writeFile(t, filepath.Join(dir, "run.yaml"), m)
	return dir
}

// TestSweepIsOneRunPerBenchmark checks that a GuideLLM sweep becomes one
// run per benchmark, each from its own start with its own load and its
// share of the engine's samples, and that files.benchmark picks one.
func TestSweepIsOneRunPerBenchmark(t *testing.T) {
	dir := sweepRun(t, "")
	res := readAll(t, dir, Options{Version: "test"})
	var got []string
	for _, r := range res {
		run := r.Data.Run
		first, last := r.Data.Engine[0].TS, r.Data.Engine[len(r.Data.Engine)-1].TS
		got = append(got, fmt.Sprintf("%s b%s %s %.3f %s/%s turns=%d sessions=%d engine=%.0f..%.0f",
			run.Run, readertest.Ptr(run.Benchmark), run.StartedAt.Format(time.RFC3339), run.DurationS, run.LoadStrategy, readertest.Ptr(run.LoadConcurrency),
			len(r.Data.Turns), len(r.Data.Sessions), first, last))
		if first < 0 || last > run.DurationS {
			t.Errorf("%s: engine samples %.1f..%.1f outside its %.1f s", run.Run, first, last, run.DurationS)
		}
	}
	want := []string{
		"sw-b0 b0 2026-10-27T12:00:01Z 108.991 concurrent/2 turns=20 sessions=4 engine=1..106",
		"sw-b1 b1 2026-10-27T12:01:54Z 109.545 concurrent/4 turns=38 sessions=9 engine=3..109",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("runs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := Read(dir, Options{}); err == nil || !strings.Contains(err.Error(), "holds 2 runs (sw-b0, sw-b1)") {
		t.Errorf("Read of a sweep: %v", err)
	}

	// files.benchmark picks one, named as the manifest says, from its own
	// start and with its own share of the engine's samples, as in the
	// sweep (the manifest's started_at is the first benchmark's).
	one := read(t, sweepRun(t, "  benchmark: 1\n"), Options{Version: "test"})
	if r := one.Data.Run; r.Run != "sw" || *r.Benchmark != 1 || *r.LoadConcurrency != 4 || len(one.Data.Turns) != 38 ||
		!r.StartedAt.Equal(time.Date(2026, 10, 27, 12, 1, 54, 0, time.UTC)) || fmt.Sprintf("%.3f", r.DurationS) != "109.545" {
		t.Errorf("files.benchmark 1: %s b%s c%s, %d turns, from %s for %.3f s", r.Run, readertest.Ptr(r.Benchmark), readertest.Ptr(r.LoadConcurrency), len(one.Data.Turns), r.StartedAt, r.DurationS)
	}
	if e := one.Data.Engine; len(e) == 0 || e[0].TS < 0 || e[len(e)-1].TS > one.Data.Run.DurationS {
		t.Errorf("files.benchmark 1: engine samples outside its span")
	}
	if _, err := Read(sweepRun(t, "  benchmark: 2\n"), Options{}); err == nil || !strings.Contains(err.Error(), "files.benchmark: 2, but benchmarks.json holds 2 benchmark(s)") {
		t.Errorf("files.benchmark 2: %v", err)
	}
}

// TestSweepStreams streams a sweep into the dataset: the same bytes as
// reading its runs into memory.
func TestSweepStreams(t *testing.T) {
	dir := sweepRun(t, "")
	mem := readAll(t, dir, Options{Version: "test"})
	var names []string
	stream, err := StreamAll(dir, Options{Version: "test"}, func(name string) (Sink, error) {
		names = append(names, name)
		return &memSink{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(names, ",") != "sw-b0,sw-b1" || len(stream) != 2 || stream[1].Turns != int64(len(mem[1].Data.Turns)) || stream[0].Sessions != int64(len(mem[0].Data.Sessions)) {
		t.Errorf("sinks %v; streamed %d runs", names, len(stream))
	}
}

// TestCacheReportedForOutlastsOwnLog checks runs.cache_reported for the
// native gateway log: true when a turn carries cached tokens, false with a
// loud warning when none does.
func TestCacheReportedForOutlastsOwnLog(t *testing.T) {
	if r := read(t, fixture("vllm-2026"), Options{}).Data.Run; r.GatewayFormat != "outlast" || r.CacheReported == nil || !*r.CacheReported || r.ExcludedRecords != nil {
		t.Errorf("vllm-2026: format %q, cache reported %s, excluded %s", r.GatewayFormat, readertest.Ptr(r.CacheReported), readertest.Ptr(r.ExcludedRecords))
	}
	dir := copyRun(t, "vllm-2026")
	rewrite(t, filepath.Join(dir, "gateway.jsonl"), func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			for _, k := range []string{`"cached_tokens":`} {
				if i := strings.Index(l, k); i >= 0 {
					j := i + len(k)
					for j < len(l) && l[j] >= '0' && l[j] <= '9' {
						j++
					}
					if j > i+len(k) {
						l = l[:i] + `"cached_tokens":null` + l[j:]
					}
				}
			}
			out = append(out, l)
		}
		return strings.Join(out, "\n")
	})
	res := read(t, dir, Options{})
	if r := res.Data.Run; r.CacheReported == nil || *r.CacheReported {
		t.Errorf("cache reported %s, want false", readertest.Ptr(r.CacheReported))
	}
	warned(t, res, "WARNING: gateway.jsonl: no turn carries a cached-token count")
}

func TestPlaceholderIsRefused(t *testing.T) {
	_, err := Read(editedManifest(t, "aiperf-2026", "arm: none", "arm: <fill in>                     # burst, no-burst, none"), Options{})
	if err == nil || !strings.Contains(err.Error(), "run.yaml:8: arm: still holds outlast init's placeholder <fill in>") {
		t.Errorf("%v", err)
	}
}

// TestInferencePerfWithoutAnchor checks that an export nothing anchors is
// refused, naming the manifest key, and reads once the key gives the
// offset.
func TestInferencePerfWithoutAnchor(t *testing.T) {
	dir := copyRun(t, "inference-perf-0.6.1")
	rewrite(t, filepath.Join(dir, "per_request_lifecycle_metrics.json"), func(s string) string {
		return strings.ReplaceAll(s, `\"created\":`, `\"created_at\":`)
	})
	_, err := Read(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "as files.clock_offset_s in run.yaml") {
		t.Fatalf("%v", err)
	}
	rewrite(t, filepath.Join(dir, "run.yaml"), func(s string) string {
		return strings.Replace(s, "files:\n", "files:\n  clock_offset_s: 1792367887.582\n", 1)
	})
	res := read(t, dir, Options{})
	if r := res.Data.Run; r.ClockAnchor != "manifest" || r.ClockUncertaintyS != nil || len(res.Data.Turns) != 48 {
		t.Errorf("anchor %q ± %s, %d turns", r.ClockAnchor, optF(r.ClockUncertaintyS, "%g"), len(res.Data.Turns))
	}
}

// TestLoadgenExportFoundByName reads a run whose manifest names no gateway
// log: the load generator's file is found by its default name.
func TestLoadgenExportFoundByName(t *testing.T) {
	dir := editedManifest(t, "aiperf-2026", "  gateway: profile_export.jsonl\n  gateway_format: aiperf           # found from the file's first bytes\n", "")
	if r := read(t, dir, Options{}).Data.Run; r.GatewayFormat != "aiperf" {
		t.Errorf("format %q", r.GatewayFormat)
	}
}

// TestLenientKeepsBadRequests checks a bad request of each load generator
// is kept as a reject when lenient, with its position.
func TestLenientKeepsBadRequests(t *testing.T) {
	for name, edit := range map[string][3]string{
		// file, where the requests start, the key whose first value there
		// is made negative
		"aiperf-2026":          {"profile_export.jsonl", `"benchmark_phase":"profiling"`, `"usage_prompt_tokens":{"value":`},
		"guidellm-main":        {"benchmarks.json", `"requests": {`, `"prompt_tokens": `},
		"inference-perf-0.6.1": {"per_request_lifecycle_metrics.json", `[`, `"completion_tokens": `},
	} {
		t.Run(name, func(t *testing.T) {
			dir := copyRun(t, name)
			rewrite(t, filepath.Join(dir, edit[0]), func(s string) string {
				i := strings.Index(s, edit[1])
				j := i + strings.Index(s[i:], edit[2]) + len(edit[2])
				return s[:j] + "-" + s[j:]
			})
			if _, err := Read(dir, Options{}); err == nil || !strings.Contains(err.Error(), edit[0]+":") {
				t.Errorf("strict: %v", err)
			}
			res := read(t, dir, Options{Lenient: true})
			if len(res.Rejects) != 1 || res.Data.Run.RejectedLines != 1 || res.Rejects[0].Pos.File != edit[0] || res.Rejects[0].Column == 0 {
				t.Errorf("rejects %v", res.Rejects)
			}
		})
	}
}

// TestLoadgenRunsReadBackInDuckDB stages the load generators' fixture
// runs and reads their tables back through DuckDB: the runs table's new
// columns, the turns and the derived sessions (inference-perf-0.6.1's 12
// multi-turn users open at the end).
func TestLoadgenRunsReadBackInDuckDB(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for _, n := range loadgenRuns {
		dirs = append(dirs, fixture(n))
	}
	stageRuns(t, root, true, Options{Version: "test"}, dirs...)
	q := func(table, sel string, rest ...string) string {
		return duckdbtest.Query(t, "SELECT "+sel+" FROM read_parquet('"+filepath.ToSlash(filepath.Join(root, table))+
			"/**/*.parquet', hive_partitioning=true) "+strings.Join(rest, " "))
	}
	want := `{"run":"aiperf-2025","gateway_format":"aiperf","cache_reported":false,"excluded_records":2,"load_concurrency":4,"clock_anchor":""}
{"run":"aiperf-2026","gateway_format":"aiperf","cache_reported":true,"excluded_records":3,"load_concurrency":16,"clock_anchor":""}
{"run":"guidellm-0.6.1","gateway_format":"guidellm","cache_reported":false,"excluded_records":0,"load_concurrency":3,"clock_anchor":""}
{"run":"guidellm-main","gateway_format":"guidellm","cache_reported":true,"excluded_records":0,"load_concurrency":4,"clock_anchor":""}
{"run":"inference-perf-0.6.1","gateway_format":"inference-perf","cache_reported":true,"excluded_records":0,"load_concurrency":null,"clock_anchor":"created"}`
	if got := q("runs", "run, gateway_format, cache_reported, excluded_records, load_concurrency, clock_anchor", "ORDER BY run"); got != want {
		t.Errorf("runs via DuckDB:\n got %s\nwant %s", got, want)
	}
	if got, want := q("turns", "run, count(*) AS n, count(first_token_s) AS first, sum(cached_tokens) > 0 AS cached", "GROUP BY run ORDER BY run"),
		`{"run":"aiperf-2025","n":57,"first":55,"cached":false}
{"run":"aiperf-2026","n":140,"first":138,"cached":true}
{"run":"guidellm-0.6.1","n":60,"first":59,"cached":false}
{"run":"guidellm-main","n":76,"first":75,"cached":true}
{"run":"inference-perf-0.6.1","n":48,"first":47,"cached":true}`; got != want {
		t.Errorf("turns via DuckDB:\n got %s\nwant %s", got, want)
	}
	if got, want := q("sessions", "count(*) AS n, count(end_s) AS ended, sum((status = 'aborted')::INT) AS aborted"), `{"n":93,"ended":81,"aborted":7}`; got != want {
		t.Errorf("sessions via DuckDB: got %s want %s", got, want)
	}
}

// editedManifest is a copy of the fixture run name whose run.yaml has old
// replaced by new.
func editedManifest(t *testing.T, name, old, new string) string {
	t.Helper()
	dir := copyRun(t, name)
	rewrite(t, filepath.Join(dir, "run.yaml"), func(s string) string { return strings.Replace(s, old, new, 1) })
	return dir
}

// TestAIPerfPlannedTurns reads aiperf-2026 with an inputs.json beside it
// that plans each conversation as many turns as its longest session in the
// export did (built here from the raw records): a session that did fewer
// was cut by the run's end, open, with its turns_planned (16 of the 30, as
// a direct count of the records gives). Without inputs.json a multi-turn
// export is read as before, with a warning that such sessions cannot be
// told.
func TestAIPerfPlannedTurns(t *testing.T) {
	dir := copyRun(t, "aiperf-2026")
	res := read(t, dir, Options{})
	if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "no inputs.json beside profile_export.jsonl") }) {
		t.Errorf("no warning of the missing inputs.json: %q", res.Warnings)
	}
	data, err := os.ReadFile(filepath.Join(dir, "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	bySession := map[string]string{}
	turns := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r struct {
			Metadata struct {
				Session      string `json:"x_correlation_id"`
				Conversation string `json:"conversation_id"`
				Phase        string `json:"benchmark_phase"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Metadata.Phase == "profiling" {
			bySession[r.Metadata.Session] = r.Metadata.Conversation
			turns[r.Metadata.Session]++
		}
	}
	longest := map[string]int{}
	for s, c := range bySession {
		longest[c] = max(longest[c], turns[s])
	}
	var inputs struct {
		Data []map[string]any `json:"data"`
	}
	for c, n := range longest {
		inputs.Data = append(inputs.Data, map[string]any{"session_id": c, "payloads": make([]map[string]any, n)})
	}
	b, _ := json.MarshalIndent(inputs, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "inputs.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	res = read(t, dir, Options{})
	open, cut := 0, 0
	for _, s := range res.Data.Sessions {
		if s.TurnsPlanned == nil || *s.TurnsPlanned != int64(longest[bySession[s.Session]]) {
			t.Errorf("session %s: turns_planned %v, want %d", s.Session, s.TurnsPlanned, longest[bySession[s.Session]])
		}
		if s.Status == schema.SessionOpen && s.EndS == nil {
			open++
		}
		if turns[s.Session] < longest[bySession[s.Session]] {
			cut++
		}
	}
	if open != 16 || cut != 16 || len(res.Data.Sessions) != 30 {
		t.Errorf("%d of %d sessions open, %d cut by the end; want 16 of 30", open, len(res.Data.Sessions), cut)
	}
}
