package compare

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/internal/golden"
	"github.com/outlast-dev/outlast/internal/slowtest"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
	"github.com/outlast-dev/outlast/stats"
)

// The simulated "engine versions" of the golden tests: the paper's paired
// design (λ = 0.035, 8 seeds, 60 minutes). v2 differs from v1 in a way the
// comparison must detect (half the KV pool: the twins collapse too); v3
// does not (the v1 engine on other seeds).
var simulatedVersions = []struct {
	name      string
	pool      int
	firstSeed uint64
}{{"v1", 400000, 501}, {"v2", 200000, 501}, {"v3", 400000, 601}}

var (
	simOnce sync.Once
	simRuns map[string][]*schema.RunData
	simErr  error
)

// simulated returns the runs of each simulated version, simulating and
// ingesting them once per test binary.
func simulated(t *testing.T) map[string][]*schema.RunData {
	t.Helper()
	if testing.Short() {
		t.Skip("simulates three datasets")
	}
	slowtest.SkipUnderRace(t, "simulates three datasets")
	simOnce.Do(func() { simRuns, simErr = simulate() })
	if simErr != nil {
		t.Fatal(simErr)
	}
	return simRuns
}

func simulate() (map[string][]*schema.RunData, error) {
	dir, err := os.MkdirTemp("", "outlast-compare-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := map[string][]*schema.RunData{}
	for _, v := range simulatedVersions {
		cfg, err := sim.Defaults("paired")
		if err != nil {
			return nil, err
		}
		cfg.Seeds, cfg.FirstSeed, cfg.PoolTokens, cfg.DurationS = 8, v.firstSeed, v.pool, 3600
		paths, err := sim.WriteExperiment(filepath.Join(dir, v.name), cfg)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			res, err := rundir.Read(p, rundir.Options{Version: "test"})
			if err != nil {
				return nil, err
			}
			out[v.name] = append(out[v.name], res.Data)
		}
	}
	return out, nil
}

// render writes res in every text format under testdata/stem.{txt,csv,json}.
func render(t *testing.T, stem string, res *Result) {
	t.Helper()
	for _, f := range []struct {
		ext   string
		write func(*bytes.Buffer) error
	}{
		{"txt", func(b *bytes.Buffer) error { return res.WriteText(b) }},
		{"csv", func(b *bytes.Buffer) error { return res.WriteCSV(b) }},
		{"json", func(b *bytes.Buffer) error { return res.WriteJSON(b) }},
	} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", stem+"."+f.ext), b.Bytes())
	}
}

func significantRows(res *Result) []string {
	var out []string
	for _, tb := range res.Tables {
		for _, r := range tb.Rows {
			for _, c := range r.Cells {
				if c.Vs != nil && c.Vs.Significant {
					out = append(out, fmt.Sprintf("%s %s %s", tb.Measure.ID, r.Config, c.Column))
				}
			}
		}
	}
	return out
}

func TestGoldenPoolHalved(t *testing.T) {
	runs := simulated(t)
	res, err := Compare([]Column{{"v1", runs["v1"]}, {"v2", runs["v2"]}}, Options{Ignore: []string{"pool"}})
	if err != nil {
		t.Fatal(err)
	}
	// The comparison must detect the smaller pool: the twins (no burst)
	// collapse on it, paired on the same seeds.
	tb := table(t, res, MeasureCollapseRate)
	var found bool
	for _, r := range tb.Rows {
		if r.Config == "arm=no-burst" {
			d := r.Cells[1].Vs
			found = d != nil && d.Paired && d.Test == TestMcNemar && d.Significant && d.Higher
		}
	}
	if !found {
		t.Errorf("halving the pool: no significant rise of the twins' collapse rate (paired McNemar); significant: %v", significantRows(res))
	}
	render(t, "pool-halved", res)
}

func TestGoldenSameEngine(t *testing.T) {
	runs := simulated(t)
	res, err := Compare([]Column{{"v1", runs["v1"]}, {"v3", runs["v3"]}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The same engine on other seeds: independent tests, nothing
	// significant.
	if s := significantRows(res); len(s) > 0 {
		t.Errorf("same engine, other seeds: significant rows %v", s)
	}
	for _, tb := range res.Tables {
		for _, r := range tb.Rows {
			if d := r.Cells[1].Vs; d != nil && d.Paired {
				t.Errorf("%s %s: paired, but the seeds differ", tb.Measure.ID, r.Config)
			}
		}
	}
	render(t, "same-engine", res)
}

func TestGoldenSplitBy(t *testing.T) {
	runs := simulated(t)
	all := append(append([]*schema.RunData(nil), runs["v2"]...), runs["v3"]...)
	cols, err := SplitBy(all, "kv_pool_tokens")
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 2 || cols[0].Label != "200000" || cols[1].Label != "400000" {
		t.Fatalf("columns %v, want 200000 then 400000", cols)
	}
	res, err := Compare(cols, Options{By: "kv_pool_tokens", Measures: []string{MeasureCollapseRate}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ignored) != 1 || res.Ignored[0] != FieldPool {
		t.Errorf("ignored %v, want the pool (the --by column's field)", res.Ignored)
	}
	var b bytes.Buffer
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "split-by-pool.txt"), b.Bytes())
}

func TestCompareDeterministic(t *testing.T) {
	runs := simulated(t)
	// Input order does not matter: runs are taken by name.
	rev := append([]*schema.RunData(nil), runs["v1"]...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	var outs [2]bytes.Buffer
	for k, v1 := range [][]*schema.RunData{runs["v1"], rev} {
		res, err := Compare([]Column{{"v1", v1}, {"v2", runs["v2"]}}, Options{Ignore: []string{"pool"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := res.WriteJSON(&outs[k]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(outs[0].Bytes(), outs[1].Bytes()) {
		t.Error("the comparison depends on the order of the runs")
	}
}

// TestFitTables compares the cold-cost fits of two simulated calibration
// experiments of the same engine (seeds 501–502 and 601–602).
func TestFitTables(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates two calibration experiments")
	}
	slowtest.SkipUnderRace(t, "simulates two calibration experiments")
	dir := t.TempDir()
	var cols []Column
	for _, first := range []uint64{501, 601} {
		cfg, err := sim.Defaults("calibration")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Seeds, cfg.FirstSeed = 2, first
		paths, err := sim.WriteExperiment(filepath.Join(dir, fmt.Sprint(first)), cfg)
		if err != nil {
			t.Fatal(err)
		}
		col := Column{Label: fmt.Sprintf("seeds%d", first)}
		for _, p := range paths {
			res, err := rundir.Read(p, rundir.Options{Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			col.Runs = append(col.Runs, res.Data)
		}
		cols = append(cols, col)
	}
	res, err := Compare(cols, Options{Measures: []string{MeasureColdCostB, MeasureDrainBound}})
	if err != nil {
		t.Fatal(err)
	}
	sameAsFacts(t, cols, Options{Measures: []string{MeasureColdCostB, MeasureDrainBound}})
	if len(res.Tables) != 2 {
		t.Fatalf("%d tables, want the two fits", len(res.Tables))
	}
	b, bound := res.Tables[0].Rows[0], res.Tables[1].Rows[0]
	for j := range cols {
		// S over the synthetic shape (25 turns from 6,144 tokens, +1,324
		// a turn): 25·a + b·(25·6144 + 1324·(0+1+…+24)) = 25·a + 550800·b.
		var x []*stats.RunIndex
		for _, rd := range cols[j].Runs {
			x = append(x, stats.NewRunIndex(rd))
		}
		fit, err := stats.FitColdCost(stats.CalibrationWindows(x, stats.ColdCostOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := float64(b.Cells[j].Value), fit.B*1e3; !near(got, want) {
			t.Errorf("%s: b = %v ms/token, want %v", cols[j].Label, got, want)
		}
		if got, want := float64(bound.Cells[j].Value), 1/(25*fit.A+550800*fit.B); !near(got, want) {
			t.Errorf("%s: 1/S = %v, want %v", cols[j].Label, got, want)
		}
	}
	for _, tb := range res.Tables {
		d := tb.Rows[0].Cells[1].Vs
		if d == nil || d.Test != TestZ || d.Significant || !(float64(d.DiffLo) < float64(d.Diff) && float64(d.Diff) < float64(d.DiffHi)) {
			t.Errorf("%s: %+v, want a non-significant z-test with an interval around the difference", tb.Measure.ID, d)
		}
	}
	var out bytes.Buffer
	if err := res.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "calibration-fits.txt"), out.Bytes())
}
