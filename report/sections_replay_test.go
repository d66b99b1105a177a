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
func replayRuns(withObserved bool) []*schema.RunData {
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
			rd.Run.Labels = `{"replay_of":"obs","simulator":"outlast-sim"}`
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
	want := []string{
		"observed: obs|1|0|0|0|0|1|0.10|–|8.0|–|–",
		"as-is|3|1|0|0|0|2|0.10|0.10–0.95|8.0|8.0|–",
		"budgeter-1200s|3|0|0|3|0|0|0.95|0.95|8.0|8.0|<5",
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
