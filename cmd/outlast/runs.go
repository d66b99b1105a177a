package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/outlast-dev/outlast/internal/jsonnum"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

func init() {
	commands["runs"] = command{summary: "list the runs of a dataset, one line each", run: runRuns}
}

const runsHelp = `Usage: outlast runs [--format text|csv|json] DATASET

Runs prints one line per run of the dataset: run, experiment, arm, engine
and version, KV pool size C (tokens; "?" when neither the manifest, the
engine log nor the metrics gave it), arrival rate λ (sessions/s; "–" when
unknown), trigger (kind start–end in seconds, then its extra rate, e.g.
"burst 900–1200s +0.0525/s"), control (kind@start, e.g. "budgeter@1200s",
and its parameters), sessions, turns, and the token-weighted prefix-cache
hit ratio Σcached/Σprompt over the turns that completed (status ok; failed
turns carry no cache figure worth the name; "–" when the engine reported
no cached tokens).

--format csv and json print the same columns for a program to read: run,
experiment, arm, engine, engine_version, kv_pool_tokens, arrival_rate,
trigger, control, sessions, turns, hit_ratio; an unknown figure is an
empty field in CSV and null in JSON. Nothing is printed unless every run
was read.

Examples:
  outlast runs ds
  outlast runs ds | grep burst
  outlast runs --format csv ds > runs.csv
  outlast runs --format json ds | jq -r '.[] | select(.arm == "burst") | .run'
`

// runRow is one line of runs, as the csv and json formats print it.
type runRow struct {
	Run           string        `json:"run"`
	Experiment    string        `json:"experiment"`
	Arm           string        `json:"arm"`
	Engine        string        `json:"engine"`
	EngineVersion string        `json:"engine_version"`
	KVPoolTokens  *int64        `json:"kv_pool_tokens"`
	ArrivalRate   *float64      `json:"arrival_rate"`
	Trigger       string        `json:"trigger"`
	Control       string        `json:"control"`
	Sessions      int           `json:"sessions"`
	Turns         int           `json:"turns"`
	HitRatio      jsonnum.Float `json:"hit_ratio"`
}

func runRuns(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("runs", runsHelp)
	format := fs.String("format", "text", "output `FORMAT`: text, csv or json")
	if err := fs.parse(stdout, args); err != nil {
		return err
	}
	switch *format {
	case "text", "csv", "json":
	default:
		return usageErrorf("runs: --format %q: want text, csv or json", *format)
	}
	if fs.NArg() != 1 {
		return usageErrorf("runs needs one DATASET")
	}
	// One run in memory at a time; only its row is kept.
	var rows []runRow
	err := fs.readProgress(stderr).each(fs.Arg(0), func(d *schema.RunData) error {
		r := d.Run
		hit := stats.NewTurnSeries(d.Turns).HitRatio(stats.Window{Start: math.Inf(-1), End: math.Inf(1)})
		if !stats.CacheKnown(&r) {
			hit = math.NaN() // the engine reported no cached tokens
		}
		rows = append(rows, runRow{
			Run: r.Run, Experiment: r.Experiment, Arm: r.Arm, Engine: r.EngineName, EngineVersion: r.EngineVersion,
			KVPoolTokens: r.KVPoolTokens, ArrivalRate: r.ArrivalRate, Trigger: r.TriggerString(), Control: r.ControlString(),
			Sessions: len(d.Sessions), Turns: len(d.Turns), HitRatio: jsonnum.Float(hit),
		})
		return nil
	})
	if err != nil {
		return inputError(err)
	}
	switch *format {
	case "json":
		return writeRunsJSON(stdout, rows)
	case "csv":
		return writeRunsCSV(stdout, rows)
	}
	return writeRunsText(stdout, rows)
}

// writeRunsText writes the rows as an aligned table.
func writeRunsText(w io.Writer, rows []runRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tEXPERIMENT\tARM\tENGINE\tC\tλ\tTRIGGER\tCONTROL\tSESSIONS\tTURNS\tHIT")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s %s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n",
			r.Run, r.Experiment, r.Arm, r.Engine, r.EngineVersion, poolString(r.KVPoolTokens),
			optFloat(r.ArrivalRate), r.Trigger, r.Control, r.Sessions, r.Turns, ratio(float64(r.HitRatio)))
	}
	return tw.Flush()
}

// writeRunsJSON writes the rows as one JSON array.
func writeRunsJSON(w io.Writer, rows []runRow) error {
	if rows == nil {
		rows = []runRow{}
	}
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeRunsCSV writes the rows as CSV, an unknown figure as an empty field.
func writeRunsCSV(w io.Writer, rows []runRow) error {
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	cw.Write([]string{"run", "experiment", "arm", "engine", "engine_version", "kv_pool_tokens", "arrival_rate",
		"trigger", "control", "sessions", "turns", "hit_ratio"})
	for _, r := range rows {
		pool, rate, hit := "", "", ""
		if r.KVPoolTokens != nil {
			pool = strconv.FormatInt(*r.KVPoolTokens, 10)
		}
		if r.ArrivalRate != nil {
			rate = strconv.FormatFloat(jsonnum.Round(*r.ArrivalRate), 'g', -1, 64)
		}
		if h := float64(r.HitRatio); !math.IsNaN(h) && !math.IsInf(h, 0) {
			hit = strconv.FormatFloat(jsonnum.Round(h), 'g', -1, 64)
		}
		cw.Write([]string{r.Run, r.Experiment, r.Arm, r.Engine, r.EngineVersion, pool, rate,
			r.Trigger, r.Control, strconv.Itoa(r.Sessions), strconv.Itoa(r.Turns), hit})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
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
