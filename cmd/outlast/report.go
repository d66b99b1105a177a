package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/outlast-dev/outlast/compare"
	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/report"
	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

func init() {
	commands["report"] = command{summary: "write the HTML report, summary.json and tables of a dataset", run: runReport}
}

const reportHelp = `Usage: outlast report DATASET --out DIR [--title T] [--seed N] [--slo ttft=2s,tpot=100ms]

Report reads a Parquet dataset (written by "outlast ingest") run by run and
writes the evidence of its experiments into DIR:

  DIR/index.html      one self-contained page (charts inlined, no network)
  DIR/summary.json    every number shown (12 significant digits), keys in a fixed order
  DIR/tables/*.csv    every table, also as *.md

DIR holds one report: DIR/.outlast-report lists the files the report wrote,
and the next report into DIR removes those it does not write again. Other
files in DIR are never touched, so "--out ." is safe.

Each experiment (runs sharing runs.experiment) gets the sections of its
design: paired (Table 2 with the sign test, Figures 1 and 4), recovery
(Table 3 with exact paired tests, Figures 5 and 8), calibration and nocache
(the c(L) fit, S and 1/S), drain (W(t), slopes, bracket), mix-shift
(Figure 6), prevention and flush (outcome counts). Every run appears in the
overview and on the regime map; observed runs (design observe, or one the
report does not know) get panels of their own, with verdict and onset.

Latency, what users feel, is measured on every completed turn: TTFT (first
token − sent), TPOT ((done − first token)/(output tokens − 1)), end-to-end
(done − sent) and the queue wait at the gateway (sent − ready), each run's
p50, p90 and p99 (as DuckDB's quantile_cont), the TTFT p90 of the turns
sent in the last 10 minutes, and goodput: the share of completed turns
meeting the SLO, by default TTFT ≤ 2s and TPOT ≤ 100ms; --slo sets another
(ttft, tpot, e2e; the measures not named are not bounded). Each experiment
draws TTFT over time beside the hit ratio, its arms' TTFT and end-to-end
distributions and goodput; tables/latency.csv has every run's figures.

The page opens with the findings: per experiment, its result in a sentence
(the sign test, recoveries, the c(L) fit, the drain bracket), its latency,
its verdict counts, and the warnings that change how the numbers read
(rejected lines, an engine log or metrics file that gave nothing, cached
tokens never reported, runs cut short, engine and gateway hit ratios that
disagree, a gateway log without first-token times).
Report prints them on stdout, warnings marked "warning:", then the path
of index.html; with -q it prints only the warnings, on stderr. Each section shows the engine's own view (KV cache usage,
running and waiting requests, preemptions, the engine's hit ratio) beside
the gateway's.

The same dataset gives byte-identical files. No date is written unless
SOURCE_DATE_EPOCH is set.

Examples:
  outlast simulate --design paired --seeds 3 --out runs/paired
  outlast ingest --out ds runs/paired
  outlast report ds --out out/paired
  outlast report ds --out out/paired --title "Paired, 8B" --seed 502
  outlast report ds --out out/paired --slo ttft=500ms,tpot=50ms
  outlast report -q ds -o out/paired      # only the warnings, on standard error
`

func runReport(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("report", reportHelp)
	out := fs.out("output `DIR` (created if needed; an earlier report in it is replaced)")
	title := fs.String("title", "", "report `TITLE` (default \"outlast report: DATASET\")")
	seed := fs.Int64("seed", 0, "`SEED` of the single-seed figures (Figures 1, 4, 5); default: each experiment's most telling (a paired design's first pair in which only the burst run degraded), else its smallest; a seed an experiment lacks is warned of")
	sloFlag := fs.String("slo", "", "the `SLO` goodput is judged by: comma-separated ttft, tpot, e2e bounds as durations (default ttft=2s,tpot=100ms)")
	if err := fs.parse(stdout, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *out == "" {
		return usageErrorf("report needs one DATASET and --out DIR")
	}
	var slo stats.SLO
	if *sloFlag != "" {
		var err error
		if slo, err = report.ParseSLO(*sloFlag); err != nil {
			return usageErrorf("%v", err)
		}
	}
	if err := checkOutDir("report", *out); err != nil {
		return err
	}
	ds := fs.Arg(0)
	defer limitMemory(reportMemoryLimit)()
	// The base name only: an absolute path would tie the output to this
	// machine.
	label := filepath.Base(filepath.Clean(ds))
	opt := report.Options{Title: *title, Dataset: label, Version: version, SLO: slo}
	// The figures' runs are read again rather than every run's series
	// kept: the report's memory then stays flat with the number of runs.
	opt.Reload = func(run string) (*schema.RunData, error) { return dataset.ReadRun(ds, run, forStats) }
	if opt.Title == "" {
		opt.Title = "outlast report: " + label
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "seed" {
			opt.Seed = seed
		}
	})
	sum, err := report.Write(*out, eachRun(ds, fs.readProgress(stderr)), opt)
	if err != nil {
		return inputError(err)
	}
	// The findings are the command's summary; with -q only its warnings
	// are printed, on standard error like every warning.
	if fs.quiet {
		return summaryError(report.WriteFindings(stderr, sum, true))
	}
	if err := report.WriteFindings(stdout, sum, false); err != nil {
		return summaryError(err)
	}
	fmt.Fprintln(stdout, filepath.Join(*out, "index.html"))
	return nil
}

// eachRun reads the runs of the dataset at root on every core, a few at a
// time, and hands each to fn in run-name order (dataset.Each): a report
// holds a few runs' tables at a time, however many the dataset has. The
// error of the first failing run by name is returned. p shows the runs
// read.
func eachRun(root string, p readProgress) report.Source {
	return func(fn func(*schema.RunData) error) error { return p.each(root, fn, forStats) }
}

// forStats reads what the statistics read: not the engine columns no
// measure uses, seven of the engine table's twenty-two, which an SGLang
// run's thousands of engine rows make worth leaving undecoded.
var forStats = dataset.SkipEngineColumns(stats.UnreadEngineColumns...)

// reportFigures gives compare --format html the figures of each column's
// own report, to set side by side.
func reportFigures(col compare.Column) ([]document.Figure, error) {
	return report.Figures(col.Runs, report.Options{Dataset: col.Label})
}
