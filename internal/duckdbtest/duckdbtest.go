// Package duckdbtest runs SQL in DuckDB for the tests that check a dataset
// reads back through another engine (tools/duckdb, installed by .ci/run).
package duckdbtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Query runs sql in DuckDB and returns its JSON lines. Locally without
// node or the package it skips the test; in CI (CI=true) their absence
// fails it, so a green CI has really read the dataset through DuckDB.
func Query(t testing.TB, sql string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "tools", "duckdb")
	_, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api"))
	if nodeErr != nil || modErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("DuckDB check needs node and tools/duckdb/node_modules (.ci/run installs them): %v %v", nodeErr, modErr)
		}
		t.Skip("node or tools/duckdb/node_modules missing; run: cd tools/duckdb && npm install --no-package-lock")
	}
	out, err := exec.Command("node", filepath.Join(dir, "query.mjs"), sql).CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}
