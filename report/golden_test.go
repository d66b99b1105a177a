package report

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/internal/golden"
	"github.com/outlast-dev/outlast/report/render"
	"github.com/outlast-dev/outlast/schema"
)

// realFixtures ingests the bundled real-format runs in fixtures/real.
func realFixtures(t *testing.T) []*schema.RunData {
	t.Helper()
	root := filepath.Join("..", "fixtures", "real")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var runs []*schema.RunData
	for _, e := range entries {
		if !e.IsDir() || !rundir.IsRunDir(filepath.Join(root, e.Name())) {
			continue // prom-exports holds a run's metrics in other forms
		}
		res, err := rundir.Read(filepath.Join(root, e.Name()), rundir.Options{Version: "test"})
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		runs = append(runs, res.Data)
	}
	if len(runs) == 0 {
		t.Fatal("no runs in fixtures/real")
	}
	return runs
}

// TestSummaryGolden compares summary.json of the bundled real-format runs
// and of the hand-built dataset with testdata: any change in what the
// report says shows up here. Run with -update after a deliberate change,
// and review the diff.
func TestSummaryGolden(t *testing.T) {
	for _, tc := range []struct {
		golden, dataset string
		runs            func(*testing.T) []*schema.RunData
	}{
		{"summary.golden.json", "fixtures/real", realFixtures},
		{"summary.handbuilt.golden.json", "fixture", func(*testing.T) []*schema.RunData { return fixtureRuns() }},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			t.Setenv("SOURCE_DATE_EPOCH", "")
			_, sum, err := Build(tc.runs(t), Options{Title: "golden", Dataset: tc.dataset, Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			got, err := render.JSON(sum)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tc.golden), got)
		})
	}
}

// TestRealFixtureEngineFields checks the per-run fields of summary.json
// that set the engine beside the gateway against values worked out by hand
// from the fixture files (grep, awk, a calculator):
//
//   - sglang-0.4 (SGLang 0.4.4 log, no metrics): the 52 "Prefill batch"
//     lines between 08:00:00 and 08:05:00 sum to #cached-token 133188 and
//     #new-token 43054, so the engine's hit ratio over the run (300 s, the
//     last 10 minutes being the whole run) is 133188/176242 =
//     0.755710897516, from prefill lines; the largest "token usage" of the
//     prefill and decode lines is 0.06; the log prints no retraction:
//     preemptions null. 21 of the gateway's turns carry cached tokens. No
//     trigger: the one 5-minute window [0, 300) has a gateway hit ratio of
//     0.756, not degraded: onset null.
//   - sglang-2026 (scrapes every 5 s from 2.014 s to 297.026 s):
//     sglang:cached_tokens_total over the device (0 → 164123) and host
//     (0 → 7477) tiers against sglang:prompt_tokens_total (0 → 222820):
//     171600/222820 = 0.770128354726 from counters; token_usage peaks at
//     0.05; num_retracted_requests_total stays 0: preemptions 0 (reported,
//     none). Windows align to the trigger slot's end, 180 s, so no complete
//     5-minute window fits in 300 s: onset null.
//   - vllm-0.10 (log only): 30 stats lines in 05:20:00–05:25:00, four idle
//     DEBUG lines at 0.0% and 26 INFO lines summing to 1852.2%: the printed
//     rate averages 0.6174 (source log, the engine's own horizon); "GPU KV
//     cache usage" peaks at 9.1%; no preemption field: null; onset null
//     (windows align to 180 s).
//   - vllm-0.8 (log only, no trigger): 30 stats lines in 14:00:00–14:05:00
//     averaging 70.1266…%: 0.701266666667; KV usage peaks at 6.4%;
//     preemptions null; window [0, 300) has hit 0.782: onset null.
//   - vllm-2026 (scrapes, and an engine restart at 112 s, where both
//     prefix-cache counters fall to 0): the deltas before the reset sum to
//     106464 hits of 133204 queries and after it to 189776 of 244852, so
//     296240/378056 = 0.783587616649 from counters; kv_cache_usage_perc
//     peaks at 0.07988; num_preemptions_total goes 0 → 1 at 142 s after
//     the restart: 1; onset null (windows align to 180 s).
//
// Every gateway log carries cached tokens: cache_reported true.
func TestRealFixtureEngineFields(t *testing.T) {
	_, sum, err := Build(realFixtures(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	want := map[string]struct {
		source                  string
		endHit, kvPeak, preempt float64
	}{
		"sglang-0.4":  {"prefill", 0.755710897516, 0.06, nan},
		"sglang-2026": {"counters", 0.770128354726, 0.05, 0},
		"vllm-0.10":   {"log", 0.6174, 0.091, nan},
		"vllm-0.8":    {"log", 0.701266666667, 0.064, nan},
		"vllm-2026":   {"counters", 0.783587616649, 0.07988, 1},
	}
	for _, r := range sum.Runs {
		w, ok := want[r.Run]
		if !ok {
			continue // a fixture added after this test: the golden covers it
		}
		if r.EngineHitSource != w.source || !same(r.EngineEndHitRatio, w.endHit) || !same(r.KVUsagePeak, w.kvPeak) || !same(r.Preemptions, w.preempt) {
			t.Errorf("%s: engine hit %v from %q, KV peak %v, preemptions %v; want %v from %q, %v, %v",
				r.Run, r.EngineEndHitRatio, r.EngineHitSource, r.KVUsagePeak, r.Preemptions, w.endHit, w.source, w.kvPeak, w.preempt)
		}
		if r.CacheReported == nil || !*r.CacheReported || !r.OnsetS.IsNaN() {
			t.Errorf("%s: cache_reported %v, onset %v; want true and null", r.Run, r.CacheReported, r.OnsetS)
		}
		delete(want, r.Run)
	}
	for run := range want {
		t.Errorf("no run %s in the summary", run)
	}
}
