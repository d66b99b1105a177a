package dataset

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// duckdb runs sql in DuckDB (tools/duckdb, installed by .ci/run) and returns
// its JSON lines. Locally without node or the package it skips; in CI
// (CI=true) their absence fails the test, so a green CI has really read the
// dataset through DuckDB.
func duckdb(t *testing.T, sql string) string {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "tools", "duckdb"))
	_, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api"))
	if nodeErr != nil || modErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("DuckDB check needs node and tools/duckdb/node_modules (.ci/run installs them): %v %v", nodeErr, modErr)
		}
		t.Skip("node or tools/duckdb/node_modules missing; run: cd tools/duckdb && npm install --no-package-lock")
	}
	cmd := exec.Command("node", filepath.Join(dir, "query.mjs"), sql)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestDuckDBReadsDataset(t *testing.T) {
	root := t.TempDir()
	writeRuns(t, root, sampleRun("s501-burst"), sampleRun("s501-no-burst"))
	q := func(table, sel string, rest ...string) string {
		return duckdb(t, "SELECT "+sel+" FROM read_parquet('"+filepath.ToSlash(filepath.Join(root, table))+
			"/**/*.parquet', hive_partitioning=true) "+strings.Join(rest, " "))
	}
	if got, want := q(schema.TableTurns, "count(*) AS n, sum(prompt_tokens) AS p, sum(cached_tokens) AS c, count(sent_s) AS sent, min(done_s) AS first"),
		`{"n":4,"p":27224,"c":4096,"sent":2,"first":9.85}`; got != want {
		t.Errorf("turns via DuckDB:\n got %s\nwant %s", got, want)
	}
	if got, want := q(schema.TableRuns, "run, kv_pool_tokens, started_at::VARCHAR AS t0, seed", "ORDER BY run"),
		`{"run":"s501-burst","kv_pool_tokens":400000,"t0":"2026-10-27 12:00:00+00","seed":501}`+"\n"+
			`{"run":"s501-no-burst","kv_pool_tokens":400000,"t0":"2026-10-27 12:00:00+00","seed":501}`; got != want {
		t.Errorf("runs via DuckDB:\n got %s\nwant %s", got, want)
	}
	if got, want := q(schema.TableSessions, "count(*) AS n, count(end_s) AS ended"), `{"n":4,"ended":2}`; got != want {
		t.Errorf("sessions via DuckDB: got %s want %s", got, want)
	}
	if got, want := q(schema.TableEngine, "count(*) AS n, sum(counter_reset::INT) AS resets"), `{"n":4,"resets":2}`; got != want {
		t.Errorf("engine via DuckDB: got %s want %s", got, want)
	}
	if got := duckdb(t, "SELECT decode(value) AS value FROM parquet_kv_metadata('"+filepath.ToSlash(filepath.Join(PartitionDir(root, schema.TableTurns, "s501-burst"), FileName))+
		"') WHERE key = '"+schema.VersionKey+"'"); got != `{"value":"`+schema.Version+`"}` {
		t.Errorf("schema version metadata via DuckDB: %s", got)
	}
}
