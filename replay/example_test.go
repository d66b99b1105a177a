package replay_test

import (
	"fmt"
	"os"

	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/replay"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
	"github.com/outlast-dev/outlast/stats"
)

// read reads a run directory as outlast ingest does.
func read(dir string) (*schema.RunData, []string, error) {
	res, err := rundir.Read(dir, rundir.Options{Version: "example"})
	if err != nil {
		return nil, nil, err
	}
	return res.Data, res.Warnings, nil
}

// Example replays a run that collapsed after a burst: as it was, and with
// the budgeter from minute 20. The observed run here is simulated; from a
// dataset, replay.Load reads it (and the calibration runs beside it).
func Example() {
	dir, _ := os.MkdirTemp("", "replay-example-")
	defer os.RemoveAll(dir)
	cfg, _ := sim.Defaults(schema.DesignRecovery)
	cfg.Arms = cfg.Arms[:1] // no control
	cfg.FirstSeed, cfg.DurationS = 503, 2100
	runs, _ := sim.WriteExperiment(dir+"/observed", cfg)
	observed, _, _ := read(runs[0])

	m, err := replay.Fit(observed, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s from minute %.0f, fitted on %s\n", m.Run, m.Observed.Verdict, m.Observed.FirstDegradedS/60, m.Engine.Method)
	budgeter, _ := sim.NewControl(schema.ControlBudgeter, 1200)
	res, err := replay.Replay(m, []replay.Variant{{Name: replay.AsIs}, replay.ControlVariant(budgeter)},
		replay.Options{Seeds: 2, Out: dir + "/replays", Read: read})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res {
		o := r.Outcome()
		fmt.Printf("%-15s persistent %d, recovered under control %d, healthy %d of %d\n", o.Variant,
			o.Verdicts[stats.VerdictPersistent], o.Verdicts[stats.VerdictRecoveredUnderControl], o.Healthy(), o.Runs)
	}
	// Output:
	// recovery-s503-none: persistent from minute 19, fitted on busy windows
	// as-is           persistent 2, recovered under control 0, healthy 0 of 2
	// budgeter-1200s  persistent 0, recovered under control 2, healthy 0 of 2
}
