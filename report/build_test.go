package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// fakeRun describes a hand-built run whose measures are known exactly:
// Sessions sessions arrive at t = 0 and never end, so the mean number in
// the system is Sessions at any time; one turn of 1000 prompt tokens
// completes every 10 s, with 950 cached (hit ratio 0.95) before DropS and
// 100 cached (0.10) from DropS on, then 950 again from RecoverS on. Every
// session's context is 1000 tokens and no output is generated, so
// D = 1000·Sessions and, with C = 100000, D/C = Sessions/100 and
// N* = C/L̄ = 100.
type fakeRun struct {
	Name, Experiment, Design, Arm string
	Seed                          int64
	Sessions                      int
	DropS, RecoverS               float64 // +Inf: never
	TriggerKind                   string
	TriggerStartS, TriggerEndS    float64
	ControlKind                   string
	ControlStartS                 float64 // NaN: no control
	DurationS                     float64
}

func (f fakeRun) build() *schema.RunData {
	i64 := func(v int64) *int64 { return &v }
	f64 := func(v float64) *float64 { return &v }
	rd := &schema.RunData{Run: schema.Run{
		Run: f.Name, Experiment: f.Experiment, Design: f.Design, Arm: f.Arm, Seed: i64(f.Seed),
		DurationS: f.DurationS, EngineName: "vllm", EngineVersion: "0.8.5", EngineModel: "test/model",
		PrefixCaching: true, KVPoolTokens: i64(100000), KVPoolSource: "manifest",
		ArrivalRate: f64(0.01), Turns: i64(25), ThinkMeanS: f64(5),
		SystemTokens: i64(500), TaskTokens: i64(500), OutputTokens: i64(0), ToolTokens: i64(100),
		WorkloadExtra: "{}", TriggerKind: f.TriggerKind, TriggerExtra: "{}", ControlKind: f.ControlKind,
		ControlParams: "{}", Labels: "{}", SchemaVersion: schema.Version, OutlastVersion: "test",
		ManifestSHA256: "m-" + f.Name, GatewaySHA256: "g-" + f.Name,
	}}
	if f.TriggerKind != "" {
		rd.Run.TriggerStartS, rd.Run.TriggerEndS = f64(f.TriggerStartS), f64(f.TriggerEndS)
		rd.Run.AlignS = f.TriggerEndS
	}
	if !math.IsNaN(f.ControlStartS) {
		rd.Run.ControlStartS = f64(f.ControlStartS)
		if f.TriggerKind == "" {
			rd.Run.AlignS = f.ControlStartS
		}
	}
	for k := 0; k < f.Sessions; k++ {
		rd.Sessions = append(rd.Sessions, schema.Session{
			Run: f.Name, Session: fmt.Sprintf("s%03d", k), Origin: "base", Status: "open", ContextTokens: i64(1000),
		})
	}
	for t := 10.0; t <= f.DurationS; t += 10 {
		cached := int64(950)
		if t >= f.DropS && t < f.RecoverS {
			cached = 100
		}
		sent := t - 2
		rd.Turns = append(rd.Turns, schema.Turn{
			Run: f.Name, Session: "s000", Turn: int32(t / 10), Origin: "base", ReadyS: f64(sent), SentS: f64(sent),
			DoneS: t, PromptTokens: 1000, CachedTokens: cached, Status: "ok",
		})
	}
	return rd
}

var inf = math.Inf(1)

// fixtureRuns is a small dataset with a paired and a recovery experiment
// whose every number is known by construction.
func fixtureRuns() []*schema.RunData {
	var runs []*schema.RunData
	pair := func(seed int64, burstDrops, twinDrops bool) {
		b := fakeRun{Name: fmt.Sprintf("s%d-burst", seed), Experiment: "paired-test", Design: "paired", Arm: "burst", Seed: seed,
			Sessions: 8, DropS: inf, RecoverS: inf, TriggerKind: "burst", TriggerStartS: 900, TriggerEndS: 1200,
			ControlKind: "none", ControlStartS: 0, DurationS: 3600}
		t := b
		t.Name, t.Arm, t.TriggerKind = fmt.Sprintf("s%d-no-burst", seed), "no-burst", "none"
		if burstDrops {
			b.DropS, b.Sessions = 1200, 40
		}
		if twinDrops {
			t.DropS, t.Sessions = 1800, 30
		}
		runs = append(runs, b.build(), t.build())
	}
	pair(1, true, false)
	pair(2, true, false)
	pair(3, false, false)
	// Recovery: collapsed from minute 10; the budgeter recovers as soon as
	// control starts at minute 20, no control never does.
	for seed := int64(1); seed <= 3; seed++ {
		for _, arm := range []string{"none", "budgeter"} {
			r := fakeRun{Name: fmt.Sprintf("r%d-%s", seed, arm), Experiment: "recovery-test", Design: "recovery", Arm: arm, Seed: seed,
				Sessions: 20, DropS: 600, RecoverS: inf, TriggerKind: "burst", TriggerStartS: 300, TriggerEndS: 540,
				ControlKind: arm, ControlStartS: 1200, DurationS: 3600}
			if arm == "budgeter" {
				r.RecoverS = 1200
			}
			runs = append(runs, r.build())
		}
	}
	runs = append(runs, calibrationRun())
	// Mix-shift: of 2 sessions arriving before the shift, s001's first turn
	// waits 30 s at the gateway and s000 never has a turn 0 (censored at
	// the end, 3600 s).
	m := fakeRun{Name: "m1", Experiment: "mix-test", Design: "mix-shift", Arm: "cap-10", Seed: 1, Sessions: 2,
		DropS: inf, RecoverS: inf, TriggerKind: "mix-shift", TriggerStartS: 1800, TriggerEndS: 1800,
		ControlKind: "session-cap", ControlStartS: 0, DurationS: 3600}.build()
	ready, sent := 0.0, 30.0
	m.Turns = append(m.Turns, schema.Turn{Run: "m1", Session: "s001", Turn: 0, Origin: "base", ReadyS: &ready, SentS: &sent,
		DoneS: 35, PromptTokens: 1000, CachedTokens: 950, Status: "ok"})
	runs = append(runs, m)
	// Observe: no KV pool size, and no turn completes in minutes 10–20.
	o := fakeRun{Name: "o1", Experiment: "observe-test", Design: "something-new", Arm: "none", Seed: 1, Sessions: 3,
		DropS: inf, RecoverS: inf, ControlStartS: math.NaN(), DurationS: 1800}.build()
	o.Run.KVPoolTokens = nil
	kept := o.Turns[:0]
	for _, tn := range o.Turns {
		if tn.DoneS < 600 || tn.DoneS >= 1200 {
			kept = append(kept, tn)
		}
	}
	o.Turns = kept
	runs = append(runs, o)
	// Drain: the rate drops to 0.005/s at minute 10.
	d := fakeRun{Name: "d1", Experiment: "drain-test", Design: "drain", Arm: "rate-0.005", Seed: 1, Sessions: 8,
		DropS: inf, RecoverS: inf, TriggerKind: "rate-change", TriggerStartS: 600, TriggerEndS: 600,
		ControlStartS: math.NaN(), DurationS: 3600}.build()
	after := 0.005
	d.Run.TriggerRateAfter = &after
	runs = append(runs, d)
	// Prevention: without control the burst leaves the run degraded, with
	// the budgeter from t = 0 it does not.
	for _, arm := range []string{"none", "budgeter"} {
		r := fakeRun{Name: "p-" + arm, Experiment: "prevention-test", Design: "prevention", Arm: arm, Seed: 1, Sessions: 8,
			DropS: 1200, RecoverS: inf, TriggerKind: "burst", TriggerStartS: 600, TriggerEndS: 720,
			ControlKind: arm, ControlStartS: 0, DurationS: 3600}
		if arm == "budgeter" {
			r.DropS = inf
		}
		runs = append(runs, r.build())
	}
	return runs
}

// calibrationRun is a caching-off run whose three 2-minute windows obey
// c(L) = 1 s + 1e-4 s/token·L exactly: 20 turns of 50,000 tokens
// (20 + 100 = 120 s), 40 of 20,000 (40 + 80) and 60 of 10,000 (60 + 60).
// Every turn is in flight for 200 s, and 4 more run from 0 to past the
// end, so at least 4 are running throughout each window.
func calibrationRun() *schema.RunData {
	f := fakeRun{Name: "cal", Experiment: "cal-test", Design: "nocache", Arm: "none", Seed: 1,
		Sessions: 4, ControlStartS: math.NaN(), DurationS: 360}
	rd := f.build()
	rd.Run.PrefixCaching = false
	rd.Turns = nil
	turn := int32(0)
	for k, w := range []struct {
		n      int
		prompt int64
	}{{20, 50000}, {40, 20000}, {60, 10000}} {
		for i := 0; i < w.n; i++ {
			done := float64(k)*120 + (float64(i)+0.5)*120/float64(w.n)
			sent := done - 200
			rd.Turns = append(rd.Turns, schema.Turn{Run: "cal", Session: "s000", Turn: turn, Origin: "base",
				SentS: &sent, DoneS: done, PromptTokens: w.prompt, Status: "ok"})
			turn++
		}
	}
	for i := 0; i < 4; i++ {
		sent := 0.0
		rd.Turns = append(rd.Turns, schema.Turn{Run: "cal", Session: "s001", Turn: int32(i), Origin: "base",
			SentS: &sent, DoneS: 400, PromptTokens: 1, Status: "ok"})
	}
	return rd
}

func TestBuildPairedTable2(t *testing.T) {
	doc, sum, err := Build(fixtureRuns(), Options{Title: "t", Dataset: "fixture", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	tab := findTable(t, doc, "table2-paired-test")
	want := [][]string{
		// seed, twin hit, twin sessions, burst hit, burst sessions
		{"1", "0.95", "8", "0.10∗", "40"},
		{"2", "0.95", "8", "0.10∗", "40"},
		{"3", "0.95", "8", "0.95", "8"},
	}
	if len(tab.Rows) != len(want) {
		t.Fatalf("Table 2 has %d rows, want %d", len(tab.Rows), len(want))
	}
	for i, row := range tab.Rows {
		for j, c := range row {
			if got := c.String() + c.Marker(); got != want[i][j] {
				t.Errorf("Table 2 row %d col %d = %q, want %q", i, j, got, want[i][j])
			}
		}
	}
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
	_, sum, err := Build(fixtureRuns(), Options{})
	if err != nil {
		t.Fatal(err)
	}
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
		"s1-no-burst": {"healthy", 0.95, 8, nan, 0.08, nan, 100, ""},
		"s3-burst":    {"healthy", 0.95, 8, nan, 0.08, nan, 100, ""},
		// Windows are aligned to the trigger's end, 540 s: [540, 840)
		// holds 5 turns at 0.95 and 25 at 0.10, hit 0.24, so it is the first
		// degraded one. Collapsed at control (minute 20); the budgeter's
		// first window after control is healthy: recovered after 0 minutes
		// ("<5").
		"r1-budgeter": {"recovered", 0.95, 20, 540, 0.2, 0, 100, "recovered"},
		"r1-none":     {"collapsed", 0.1, 20, 540, 0.2, nan, 100, "not recovered"},
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
	// Regime map: λT(Z+R₀)L̄/C = 0.01·25·(5+2)·2200/100000 = 0.0385, with
	// R₀ = 2 s (ready to done) and L̄ = 1000 + 100·12 = 2200 (the shape's
	// mean); λ = 1/S lies at 3.85/30.5. The caching-off run is left out.
	for _, p := range sum.RegimeMap {
		switch p.Run {
		case "s1-burst":
			if !near(p.OfferedLoad, 0.0385) || !near(p.DrainLoad, 3.85/30.5) || !same(p.PeakDemandRatio, 0.4) {
				t.Errorf("regime map %s = %+v, want x 0.0385, drain 0.1262, y 0.4", p.Run, p)
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
	doc, sum, err := Build(fixtureRuns(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tab := findTable(t, doc, "table3-recovery-test")
	want := [][]string{
		{"budgeter", "3/3", "<5", "0.95", "–"},
		{"none", "0/3", "–", "0.10", "–"},
	}
	for i, row := range tab.Rows {
		for j, c := range row {
			if got := c.display(); got != want[i][j] {
				t.Errorf("Table 3 row %d col %d = %q, want %q", i, j, got, want[i][j])
			}
		}
	}
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
	_, sum, err := Build(fixtureRuns(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Waits 30 and 3600 s: p90 = 30 + 0.9·(3600 − 30) = 3243 s (type 7).
	p := findExperiment(t, sum, "mix-test").Points
	if len(p) != 1 || p[0].Sessions != 2 || p[0].Censored != 1 || !near(p[0].P90WaitS, 3243) || !same(p[0].EndHitRatio, 0.95) {
		t.Errorf("points = %+v, want 2 sessions, 1 censored, p90 3243 s, end hit 0.95", p)
	}
}

func TestBuildObserveGaps(t *testing.T) {
	doc, sum, err := Build(fixtureRuns(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := findExperiment(t, sum, "observe-test")
	if e.Design != schema.DesignObserve {
		t.Errorf("unknown design became %q, want observe", e.Design)
	}
	f := findFigure(t, doc, "run-observe-test-o1").(*TimeSeries)
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
	b, err := MarshalJSONBytes(sum)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"n_star": null`)) {
		t.Error("summary.json: missing N* is not null")
	}
}

func TestBuildDrainAndCounts(t *testing.T) {
	doc, sum, err := Build(fixtureRuns(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// d1 has 8 open sessions; s000 has completed more than its 25 planned
	// turns by minute 10, the 7 others none, so each of those still needs
	// S = 30.5 engine-seconds (calibration fit): W = 213.5 at every sample
	// (minutes 10, 20, ..., 50), a slope of 0.
	e := findExperiment(t, sum, "drain-test")
	if len(e.Slopes) != 1 || e.Slopes[0].Points != 5 || !near(e.Slopes[0].SlopePerHour+1, 1) || !same(e.Slopes[0].RateAfter, 0.005) {
		t.Errorf("slopes = %+v, want one run, 5 samples, slope 0", e.Slopes)
	}
	w := findFigure(t, doc, "drain-drain-test").(*TimeSeries)
	for i, y := range w.Series[0].Y {
		if math.Abs(y-213.5) > 1e-9 || w.Series[0].X[i] != 10+10*float64(i) {
			t.Errorf("W(%v min) = %v, want 213.5 at minute %v", w.Series[0].X[i], y, 10+10*i)
		}
	}
	// A zero slope neither drains nor grows.
	b := e.Bracket
	if b == nil || len(b.Rates) != 1 || b.Rates[0].Verdict != "mixed" || !same(b.LargestNotGrowing, 0.005) ||
		!same(b.SmallestGrowing, math.NaN()) || !near(b.ModelRate, 1/30.5) {
		t.Errorf("bracket = %+v", b)
	}
	c := findExperiment(t, sum, "prevention-test").Counts
	want := []SummaryCount{
		{Trigger: "burst", Control: "budgeter", Runs: 1, Healthy: 1},
		{Trigger: "burst", Control: "none", Runs: 1, Persistent: 1},
	}
	if len(c) != len(want) || c[0] != want[0] || c[1] != want[1] {
		t.Errorf("counts = %+v, want %+v", c, want)
	}
}

// same compares a summary value with an expected one, NaN matching NaN.
func same(got Float, want float64) bool {
	g := float64(got)
	if math.IsNaN(want) {
		return math.IsNaN(g)
	}
	return math.Abs(g-want) <= 1e-12*math.Max(1, math.Abs(want))
}

// near compares within 1e-9 relative: for fitted values.
func near(got Float, want float64) bool {
	return math.Abs(float64(got)-want) <= 1e-9*math.Max(1, math.Abs(want))
}

func findTable(t *testing.T, d *Doc, id string) *Table {
	t.Helper()
	for _, tab := range Tables(d) {
		if tab.ID == id {
			return tab
		}
	}
	t.Fatalf("no table %q", id)
	return nil
}

func findExperiment(t *testing.T, s *Summary, name string) SummaryExperiment {
	t.Helper()
	for _, e := range s.Experiments {
		if e.Experiment == name {
			return e
		}
	}
	t.Fatalf("no experiment %q", name)
	return SummaryExperiment{}
}

func TestBuildDeterministic(t *testing.T) {
	render := func(runs []*schema.RunData) ([]byte, []byte) {
		doc, sum, err := Build(runs, Options{Title: "t", Dataset: "fixture", Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		var h bytes.Buffer
		if err := WriteHTML(&h, doc); err != nil {
			t.Fatal(err)
		}
		j, err := MarshalJSONBytes(sum)
		if err != nil {
			t.Fatal(err)
		}
		return h.Bytes(), j
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
	if page := bytes.Replace(h1, []byte(echartsJS), nil, 1); bytes.Contains(page, []byte("NaN")) {
		t.Error("HTML contains NaN outside the embedded ECharts")
	}
}

func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SOURCE_DATE_EPOCH", "86400")
	if err := Write(dir, fixtureRuns(), Options{Dataset: "fixture"}); err != nil {
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
	_, sum, err := Build(fixtureRuns(), Options{Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"paired-test", "recovery-test"} {
		if e := findExperiment(t, sum, name); e.FeaturedSeed == nil || *e.FeaturedSeed != 2 {
			t.Errorf("%s: featured seed = %v, want 2", name, e.FeaturedSeed)
		}
	}
}

// TestSummaryGoldenHandBuilt compares summary.json of the hand-built
// dataset with testdata/summary.handbuilt.golden.json; run with -update to
// rewrite it after a deliberate change, and review the diff.
func TestSummaryGoldenHandBuilt(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "")
	_, sum, err := Build(fixtureRuns(), Options{Title: "golden", Dataset: "fixture", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := MarshalJSONBytes(sum)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("testdata", "summary.handbuilt.golden.json"), got)
}

// checkGolden compares got with the golden file, rewriting it with -update.
func checkGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("summary.json differs from %s (rerun with -update after checking the change)", golden)
	}
}

// findFigure returns the figure with the given ID, in a grid or not.
func findFigure(t *testing.T, d *Doc, id string) Figure {
	t.Helper()
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			figs := []Figure{}
			switch b := b.(type) {
			case *Grid:
				figs = b.Figures
			case Figure:
				figs = []Figure{b}
			}
			for _, f := range figs {
				if f.FigureID() == id {
					return f
				}
			}
		}
	}
	t.Fatalf("no figure %q", id)
	return nil
}

func TestBuildFigure1(t *testing.T) {
	doc, _, err := Build(fixtureRuns(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, ok := findFigure(t, doc, "fig1-paired-test-hit").(*TimeSeries)
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
	s := findFigure(t, doc, "fig1-paired-test-sessions").(*TimeSeries)
	if s.Series[0].Y[30] != 8 || s.Series[1].Y[30] != 40 {
		t.Errorf("sessions at minute 30: twin %v burst %v, want 8 and 40", s.Series[0].Y[30], s.Series[1].Y[30])
	}
}

func TestBuildFeaturesTypicalPair(t *testing.T) {
	// Seed 1: neither run degraded; seed 2: only the burst run did. Without
	// Options.Seed the figures show seed 2, the pair the paper's Figure 1
	// shows.
	var runs []*schema.RunData
	for _, seed := range []int64{1, 2} {
		for _, arm := range []string{"burst", "no-burst"} {
			r := fakeRun{Name: fmt.Sprintf("s%d-%s", seed, arm), Experiment: "p", Design: "paired", Arm: arm, Seed: seed,
				Sessions: 8, DropS: inf, RecoverS: inf, TriggerKind: "burst", TriggerStartS: 900, TriggerEndS: 1200,
				ControlStartS: math.NaN(), DurationS: 3600}
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

// TestBuildInBrowser loads the report of the fixture dataset in headless
// Chromium: every chart must initialise and draw, with no page error and
// no request.
func TestBuildInBrowser(t *testing.T) {
	if _, err := FindChromium(); errors.Is(err, ErrNoChromium) {
		t.Skip(err)
	}
	if testing.Short() {
		t.Skip("browser check skipped in -short mode")
	}
	dir := t.TempDir()
	if err := Write(dir, fixtureRuns(), Options{Dataset: "fixture"}); err != nil {
		t.Fatal(err)
	}
	r, err := CheckInBrowser(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Error(err)
	}
	if r.Charts < 15 {
		t.Errorf("%d charts, want every figure of the fixture (at least 15)", r.Charts)
	}
}
