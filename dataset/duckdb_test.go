package dataset

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/internal/duckdbtest"
	"github.com/outlast-dev/outlast/schema"
)

// duckdb runs sql in DuckDB (tools/duckdb), or skips the test without it.
func duckdb(t *testing.T, sql string) string { return duckdbtest.Query(t, sql) }

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
