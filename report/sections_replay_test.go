package report

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/schema"
)

// replayRuns is an observed run that degrades for good after its burst
// and its replays: as-is (seeds 1 and 2 degrade like it, seed 3 stays
// healthy) and under the budgeter from 1200 s (every seed recovers a
// minute later).
func replayRuns(withObserved bool, labels ...string) []*schema.RunData {
	var runs []*schema.RunData
	base := fakeRun{Sessions: 8, TriggerKind: "burst", TriggerStartS: 600, TriggerEndS: 900, ControlStartS: math.NaN(), DurationS: 3600}
	if withObserved {
		o := base
		o.Name, o.Experiment, o.Design, o.Arm, o.Seed, o.DropS, o.RecoverS = "obs", "paired-test", "paired", "burst", 501, 900, inf
		runs = append(runs, o.build())
	}
	for seed := int64(1); seed <= 3; seed++ {
		a := base
		a.Name, a.Experiment, a.Design, a.Arm, a.Seed, a.DropS, a.RecoverS = fmt.Sprintf("obs-replay-s%d-as-is", seed), "obs-replay", schema.DesignReplay, "as-is", seed, 900, inf
		if seed == 3 {
			a.DropS = inf
		}
		b := base
		b.Name, b.Experiment, b.Design, b.Arm, b.Seed, b.DropS, b.RecoverS = fmt.Sprintf("obs-replay-s%d-budgeter-1200s", seed), "obs-replay", schema.DesignReplay, "budgeter-1200s", seed, 900, 1260
		b.ControlKind, b.ControlStartS = schema.ControlBudgeter, 1200
		for _, f := range []fakeRun{a, b} {
			rd := f.build()
			rd.Run.Labels = `{` + strings.Join(append(labels, `"replay_of":"obs","simulator":"outlast-sim"`), ",") + `}`
			runs = append(runs, rd)
		}
	}
	return runs
}

// TestReplaySection checks the replay section: the observed run first,
// then each variant with its verdict counts, end hit ratio and recovery;
// the caveat of the as-is match; both figures with the observed run and a
// median line per variant; and the counts in summary.json.
func TestReplaySection(t *testing.T) {
	doc, sum, err := Build(replayRuns(true), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tab := findTable(t, doc, "replay-obs-replay")
	var rows []string
	for _, r := range tab.Rows {
		var cells []string
		for _, c := range r {
			cells = append(cells, c.Display())
		}
		rows = append(rows, strings.Join(cells, "|"))
	}
	// Not persistent with its exact 95% interval, computed apart: 1 of 3
	// gives [1 − 0.975^(1/3), the 0.975 quantile of Beta(2, 2)] =
	// [0.0084, 0.9057]; 3 of 3 gives [0.025^(1/3), 1] = [0.2924, 1].
	want := []string{
		"observed: obs|1|0|0|0|0|1|–|–|0.10|–|8.0|–|–",
		"as-is|3|1|0|0|0|2|1/3|0.01–0.91|0.10|0.10–0.95|8.0|8.0|–",
		"budgeter-1200s|3|0|0|3|0|0|3/3|0.29–1.00|0.95|0.95|8.0|8.0|<5",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("replay table:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	e := findExperiment(t, sum, "obs-replay")
	if e.Design != schema.DesignReplay || len(e.Counts) != 2 || e.Counts[1].Control != "budgeter-1200s" || e.Counts[1].RecoveredUnderControl != 3 || e.Counts[0].Persistent != 2 {
		t.Errorf("summary experiment %+v", e)
	}
	if len(e.Warnings) != 1 || !strings.Contains(e.Warnings[0], "2 of 3 as-is replays end persistent like the observed run obs; the replay of its own sessions (seed 1) ends persistent with an end hit ratio of 0.10 and 8.0 sessions") {
		t.Errorf("caveat %q", e.Warnings)
	}
	for _, id := range []string{"replay-hit-obs-replay", "replay-sessions-obs-replay"} {
		f := findFigure(t, doc, id).(*document.TimeSeries)
		var names []string
		for _, s := range f.Series {
			names = append(names, s.Name)
		}
		if strings.Join(names, ",") != "observed,as-is,budgeter-1200s" || len(f.Bands) != 1 || len(f.Marks) != 1 {
			t.Errorf("%s: series %v, %d bands, %d marks", id, names, len(f.Bands), len(f.Marks))
		}
	}
	// The median of the as-is seeds per minute: degraded after minute 15,
	// as two of three seeds are.
	hit := findFigure(t, doc, "replay-hit-obs-replay").(*document.TimeSeries).Series[1]
	if y := hit.Y[len(hit.Y)-1]; y != 0.1 {
		t.Errorf("as-is median hit ratio in the last minute %g, want 0.1", y)
	}
}

// TestReplaySectionWithoutObserved checks the caveat when the dataset
// lacks the observed run.
func TestReplaySectionWithoutObserved(t *testing.T) {
	_, sum, err := Build(replayRuns(false), Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := findExperiment(t, sum, "obs-replay")
	if len(e.Warnings) != 1 || !strings.Contains(e.Warnings[0], "The observed run obs is not in the dataset") {
		t.Errorf("caveat %q", e.Warnings)
	}
}

// replayFindings returns the replay-grounding findings of the obs replays.
func replayFindings(sum *Summary) []SummaryFinding {
	var out []SummaryFinding
	for _, f := range sum.Findings {
		if f.Experiment == "obs-replay" && f.Kind == "replay-grounding" {
			out = append(out, f)
		}
	}
	return out
}

// TestReplayFindingGrounded checks the replay finding as outlast replay's
// as-is gate decided it, from the replays' labels: grounded, a plain
// finding quoting the gate, and the caveat a note, no warning; not
// grounded, a warning naming the variants that say nothing about the run,
// each labelled in the table; no label (replays made before the gate), a
// warning that the grounding is unknown.
func TestReplayFindingGrounded(t *testing.T) {
	const yes = `"grounded":"true","grounding":"reproduced: 2 of 3 as-is seeds reproduce the run (95% upper bound 0.98 of the share, 0.25 wanted): 2 end persistent like it"`
	const no = `"grounded":"false","grounding":"not reproduced: 0 of 11 as-is seeds reproduce the run (95% upper bound 0.24 of the share, 0.25 wanted): 0 end persistent like it"`
	for _, c := range []struct {
		name, labels string
		warning      bool
		text, row    string
		warnings     int
	}{
		{"grounded", yes, false, "obs-replay: the as-is replay reproduces the observed run obs, so the variants are grounded in it (reproduced: 2 of 3 as-is seeds", "budgeter-1200s", 0},
		{"not grounded", no, true, "the variants are not grounded in the observed run obs (not reproduced: 0 of 11 as-is seeds reproduce the run (95% upper bound 0.24 of the share, 0.25 wanted): 0 end persistent like it): the run's collapse is not the mechanism the model knows, or the model is miscalibrated for it, and its variants (budgeter-1200s) say nothing about the run.", "budgeter-1200s (not grounded)", 1},
		{"no label", "", true, "the replays do not say whether their as-is replay reproduced the observed run obs", "budgeter-1200s", 1},
	} {
		var labels []string
		if c.labels != "" {
			labels = append(labels, c.labels)
		}
		doc, sum, err := Build(replayRuns(true, labels...), Options{})
		if err != nil {
			t.Fatal(err)
		}
		fs := replayFindings(sum)
		if len(fs) != 1 || fs[0].Warning != c.warning || !strings.Contains(fs[0].Text, c.text) {
			t.Errorf("%s: findings %+v, want one with warning %v and %q", c.name, fs, c.warning, c.text)
		}
		tab := findTable(t, doc, "replay-obs-replay")
		if got := tab.Rows[2][0].Display(); got != c.row {
			t.Errorf("%s: variant row %q, want %q", c.name, got, c.row)
		}
		if e := findExperiment(t, sum, "obs-replay"); len(e.Warnings) != c.warnings {
			t.Errorf("%s: experiment warnings %q, want %d", c.name, e.Warnings, c.warnings)
		}
	}
}
