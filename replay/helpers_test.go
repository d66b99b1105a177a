package replay

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
)

var full = flag.Bool("full", false, "run the validations at full scale (16 seeds of full-length runs; minutes)")

// simulated simulates every seed and arm of cfg, writes the run
// directories and reads them back as outlast ingest does.
func simulated(t testing.TB, cfg sim.Config) []*schema.RunData {
	t.Helper()
	dirs, err := sim.WriteExperiment(t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*schema.RunData, len(dirs))
	for i, d := range dirs {
		out[i] = readRun(t, d)
	}
	return out
}

// readBack reads a replay's run directory as outlast ingest does.
func readBack(dir string) (*schema.RunData, []string, error) {
	res, err := rundir.Read(dir, rundir.Options{Version: "test"})
	if err != nil {
		return nil, nil, err
	}
	return res.Data, res.Warnings, nil
}

func readRun(t testing.TB, dir string) *schema.RunData {
	t.Helper()
	res, err := rundir.Read(dir, rundir.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return res.Data
}

func mustDefaults(t testing.TB, design string) sim.Config {
	t.Helper()
	cfg, err := sim.Defaults(design)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func mustFit(t testing.TB, rd *schema.RunData, calib ...*schema.RunData) *Fitted {
	t.Helper()
	m, err := Fit(rd, calib)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// replayed replays variants of m over seeds into a temporary directory.
func replayed(t testing.TB, m *Fitted, seeds int, variants ...Variant) []VariantResult {
	t.Helper()
	res, err := Replay(m, variants, Options{Seeds: seeds, Out: t.TempDir(), Read: readBack})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func fixture(name string) string { return filepath.Join("..", "fixtures", "real", name) }

// fixtureRuns lists the real-format fixture runs: every engine version and
// every load generator's format.
func fixtureRuns(t testing.TB) []string {
	t.Helper()
	manifests, err := filepath.Glob(filepath.Join("..", "fixtures", "real", "*", "run.yaml"))
	if err != nil || len(manifests) < 5 {
		t.Fatalf("fixture runs: %v (%d found)", err, len(manifests))
	}
	var out []string
	for _, m := range manifests {
		out = append(out, filepath.Base(filepath.Dir(m)))
	}
	return out
}
