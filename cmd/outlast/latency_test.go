package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/internal/duckdbtest"
)

// latencySQL computes, in DuckDB from a dataset's Parquet files, what
// summary.json's runs[] state of each run's latency: quantile_cont of each
// measure over its completed turns, the TTFT p90 of those sent in the last
// 10 minutes of duration_s, the turns by status, and goodput at TTFT ≤ 2 s
// and TPOT ≤ 0.1 s.
const latencySQL = `WITH t AS (SELECT * FROM read_parquet('DS/turns/**/*.parquet', hive_partitioning = true)),
r AS (SELECT run, duration_s FROM read_parquet('DS/runs/**/*.parquet', hive_partitioning = true))
SELECT t.run,
  quantile_cont(first_token_s - sent_s, [0.5, 0.9, 0.99]) FILTER (WHERE status = 'ok') AS ttft,
  quantile_cont((done_s - first_token_s) / (output_tokens - 1), [0.5, 0.9, 0.99]) FILTER (WHERE status = 'ok' AND output_tokens >= 2) AS tpot,
  quantile_cont(done_s - sent_s, [0.5, 0.9, 0.99]) FILTER (WHERE status = 'ok') AS e2e,
  quantile_cont(sent_s - ready_s, [0.5, 0.9, 0.99]) FILTER (WHERE status = 'ok') AS queue,
  quantile_cont(first_token_s - sent_s, 0.9) FILTER (WHERE status = 'ok' AND sent_s >= greatest(0, r.duration_s - 600) AND sent_s < r.duration_s) AS end_ttft,
  count(*) FILTER (WHERE status = 'ok') AS completed,
  count(*) FILTER (WHERE status = 'aborted') AS aborted,
  count(*) FILTER (WHERE status NOT IN ('ok', 'aborted')) AS errored,
  count(*) FILTER (WHERE status = 'ok' AND sent_s IS NOT NULL AND first_token_s IS NOT NULL) AS judged,
  count(*) FILTER (WHERE status = 'ok' AND first_token_s - sent_s <= 2 AND (output_tokens < 2 OR (done_s - first_token_s) / (output_tokens - 1) <= 0.1)) AS good
FROM t JOIN r USING (run) GROUP BY t.run ORDER BY t.run`

// duckLatency is one row of latencySQL; a quantile over no turn is null.
type duckLatency struct {
	Run                                       string
	TTFT, TPOT, E2E, Queue                    []*float64
	EndTTFT                                   *float64 `json:"end_ttft"`
	Completed, Aborted, Errored, Judged, Good int
}

// TestLatencyMatchesDuckDB: on the bundled real-format runs (outlast's
// own log, AIPerf, GuideLLM, inference-perf) and on simulated ones, every
// run's latency in summary.json equals DuckDB's quantile_cont over the
// same turns of the dataset, read from its Parquet files, to the 12
// significant digits summary.json keeps; each arm's is the median of its
// runs'.
func TestLatencyMatchesDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates an experiment")
	}
	tmp := t.TempDir()
	sim := filepath.Join(tmp, "sim")
	mustRunOutlast(t, "simulate", "-q", "--design", "paired", "--seeds", "3", "--duration", "40m", "--out", sim)
	for _, c := range []struct{ name, input string }{
		{"real", filepath.Join("..", "..", "fixtures", "real")},
		{"sim", sim},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds, out := filepath.Join(tmp, c.name+"-ds"), filepath.Join(tmp, c.name+"-out")
			mustRunOutlast(t, "ingest", "-q", "--out", ds, c.input)
			mustRunOutlast(t, "report", "-q", ds, "--out", out)
			var sum struct {
				Runs []map[string]any
			}
			b, err := os.ReadFile(filepath.Join(out, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &sum); err != nil {
				t.Fatal(err)
			}
			byRun := map[string]map[string]any{}
			for _, r := range sum.Runs {
				byRun[r["run"].(string)] = r
			}
			rows := strings.Split(duckdbtest.Query(t, strings.ReplaceAll(latencySQL, "DS", filepath.ToSlash(ds))), "\n")
			if len(rows) != len(sum.Runs) {
				t.Fatalf("DuckDB has %d runs with turns, summary.json %d", len(rows), len(sum.Runs))
			}
			firstTokens := 0
			for _, line := range rows {
				var d duckLatency
				if err := json.Unmarshal([]byte(line), &d); err != nil {
					t.Fatal(err)
				}
				r := byRun[d.Run]
				if r == nil {
					t.Fatalf("run %s not in summary.json", d.Run)
				}
				firstTokens += d.Judged
				for _, m := range []struct {
					key string
					q   []*float64
				}{{"ttft", d.TTFT}, {"tpot", d.TPOT}, {"e2e", d.E2E}, {"queue", d.Queue}} {
					for i, p := range []string{"p50", "p90", "p99"} {
						var want *float64
						if m.q != nil {
							want = m.q[i]
						}
						checkSame(t, d.Run, m.key+"_"+p+"_s", r[m.key+"_"+p+"_s"], want)
					}
				}
				checkSame(t, d.Run, "end_ttft_p90_s", r["end_ttft_p90_s"], d.EndTTFT)
				var goodput *float64
				if d.Judged > 0 {
					g := float64(d.Good) / float64(d.Judged)
					goodput = &g
				}
				checkSame(t, d.Run, "goodput", r["goodput"], goodput)
				for k, want := range map[string]int{"turns_completed": d.Completed, "turns_aborted": d.Aborted, "turns_errored": d.Errored,
					"turns_first_token": d.Judged, "goodput_turns": d.Judged} {
					if got, _ := r[k].(float64); int(got) != want {
						t.Errorf("%s %s: summary.json %v, DuckDB %d", d.Run, k, r[k], want)
					}
				}
			}
			if firstTokens == 0 {
				t.Error("no run has a first-token time: the comparison tested nothing of TTFT")
			}
		})
	}
	// Each arm's latency is the median of its runs' (DuckDB's median is
	// quantile_cont at 0.5).
	ds := filepath.ToSlash(filepath.Join(tmp, "sim-ds"))
	got := duckdbtest.Query(t, `WITH t AS (SELECT * FROM read_parquet('`+ds+`/turns/**/*.parquet', hive_partitioning = true)),
r AS (SELECT run, arm FROM read_parquet('`+ds+`/runs/**/*.parquet', hive_partitioning = true)),
p AS (SELECT t.run, arm, quantile_cont(first_token_s - sent_s, 0.9) FILTER (WHERE status = 'ok') AS p90 FROM t JOIN r USING (run) GROUP BY t.run, arm)
SELECT arm, median(p90) AS ttft_p90_s FROM p GROUP BY arm ORDER BY arm`)
	var sum struct {
		Experiments []struct{ Latency []map[string]any }
	}
	b, err := os.ReadFile(filepath.Join(tmp, "sim-out", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	arms := map[string]any{}
	for _, a := range sum.Experiments[0].Latency {
		arms[a["arm"].(string)] = a["ttft_p90_s"]
	}
	for _, line := range strings.Split(got, "\n") {
		var d struct {
			Arm      string
			TTFTP90S *float64 `json:"ttft_p90_s"`
		}
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatal(err)
		}
		checkSame(t, "arm "+d.Arm, "ttft_p90_s", arms[d.Arm], d.TTFTP90S)
	}
}

// checkSame compares a summary.json value (rounded to 12 significant
// digits, null when missing) with DuckDB's.
func checkSame(t *testing.T, run, key string, got any, want *float64) {
	t.Helper()
	g, ok := got.(float64)
	switch {
	case want == nil && got == nil:
	case want == nil || !ok:
		t.Errorf("%s %s: summary.json %v, DuckDB %v", run, key, got, deref(want))
	case math.Abs(g-*want) > 1e-11*math.Max(1e-3, math.Abs(*want)):
		t.Errorf("%s %s: summary.json %.15g, DuckDB %.15g", run, key, g, *want)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
