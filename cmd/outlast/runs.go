package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

func init() {
	commands["runs"] = command{summary: "list the runs of a dataset, one line each", run: runRuns}
}

const runsHelp = `Usage: outlast runs DATASET

Runs prints one line per run of the dataset: run, experiment, arm, engine
and version, KV pool size C (tokens; "?" when neither the manifest, the
engine log nor the metrics gave it), arrival rate λ (sessions/s), trigger
(kind@start-end, seconds), control (kind@start), sessions, turns, and the
token-weighted prefix-cache hit ratio Σcached/Σprompt over the turns that
completed (status ok; failed turns carry no cache figure worth the name).

Examples:
  outlast runs ds
  outlast runs ds | grep burst
`

func runRuns(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("runs", runsHelp)
	if err := fs.parse(stdout, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("runs needs one DATASET")
	}
	// One run in memory at a time; the table's lines wait in the
	// tabwriter, which aligns them at the end.
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tEXPERIMENT\tARM\tENGINE\tC\tλ\tTRIGGER\tCONTROL\tSESSIONS\tTURNS\tHIT")
	err := fs.readProgress(stderr).each(fs.Arg(0), func(d *schema.RunData) error {
		r := d.Run
		hit := stats.NewTurnSeries(d.Turns).HitRatio(stats.Window{Start: math.Inf(-1), End: math.Inf(1)})
		if !stats.CacheKnown(&r) {
			hit = math.NaN() // the engine reported no cached tokens
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s %s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n",
			r.Run, r.Experiment, r.Arm, r.EngineName, r.EngineVersion, poolString(r.KVPoolTokens),
			optFloat(r.ArrivalRate), r.TriggerString(), r.ControlString(), len(d.Sessions), len(d.Turns), ratio(hit))
		return nil
	})
	if err != nil {
		return inputError(err)
	}
	return tw.Flush()
}

func poolString(p *int64) string {
	if p == nil {
		return "?"
	}
	if *p%1000 == 0 {
		return strconv.FormatInt(*p/1000, 10) + "K"
	}
	return strconv.FormatInt(*p, 10)
}

func optFloat(v *float64) string {
	if v == nil {
		return "–"
	}
	return strconv.FormatFloat(*v, 'g', 4, 64)
}

func ratio(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}
