package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/internal/browsertest"
	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/report/render"
	"github.com/outlast-dev/outlast/schema"
)

func TestBuildPairedTable2(t *testing.T) {
	doc, sum := buildFixture(t, Options{Title: "t", Dataset: "fixture", Version: "test"})
	tab := findTable(t, doc, "table2-paired-test")
	want := [][]string{
		// seed, twin hit, twin sessions, burst hit, burst sessions
		{"1", "0.95", "8", "0.10∗", "40"},
		{"2", "0.95", "8", "0.10∗", "40"},
		{"3", "0.95", "8", "0.95", "8"},
	}
	checkTableText(t, tab, want)
	// 2 discordant pairs, both burst-only: p = 2·(1/2)² = 0.5.
	e := findExperiment(t, sum, "paired-test")
	st := e.SignTest
	if st == nil || st.NDiscordant != 2 || st.BurstOnly != 2 || st.TwinOnly != 0 || st.Neither != 1 || !same(st.P, 0.5) {
		t.Errorf("sign test = %+v, want 2 discordant, 2 burst-only, 1 neither, p 0.5", st)
	}
	if e.FeaturedSeed == nil || *e.FeaturedSeed != 1 {
		t.Errorf("featured seed = %v, want the smallest, 1", e.FeaturedSeed)
	}
	sign := findTable(t, doc, "sign-paired-test")
	if got := sign.Rows[0][6].String(); got != "0.5" {
		t.Errorf("sign table p = %q, want 0.5", got)
	}
}

func TestBuildSummaryRuns(t *testing.T) {
	_, sum := buildFixture(t, Options{})
	type want struct {
		verdict             string
		endHit, endSessions float64
		firstDegraded, peak float64
		recoveryMin, nStar  float64
		recoveryStatus      string
	}
	nan := math.NaN()
	cases := map[string]want{
		// Degraded from the window starting at the trigger's end, 1200 s.
		"s1-burst":    {"persistent", 0.1, 40, 1200, 0.4, nan, 100, ""},
		"s1-no-burst": {"never-degraded", 0.95, 8, nan, 0.08, nan, 100, ""},
		"s3-burst":    {"never-degraded", 0.95, 8, nan, 0.08, nan, 100, ""},
		// Windows are aligned to the trigger's end, 540 s: [540, 840)
		// holds 5 turns at 0.95 and 25 at 0.10, hit 0.24, so it is the first
		// degraded one. Collapsed at control (minute 20); the budgeter's
		// first window after control is healthy: recovered under control
		// after 0 minutes ("<5"); without a controller it stays degraded
		// to the end: persistent.
		"r1-budgeter": {"recovered-under-control", 0.95, 20, 540, 0.2, 0, 100, "recovered"},
		"r1-none":     {"persistent", 0.1, 20, 540, 0.2, nan, 100, "not recovered"},
	}
	seen := 0
	for _, r := range sum.Runs {
		w, ok := cases[r.Run]
		if !ok {
			continue
		}
		seen++
		if r.Verdict != w.verdict || !same(r.EndHitRatio, w.endHit) || !same(r.EndSessions, w.endSessions) ||
			!same(r.FirstDegradedS, w.firstDegraded) || !same(r.PeakDemandRatio, w.peak) ||
			!same(r.RecoveryMin, w.recoveryMin) || !same(r.NStar, w.nStar) || r.RecoveryStatus != w.recoveryStatus {
			t.Errorf("%s: got verdict %s end hit %v sessions %v first degraded %v peak %v recovery %v (%s) N* %v; want %+v",
				r.Run, r.Verdict, r.EndHitRatio, r.EndSessions, r.FirstDegradedS, r.PeakDemandRatio, r.RecoveryMin, r.RecoveryStatus, r.NStar, w)
		}
		if len(r.Warnings) != 0 {
			t.Errorf("%s: unexpected warnings %q", r.Run, r.Warnings)
		}
	}
	if seen != len(cases) {
		t.Errorf("found %d of %d runs in the summary", seen, len(cases))
	}
	// The calibration fit is exact: a = 1 s, b = 1e-4 s/token, R² = 1.
	// The shape 1000 + 100·k tokens for k < 25 sums to 25·1000 + 100·300
	// = 55,000 tokens, so S = 25·1 + 1e-4·55,000 = 30.5 s.
	e := findExperiment(t, sum, "cal-test")
	if e.Fit == nil || !near(e.Fit.A, 1) || !near(e.Fit.B, 1e-4) || !near(e.Fit.R2, 1) || e.Fit.N != 3 ||
		!near(e.Fit.S, 30.5) || !near(e.Fit.DrainRate, 1/30.5) {
		t.Errorf("calibration fit = %+v, want a 1, b 1e-4, R² 1, 3 windows, S 30.5", e.Fit)
	}
	if sum.CostFit == nil || sum.CostFit.Source != "calibration" {
		t.Errorf("cost_fit = %+v, want the calibration fit", sum.CostFit)
	}
	// Regime map: λ·T·Z·L̄/C = 0.01·25·5·2200/100000 = 0.0275, with L̄ =
	// 1000 + 100·12 = 2200 (the shape's mean); λ = 1/S lies at
	// 2.75/30.5. The caching-off run is left out.
	for _, p := range sum.RegimeMap {
		switch p.Run {
		case "s1-burst":
			if !near(p.OfferedLoad, 0.0275) || !near(p.DrainLoad, 2.75/30.5) || !same(p.PeakDemandRatio, 0.4) || !p.ShapeContext {
				t.Errorf("regime map %s = %+v, want x 0.0275, drain 0.0902, y 0.4", p.Run, p)
			}
		case "cal":
			t.Error("the caching-off run is on the regime map")
		}
	}
	if sum.SchemaVersion != SummaryVersion {
		t.Errorf("schema_version = %q", sum.SchemaVersion)
	}
}

func TestBuildRecoveryTable3(t *testing.T) {
	doc, sum := buildFixture(t, Options{})
	tab := findTable(t, doc, "table3-recovery-test")
	want := [][]string{
		{"budgeter", "3/3", "<5", "0.95", "–"},
		{"none", "0/3", "–", "0.10", "–"},
	}
	checkTableText(t, tab, want)
	e := findExperiment(t, sum, "recovery-test")
	if len(e.MatchedSeeds) != 3 {
		t.Errorf("matched seeds = %v, want 1, 2, 3", e.MatchedSeeds)
	}
	// budgeter recovers on all 3 seeds, none on none: 3 discordant seeds,
	// exact McNemar p = 2·(1/2)³ = 0.25.
	if len(e.Pairwise) != 1 {
		t.Fatalf("pairwise = %+v, want one comparison", e.Pairwise)
	}
	pw := e.Pairwise[0]
	if pw.ArmA != "budgeter" || pw.ArmB != "none" || pw.AOnly != 3 || pw.BOnly != 0 || pw.Seeds != 3 || !same(pw.P, 0.25) {
		t.Errorf("pairwise = %+v, want budgeter 3 only, p 0.25", pw)
	}
}

func TestBuildMixShift(t *testing.T) {
	_, sum := buildFixture(t, Options{})
	// Waits 30 and 3600 s: p90 = 30 + 0.9·(3600 − 30) = 3243 s (type 7).
	p := findExperiment(t, sum, "mix-test").Points
	if len(p) != 1 || p[0].Sessions != 2 || p[0].Censored != 1 || !near(p[0].P90WaitS, 3243) || !same(p[0].EndHitRatio, 0.95) {
		t.Errorf("points = %+v, want 2 sessions, 1 censored, p90 3243 s, end hit 0.95", p)
	}
}

func TestBuildObserveGaps(t *testing.T) {
	doc, sum := buildFixture(t, Options{})
	e := findExperiment(t, sum, "observe-test")
	if e.Design != schema.DesignObserve {
		t.Errorf("unknown design became %q, want observe", e.Design)
	}
	f := findFigure(t, doc, "obs-observe-test-o1-hit").(*document.TimeSeries)
	hit := f.Series[0]
	for i, x := range hit.X {
		if gap := x > 10 && x < 20; gap != math.IsNaN(hit.Y[i]) {
			t.Errorf("minute %v: hit %v; want a gap exactly in minutes 10–20", x, hit.Y[i])
		}
	}
	for _, r := range sum.Runs {
		if r.Run == "o1" && (!same(r.NStar, math.NaN()) || !same(r.PeakDemandRatio, math.NaN()) || len(r.Warnings) == 0) {
			t.Errorf("o1 without C: N* %v, peak D/C %v, warnings %q; want nulls and a warning", r.NStar, r.PeakDemandRatio, r.Warnings)
		}
	}
	b, err := render.JSON(sum)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"n_star": null`)) {
		t.Error("summary.json: missing N* is not null")
	}
}

func TestBuildDrainAndCounts(t *testing.T) {
	doc, sum := buildFixture(t, Options{})
	// d1 has 8 open sessions; s000 has completed more than its 25 planned
	// turns by minute 10, the 7 others none, so each of those still needs
	// S = 30.5 engine-seconds (calibration fit): W = 213.5 at every sample
	// (minutes 10, 20, ..., 60, the run's end, where the open sessions are
	// still in the system), a slope of 0.
	e := findExperiment(t, sum, "drain-test")
	if len(e.Slopes) != 1 || e.Slopes[0].Points != 6 || !near(e.Slopes[0].SlopePerHour+1, 1) || !same(e.Slopes[0].RateAfter, 0.005) {
		t.Errorf("slopes = %+v, want one run, 6 samples, slope 0", e.Slopes)
	}
	w := findFigure(t, doc, "drain-drain-test").(*document.TimeSeries)
	for i, y := range w.Series[0].Y {
		if math.Abs(y-213.5) > 1e-9 || w.Series[0].X[i] != 10+10*float64(i) {
			t.Errorf("W(%v min) = %v, want 213.5 at minute %v", w.Series[0].X[i], y, 10+10*i)
		}
	}
	// A zero slope neither drains nor grows.
	b := e.Bracket
	if b == nil || len(b.Rates) != 1 || b.Rates[0].Verdict != "undecided" || strings.Join(b.Rates[0].Runs, ",") != "d1" || !same(b.LargestNotGrowing, 0.005) ||
		!same(b.SmallestGrowing, math.NaN()) || !near(b.ModelRate, 1/30.5) {
		t.Errorf("bracket = %+v", b)
	}
	c := findExperiment(t, sum, "prevention-test").Counts
	want := []SummaryCount{
		{Trigger: "burst", Control: "budgeter", Runs: 1, NeverDegraded: 1},
		{Trigger: "burst", Control: "none", Runs: 1, Persistent: 1},
	}
	if len(c) != len(want) || c[0] != want[0] || c[1] != want[1] {
		t.Errorf("counts = %+v, want %+v", c, want)
	}
}

func TestBuildDeterministic(t *testing.T) {
	render := func(runs []*schema.RunData) ([]byte, []byte) {
		return pageBytes(t, Slice(runs), Options{Title: "t", Dataset: "fixture", Version: "test"})
	}
	runs := fixtureRuns()
	h1, j1 := render(runs)
	// The same runs in reverse order must give the same bytes.
	rev := make([]*schema.RunData, len(runs))
	for i, r := range runs {
		rev[len(runs)-1-i] = r
	}
	h2, j2 := render(rev)
	if !bytes.Equal(h1, h2) {
		t.Error("HTML differs between two builds of the same dataset")
	}
	if !bytes.Equal(j1, j2) {
		t.Error("summary.json differs between two builds of the same dataset")
	}
	// ECharts' own source mentions NaN; the page around it must not.
	if page := withoutScripts(h1); bytes.Contains(page, []byte("NaN")) {
		t.Error("HTML contains NaN outside the embedded ECharts")
	}
}

func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SOURCE_DATE_EPOCH", "86400")
	if _, err := Write(dir, Slice(fixtureRuns()), Options{Dataset: "fixture"}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"index.html", "summary.json", "tables/overview.csv", "tables/table2-paired-test.md", "tables/table3-recovery-test.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	var s map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if got := s["provenance"].(map[string]any)["date"]; got != "1970-01-02" {
		t.Errorf("date = %v, want 1970-01-02 from SOURCE_DATE_EPOCH", got)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	if !bytes.Contains(html, []byte("1970-01-02")) {
		t.Error("index.html does not show the SOURCE_DATE_EPOCH date")
	}
}

// TestBuildInBrowser loads the report of the fixture dataset in headless
// Chromium: every figure must become a chart that initialises and draws,
// with no page error and no request.
func TestBuildInBrowser(t *testing.T) {
	browsertest.Require(t)
	dir := t.TempDir()
	opt := Options{Dataset: "fixture"}
	if _, err := Write(dir, Slice(fixtureRuns()), opt); err != nil {
		t.Fatal(err)
	}
	doc, _, err := Build(fixtureRuns(), opt)
	if err != nil {
		t.Fatal(err)
	}
	r := browsertest.Check(t, filepath.Join(dir, "index.html"))
	if n := len(document.Figures(doc)); r.Charts != n || n < 15 {
		t.Errorf("the page has %d charts, the report %d figures (want at least 15)", r.Charts, n)
	}
	// Among the charts that drew: TTFT over time and the arms' latency
	// distributions.
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"latency-time-paired-test-ttft", "latency-paired-test-cdf-ttft", "latency-paired-test-cdf-e2e", "latency-paired-test-goodput"} {
		if !bytes.Contains(page, []byte(`id="`+document.ChartID(id)+`"`)) {
			t.Errorf("the page has no chart %s", id)
		}
	}
	// The top of the page: the findings, then the sortable overview.
	browsertest.SaveScreenshot(t, filepath.Join(dir, "index.html"), "report-findings.png", 1280, 2000, 50_000)
}

func TestBuildErrors(t *testing.T) {
	if _, _, err := Build(nil, Options{}); err == nil {
		t.Error("Build of no runs: want an error")
	}
	runs := fixtureRuns()
	if _, _, err := Build(append(runs, runs[0]), Options{}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate run: err = %v", err)
	}
}

func TestBuildFeaturedSeedOption(t *testing.T) {
	seed := int64(2)
	_, sum := buildFixture(t, Options{Seed: &seed})
	for _, name := range []string{"paired-test", "recovery-test"} {
		if e := findExperiment(t, sum, name); e.FeaturedSeed == nil || *e.FeaturedSeed != 2 {
			t.Errorf("%s: featured seed = %v, want 2", name, e.FeaturedSeed)
		}
	}
}

// TestBuildFeaturedSeedMissing asks for a seed no experiment has: the
// figures show another, and a warning says so.
func TestBuildFeaturedSeedMissing(t *testing.T) {
	seed := int64(999)
	_, sum := buildFixture(t, Options{Seed: &seed})
	n := 0
	for _, f := range sum.Findings {
		if f.Kind == "seed-missing" {
			n++
			if !f.Warning || !strings.Contains(f.Text, "--seed 999 has no run to feature here") {
				t.Errorf("finding %+v", f)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d seed-missing findings, want one for each of the 2 experiments with single-seed figures", n)
	}
}

func TestBuildFigure1(t *testing.T) {
	doc, _ := buildFixture(t, Options{})
	f, ok := findFigure(t, doc, "fig1-paired-test-hit").(*document.TimeSeries)
	if !ok {
		t.Fatal("Figure 1 hit panel is not a time series")
	}
	if len(f.Bands) != 1 || f.Bands[0].From != 15 || f.Bands[0].To != 20 {
		t.Errorf("bands = %+v, want the burst from minute 15 to 20", f.Bands)
	}
	if len(f.Marks) != 0 {
		t.Errorf("marks = %+v, want none: control kind none", f.Marks)
	}
	if len(f.Series) != 2 || f.Series[0].Name != "no burst (twin)" || f.Series[1].Name != "burst" {
		t.Fatalf("series = %d, want twin then burst", len(f.Series))
	}
	// 60 one-minute windows, plotted at their middles; 6 turns each: the
	// twin at 950/1000, the burst at 100/1000 from minute 20.
	twin, burst := f.Series[0], f.Series[1]
	if len(twin.X) != 60 || twin.X[0] != 0.5 || twin.X[59] != 59.5 {
		t.Fatalf("x = %d points from %v, want 60 from 0.5", len(twin.X), twin.X[:1])
	}
	for i := range twin.X {
		want := 0.95
		if twin.X[i] > 20 {
			want = 0.1
		}
		if twin.Y[i] != 0.95 || burst.Y[i] != want {
			t.Fatalf("minute %v: twin %v burst %v, want 0.95 and %v", twin.X[i], twin.Y[i], burst.Y[i], want)
		}
	}
	s := findFigure(t, doc, "fig1-paired-test-sessions").(*document.TimeSeries)
	if s.Series[0].Y[30] != 8 || s.Series[1].Y[30] != 40 {
		t.Errorf("sessions at minute 30: twin %v burst %v, want 8 and 40", s.Series[0].Y[30], s.Series[1].Y[30])
	}
}

// TestVersionsGetSections builds an experiment whose seeds ran on two
// engine versions: each version gets its section, whose pairs and counts
// hold only its runs (pairing by seed would otherwise take one version's
// run of each seed and leave the other's out).
func TestVersionsGetSections(t *testing.T) {
	var runs []*schema.RunData
	for _, v := range []string{"0.10.1", "0.11.0"} {
		for _, arm := range []string{"burst", "no-burst"} {
			r := pairRun("v"+v+"-s1-"+arm, "p", arm, 1).build()
			r.Run.EngineVersion = v
			runs = append(runs, r)
		}
	}
	// A run whose version is unknown is no other release: it joins the one
	// known version of its engine (here in experiment q), and "v0.9.0"
	// is 0.9.0.
	for _, name := range []string{"q-s1-burst", "q-s1-no-burst"} {
		r := pairRun(name, "q", strings.TrimPrefix(name, "q-s1-"), 1).build()
		r.Run.EngineVersion = ""
		if name == "q-s1-burst" {
			r.Run.EngineVersion = "v0.9.0"
		}
		runs = append(runs, r)
	}
	// With two known versions, a run whose version is unknown gets a
	// section of its own, whose engine_version is absent.
	for _, v := range []string{"0.10.1", "0.11.0", ""} {
		r := pairRun("r-"+v, "r", "burst", 1).build()
		r.Run.EngineVersion = v
		runs = append(runs, r)
	}
	_, sum, err := Build(runs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range sum.Experiments {
		got = append(got, fmt.Sprintf("%s %s [%s|%s]: %s", e.Experiment, e.Engine, e.EngineName, e.EngineVersion, strings.Join(e.Runs, " ")))
	}
	want := []string{
		"p vllm 0.10.1 [vllm|0.10.1]: v0.10.1-s1-burst v0.10.1-s1-no-burst",
		"p vllm 0.11.0 [vllm|0.11.0]: v0.11.0-s1-burst v0.11.0-s1-no-burst",
		"q  [|]: q-s1-burst q-s1-no-burst",
		"r vllm (version unknown) [vllm|]: r-",
		"r vllm 0.10.1 [vllm|0.10.1]: r-0.10.1",
		"r vllm 0.11.0 [vllm|0.11.0]: r-0.11.0",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sections:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range sum.Findings {
		if f.Kind == "sign-test-pooled" || f.Kind == "pair-split" {
			continue // about the experiment over its sections: no engine
		}
		if f.Experiment == "p" && (f.EngineName != "vllm" || "vllm "+f.EngineVersion != f.Engine) {
			t.Errorf("finding %s of %s: engine %q, name %q, version %q", f.Kind, f.Experiment, f.Engine, f.EngineName, f.EngineVersion)
		}
	}
}

func TestBuildFeaturesTypicalPair(t *testing.T) {
	// Seed 1: neither run degraded; seed 2: only the burst run did. Without
	// Options.Seed the figures show seed 2, the pair the paper's Figure 1
	// shows.
	var runs []*schema.RunData
	for _, seed := range []int64{1, 2} {
		for _, arm := range []string{"burst", "no-burst"} {
			r := pairRun(fmt.Sprintf("s%d-%s", seed, arm), "p", arm, seed)
			if seed == 2 && arm == "burst" {
				r.DropS = 1200
			}
			runs = append(runs, r.build())
		}
	}
	_, sum, err := Build(runs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e := findExperiment(t, sum, "p"); e.FeaturedSeed == nil || *e.FeaturedSeed != 2 {
		t.Errorf("featured seed = %v, want 2", e.FeaturedSeed)
	}
	one := int64(1)
	_, sum, err = Build(runs, Options{Seed: &one})
	if err != nil {
		t.Fatal(err)
	}
	if e := findExperiment(t, sum, "p"); e.FeaturedSeed == nil || *e.FeaturedSeed != 1 {
		t.Errorf("with Options.Seed 1: featured seed = %v, want 1", e.FeaturedSeed)
	}
}

// TestBuildKeepsNoTables measures every run, then overwrites the runs'
// tables before the report is put together: the report must come out the
// same, so nothing of a run's tables outlives its measuring (memory
// bounded by the largest run, not by the number of runs).
func TestBuildKeepsNoTables(t *testing.T) {
	opt := Options{Dataset: "fixture"}
	_, want := buildFixture(t, opt)
	runs := fixtureRuns()
	b := newBuilder(opt)
	for _, rd := range runs {
		if err := b.add(rd); err != nil {
			t.Fatal(err)
		}
	}
	b.wait()
	for _, rd := range runs {
		for i := range rd.Turns {
			rd.Turns[i] = schema.Turn{Session: "gone", DoneS: -1}
		}
		for i := range rd.Sessions {
			rd.Sessions[i] = schema.Session{Session: "gone"}
		}
		rd.Turns, rd.Sessions, rd.Engine, rd.Events = rd.Turns[:0], rd.Sessions[:0], nil, nil
		rd.Run = schema.Run{Run: "gone"}
	}
	_, got, err := b.finish()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := render.JSON(want)
	c, _ := render.JSON(got)
	if !bytes.Equal(a, c) {
		t.Error("the report changed when each run's tables were overwritten after it was measured")
	}
}

// TestReloadSameReport checks that a report which keeps no run's series and
// reads the figures' runs again (Options.Reload) writes the same bytes as
// one that keeps every run's series, and that it reads again only some of
// the runs: those its figures draw.
func TestReloadSameReport(t *testing.T) {
	for _, tc := range []struct {
		name string
		runs func(*testing.T) []*schema.RunData
	}{
		{"fixtures/real", realFixtures},
		{"handbuilt", func(*testing.T) []*schema.RunData { return fixtureRuns() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			build := func(opt Options) ([]byte, []byte) { return pageBytes(t, Slice(tc.runs(t)), opt) }
			opt := Options{Title: "t", Dataset: tc.name, Version: "test"}
			h1, j1 := build(opt)
			reloaded := map[string]int{}
			opt.Reload = func(run string) (*schema.RunData, error) {
				reloaded[run]++
				for _, rd := range tc.runs(t) { // a fresh copy: the report owns what it is given
					if rd.Run.Run == run {
						return rd, nil
					}
				}
				return nil, errors.New("no such run")
			}
			h2, j2 := build(opt)
			if !bytes.Equal(h1, h2) {
				t.Error("the HTML differs when the figures' runs are read again")
			}
			if !bytes.Equal(j1, j2) {
				t.Error("summary.json differs when the figures' runs are read again")
			}
			for run, n := range reloaded {
				if n != 1 {
					t.Errorf("run %s read again %d times, want once", run, n)
				}
			}
			if n := len(tc.runs(t)); len(reloaded) == 0 || tc.name == "handbuilt" && len(reloaded) >= n {
				t.Errorf("%d of %d runs read again", len(reloaded), n)
			}
		})
	}
}

// TestReloadError checks that a run the report cannot read again for its
// figures fails the report with that run's error.
func TestReloadError(t *testing.T) {
	bad := errors.New("gone")
	_, _, err := BuildFrom(Slice(fixtureRuns()), Options{Reload: func(string) (*schema.RunData, error) { return nil, bad }})
	if !errors.Is(err, bad) {
		t.Fatalf("err = %v, want the reload's error", err)
	}
}

// TestUnjudgedPairArmIsNull builds two pairs, the second's twin without
// cached-token counts: in summary.json its persistent is null, not false
// (false would count it healthy), and the sign test says one pair was
// left out.
func TestUnjudgedPairArmIsNull(t *testing.T) {
	var runs []*schema.RunData
	for _, seed := range []int64{1, 2} {
		for _, arm := range []string{"burst", "no-burst"} {
			r := pairRun(fmt.Sprintf("s%d-%s", seed, arm), "p", arm, seed).build()
			if seed == 2 && arm == "no-burst" {
				for i := range r.Turns {
					r.Turns[i].CachedTokens = 0
				}
				r.Run.CacheReported = new(bool)
			}
			runs = append(runs, r)
		}
	}
	_, sum, err := Build(runs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := findExperiment(t, sum, "p")
	if len(e.Pairs) != 2 || e.Pairs[0].Twin.Persistent == nil || *e.Pairs[0].Twin.Persistent || e.Pairs[1].Twin.Persistent != nil || e.Pairs[1].Burst.Persistent == nil {
		t.Errorf("pairs %+v: want the second twin's persistent null, the others known", e.Pairs)
	}
	if s := e.SignTest; s == nil || s.Pairs != 1 || s.Unjudged != 1 {
		t.Errorf("sign test %+v, want 1 pair and 1 unjudged", s)
	}
}
