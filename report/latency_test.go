package report

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/report/render"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// TestLatencyUnderSLO judges the fixture's turns by TTFT ≤ 1 s: a burst
// run degraded from 1200 s has 241 of its 360 turns (done at 1200, 1210,
// …, 3600) at TTFT 1.9 s, so 119 meet the SLO; the undegraded burst run
// of seed 3 and every twin meet it with all 360. The burst arm's goodput
// over its turns is (119 + 119 + 360)/1080.
func TestLatencyUnderSLO(t *testing.T) {
	doc, sum := buildFixture(t, Options{SLO: stats.SLO{TTFTS: 1}})
	if sum.SLO.Text != "TTFT ≤ 1s" || !same(sum.SLO.TTFTS, 1) || !sum.SLO.TPOTS.IsNaN() {
		t.Errorf("slo = %+v", sum.SLO)
	}
	run := find(t, "run", sum.Runs, func(r SummaryRun) string { return r.Run }, "s1-burst")
	if !same(run.Goodput, 119.0/360) || run.GoodputTurns != 360 || !same(run.TTFTP50S, 1.9) || !same(run.EndTTFTP90S, 1.9) ||
		!same(run.E2EP90S, 2) || !same(run.QueueP90S, 0) || !run.TPOTP90S.IsNaN() || run.TurnsCompleted != 360 || run.TurnsFirstToken != 360 {
		t.Errorf("s1-burst latency = %+v", run.SummaryLatency)
	}
	// 119 at 0.5 s, 241 at 1.9 s: the p10 would be 0.5, the p50 1.9.
	if !same(run.TTFTP99S, 1.9) {
		t.Errorf("s1-burst ttft p99 = %v", run.TTFTP99S)
	}
	exp := find(t, "experiment", sum.Experiments, func(e SummaryExperiment) string { return e.Experiment }, "paired-test")
	if len(exp.Latency) != 2 || exp.Latency[0].Arm != "no-burst" || exp.Latency[1].Arm != "burst" {
		t.Fatalf("paired latency arms = %+v", exp.Latency)
	}
	bu := exp.Latency[1]
	// Medians over the 3 burst runs: end TTFT p90 1.9, 1.9, 0.5 → 1.9.
	if !same(bu.Goodput, 598.0/1080) || bu.GoodputTurns != 1080 || !same(bu.EndTTFTP90S, 1.9) || bu.Runs != 3 || bu.TurnsCompleted != 1080 {
		t.Errorf("burst arm = %+v", bu)
	}
	f := find(t, "finding", sum.Findings, func(f SummaryFinding) string { return f.Experiment + " " + f.Kind }, "paired-test latency")
	want := "paired-test: the burst runs' TTFT p90 over the last 10 minutes was 1.9 s (twins 0.5 s; medians of 3 runs each); goodput 55% (twins 100%) with TTFT ≤ 1s."
	if f.Text != want || !same(f.Numbers["burst.goodput"], 598.0/1080) || !same(f.Numbers["no-burst.end_ttft_p90_s"], 0.5) {
		t.Errorf("finding %+v\nwant %q", f, want)
	}
	// The page states the SLO beside goodput, and tables/latency.csv has
	// every run.
	lt := findTable(t, doc, "latency")
	if len(lt.Rows) != len(sum.Runs) || !strings.Contains(lt.Caption, "TTFT ≤ 1s") {
		t.Errorf("latency table: %d rows for %d runs; caption %q", len(lt.Rows), len(sum.Runs), lt.Caption)
	}
	ov := findTable(t, doc, "overview")
	if !strings.Contains(ov.Caption, "TTFT ≤ 1s") || ov.Columns[len(ov.Columns)-1].Name != "Goodput" {
		t.Errorf("overview: %q, %+v", ov.Caption, ov.Columns[len(ov.Columns)-1])
	}
}

// TestLatencyFigures: each experiment draws its featured runs' TTFT per
// minute (log axis) beside their hit ratio, its arms' TTFT and
// end-to-end distributions (log axis) and goodput; Figure 6 gains TTFT.
func TestLatencyFigures(t *testing.T) {
	doc, _ := buildFixture(t, Options{})
	figs := map[string]document.Figure{}
	for _, f := range document.Figures(doc) {
		figs[f.FigureID()] = f
	}
	ttft, ok := figs["latency-time-paired-test-ttft"].(*document.TimeSeries)
	if !ok {
		t.Fatal("no TTFT over time for the paired experiment")
	}
	if !ttft.YAxes[0].Log || len(ttft.Series) != 4 || ttft.Series[0].Name != "no-burst p50" || ttft.Series[3].Name != "burst p90" || !ttft.Series[3].Dash {
		t.Errorf("TTFT over time: %+v", ttft)
	}
	if len(ttft.Bands) != 1 {
		t.Errorf("the burst is not shaded: %+v", ttft.Bands)
	}
	// Seed 1's burst run: 0.5 s per minute until minute 20, then 1.9 s.
	bu := ttft.Series[2]
	if y := bu.Y[5]; y != 0.5 {
		t.Errorf("burst TTFT p50 at minute 5.5 = %v", y)
	}
	if y := bu.Y[len(bu.Y)-2]; math.Abs(y-1.9) > 1e-9 {
		t.Errorf("burst TTFT p50 near the end = %v", y)
	}
	if _, ok := figs["latency-time-paired-test-hit"]; !ok {
		t.Error("no hit ratio beside the TTFT")
	}
	cdf, ok := figs["latency-paired-test-cdf-ttft"].(*document.Scatter)
	if !ok || !cdf.XAxis.Log || len(cdf.Lines) != 2 {
		t.Fatalf("TTFT distribution: %+v", cdf)
	}
	// The twins' turns are all at 0.5 s: the distribution is 0 below it
	// and 1 from it on.
	tw := cdf.Lines[0]
	if tw.Name != "no-burst" || tw.Y[0] != 1 && tw.X[0] < 0.5 {
		t.Errorf("twin distribution %+v", tw)
	}
	if last := cdf.Lines[1].Y[len(cdf.Lines[1].Y)-1]; last != 1 {
		t.Errorf("burst distribution ends at %v, want 1", last)
	}
	if g, ok := figs["latency-recovery-test-goodput"].(*document.Bar); !ok || len(g.Categories) != 2 || g.Series[0].Values[0] != 1 {
		t.Errorf("goodput per arm: %+v", figs["latency-recovery-test-goodput"])
	}
	if _, ok := figs["fig6-ttft-mix-test"].(*document.Scatter); !ok {
		t.Error("Figure 6 has no TTFT beside its wait")
	}
	if _, ok := figs["latency-time-observe-test-ttft"]; !ok {
		t.Error("no TTFT over time for the observed run")
	}
}

// TestGridCDF checks the distribution read off a run's percentiles
// against a direct count: for the values 1, 2, …, 101 the percentile k is
// k + 1, so the share at or below 51 is 0.5 and at 26.5 is 0.255.
func TestGridCDF(t *testing.T) {
	v := make([]float64, 101)
	for i := range v {
		v[i] = float64(i + 1)
	}
	g := quantileGrid(v)
	for _, c := range []struct{ x, want float64 }{{0.5, 0}, {1, 0}, {51, 0.5}, {26.5, 0.255}, {101, 1}, {500, 1}} {
		if got := gridCDF(g, c.x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("F(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	// Two runs pooled by their turns: 101 turns at 1..101 and 303 turns
	// all at 200: at x = 51 the share is 50.5/404... read as (0.5·101 +
	// 0·303)/404.
	a := &runInfo{lat: runLatency{ttftGrid: g, TurnLatency: stats.TurnLatency{TTFT: stats.Percentiles{N: 101}}}}
	b := &runInfo{lat: runLatency{ttftGrid: quantileGrid([]float64{200}), TurnLatency: stats.TurnLatency{TTFT: stats.Percentiles{N: 303}}}}
	xs, ys, ok := pooledCDF([]*runInfo{a, b}, func(r *runInfo) ([]float64, int) { return r.lat.ttftGrid, r.lat.TTFT.N }, 3)
	if !ok || xs[0] != 1 || xs[2] != 200 || math.Abs(ys[0]-0) > 1e-12 || ys[2] != 1 {
		t.Errorf("pooled: %v %v", xs, ys)
	}
	// The middle point is √200 ≈ 14.14: 101 turns' F = 0.1314…, 303 turns' 0.
	mid := math.Sqrt(200)
	if want := 101 * ((mid - 1) / 100) / 404; math.Abs(ys[1]-want) > 1e-12 {
		t.Errorf("pooled at %v = %v, want %v", mid, ys[1], want)
	}
}

// TestNoFirstTokenWarning: a run whose gateway log has no first-token
// time (requests not streamed) has TTFT, TPOT and goodput unknown, not 0,
// and a warning says why; a run missing it on some turns is named with
// their count; the latency finding then quotes what there is.
func TestNoFirstTokenWarning(t *testing.T) {
	none := observeRun("plain", nil)
	for i := range none.Turns {
		none.Turns[i].FirstTokenS = nil
	}
	some := observeRun("some", nil)
	for i := range some.Turns[:10] {
		some.Turns[i].FirstTokenS = nil
	}
	_, sum, err := Build([]*schema.RunData{none, some}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := find(t, "finding", sum.Findings, func(f SummaryFinding) string { return f.Kind }, "no-first-token")
	if !w.Warning || strings.Join(w.Runs, ",") != "plain,some" || !same(w.Numbers["turns"], 370) ||
		!strings.Contains(w.Text, "obs: the gateway logs of plain (none of 360 completed turns), some (10 of 360 completed turns) carry no first-token time") {
		t.Errorf("warning %+v", w)
	}
	plain := find(t, "run", sum.Runs, func(r SummaryRun) string { return r.Run }, "plain")
	if !plain.TTFTP90S.IsNaN() || !plain.Goodput.IsNaN() || !plain.EndTTFTP90S.IsNaN() || plain.GoodputTurns != 0 || !same(plain.E2EP90S, 2) {
		t.Errorf("plain run latency %+v", plain.SummaryLatency)
	}
	f := find(t, "finding", sum.Findings, func(f SummaryFinding) string { return f.Kind }, "latency")
	if !strings.Contains(f.Text, "plain (unknown, goodput unknown), some (1.9 s, goodput 100%)") {
		t.Errorf("latency finding %q", f.Text)
	}
}

func TestParseSLO(t *testing.T) {
	for _, c := range []struct {
		in   string
		want stats.SLO
		text string
	}{
		{"ttft=2s,tpot=100ms", stats.SLO{TTFTS: 2, TPOTS: 0.1}, "TTFT ≤ 2s, TPOT ≤ 100ms"},
		{" TTFT = 500ms ", stats.SLO{TTFTS: 0.5}, "TTFT ≤ 500ms"},
		{"e2e=1m,ttft=1.5s", stats.SLO{TTFTS: 1.5, E2ES: 60}, "TTFT ≤ 1.5s, end-to-end ≤ 1m0s"},
	} {
		got, err := ParseSLO(c.in)
		if err != nil || got != c.want || sloText(got) != c.text {
			t.Errorf("ParseSLO(%q) = %+v, %v (%q); want %+v (%q)", c.in, got, err, sloText(got), c.want, c.text)
		}
	}
	for _, bad := range []string{"", "ttft", "ttft=2", "ttft=-1s", "ttft=0s", "itl=2s", "ttft=2s,ttft=3s"} {
		if _, err := ParseSLO(bad); err == nil {
			t.Errorf("ParseSLO(%q) accepted", bad)
		}
	}
}

// TestLatencyDistributionsDraw: the arms' TTFT and end-to-end
// distributions are lines of data; the page said "no data to draw" over
// them and in their captions, as it does over a chart of bounds only.
func TestLatencyDistributionsDraw(t *testing.T) {
	doc, _ := buildFixture(t, Options{})
	var page bytes.Buffer
	if err := render.WriteHTML(&page, doc); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"latency-paired-test-cdf-ttft", "latency-paired-test-cdf-e2e", "latency-recovery-test-cdf-ttft"} {
		at := bytes.Index(page.Bytes(), []byte(`data-chart="`+document.ChartID(id)+`"`))
		if at < 0 {
			t.Fatalf("no chart %s on the page", id)
		}
		opt := page.Bytes()[at:]
		opt = opt[:bytes.Index(opt, []byte("</script>"))]
		if bytes.Contains(opt, []byte("no data to draw")) {
			t.Errorf("%s draws its arms' distributions but says it has no data", id)
		}
	}
	for _, f := range document.Figures(doc) {
		if sc, ok := f.(*document.Scatter); ok && strings.Contains(sc.ID, "-cdf-") {
			for _, l := range sc.Lines {
				if !l.Data {
					t.Errorf("%s: line %s is not marked as data", sc.ID, l.Name)
				}
			}
		}
	}
}

// TestTTFTOverTimeShowsEveryArm: TTFT over time drew at most 4 runs, so a
// recovery experiment's fifth arm (and three of mix-shift's seven) was
// left out under a caption that spoke of each arm; an arm without the
// featured seed was left out too. Every arm is drawn, by its run of the
// featured seed where it has one, and the caption names each run and seed.
func TestTTFTOverTimeShowsEveryArm(t *testing.T) {
	var runs []*schema.RunData
	arms := []string{"none", "admission-cap", "aimd", "budgeter", "session-cap"}
	for _, seed := range []int64{1, 2, 3} {
		for _, arm := range arms {
			if (arm == "aimd") != (seed == 3) {
				continue // aimd ran seed 3 only, the others seeds 1 and 2
			}
			r := fakeRun{Name: fmt.Sprintf("r%d-%s", seed, arm), Experiment: "rec", Design: "recovery", Arm: arm, Seed: seed,
				Sessions: 20, DropS: 600, RecoverS: inf, TriggerKind: "burst", TriggerStartS: 300, TriggerEndS: 540,
				ControlKind: arm, ControlStartS: 1200, DurationS: 3600}
			if arm != "none" {
				r.RecoverS = 1200
			}
			runs = append(runs, r.build())
		}
	}
	doc, _, err := Build(runs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var grid *document.Grid
	for _, sec := range doc.Sections {
		for _, blk := range sec.Blocks {
			if g, ok := blk.(*document.Grid); ok && len(g.Figures) > 0 && g.Figures[0].FigureID() == "latency-time-rec-hit" {
				grid = g
			}
		}
	}
	if grid == nil {
		t.Fatal("no TTFT over time")
	}
	ttft := grid.Figures[1].(*document.TimeSeries)
	var names []string
	for _, s := range ttft.Series {
		if s.Name != "" && !strings.HasSuffix(s.Name, " p90") {
			names = append(names, strings.TrimSuffix(s.Name, " p50"))
		}
	}
	if got, want := strings.Join(names, ","), "none,admission-cap,aimd,budgeter,session-cap"; got != want {
		t.Errorf("TTFT over time draws arms %s, want %s", got, want)
	}
	for _, run := range []string{"r1-none (seed 1)", "r1-admission-cap (seed 1)", "r3-aimd (seed 3)", "r1-budgeter (seed 1)", "r1-session-cap (seed 1)"} {
		if !strings.Contains(grid.Caption, run) {
			t.Errorf("the caption does not name %s: %s", run, grid.Caption)
		}
	}
}

// TestObservedLatencyNumbers: an observed experiment's latency finding
// quotes each run's figure (its end TTFT p90, else its TTFT p90, else its
// end-to-end p90), but its numbers held only the end TTFT and goodput per
// run, beside medians of the arm it never quotes (keyed by the arm, which
// a run's name may equal): a log without first-token times had the
// quoted end-to-end figures in no number. The numbers are each run's four.
func TestObservedLatencyNumbers(t *testing.T) {
	var runs []*schema.RunData
	for _, name := range []string{"o1", "o2"} {
		r := fakeRun{Name: name, Experiment: "obs", Design: "observe", Arm: "run", Seed: 1, Sessions: 3,
			DropS: inf, RecoverS: inf, ControlStartS: math.NaN(), DurationS: 1800}.build()
		for i := range r.Turns {
			r.Turns[i].FirstTokenS = nil // a non-streaming log: end-to-end is 2 s
		}
		runs = append(runs, r)
	}
	_, sum, err := Build(runs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sum.Findings {
		if f.Kind != "latency" {
			continue
		}
		if want := "obs: end-to-end p90 over the run (no first-token time): o1 (2 s, goodput unknown), o2 (2 s, goodput unknown); goodput with TTFT ≤ 2s, TPOT ≤ 100ms."; f.Text != want {
			t.Errorf("text %q, want %q", f.Text, want)
		}
		var keys []string
		for k := range f.Numbers {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if got, want := strings.Join(keys, " "), "o1.e2e_p90_s o1.end_ttft_p90_s o1.goodput o1.ttft_p90_s o2.e2e_p90_s o2.end_ttft_p90_s o2.goodput o2.ttft_p90_s"; got != want {
			t.Errorf("numbers %s, want %s", got, want)
		}
		if v := f.Numbers["o1.e2e_p90_s"]; float64(v) != 2 {
			t.Errorf("o1.e2e_p90_s = %v, want 2", v)
		}
		return
	}
	t.Fatal("no latency finding")
}
