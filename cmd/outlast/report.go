package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/outlast-dev/outlast/compare"
	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/report"
	"github.com/outlast-dev/outlast/report/model"
)

func init() {
	commands["report"] = command{summary: "write the HTML report, summary.json and tables of a dataset", run: runReport}
}

const reportHelp = `Usage: outlast report DATASET --out DIR [--title T] [--seed N]

Report reads a Parquet dataset (written by "outlast ingest") and writes the
evidence of its experiments into DIR:

  DIR/index.html      one self-contained page (charts inlined, no network)
  DIR/summary.json    every number shown (12 significant digits), sorted keys
  DIR/tables/*.csv    every table, also as *.md

DIR holds one report: DIR/.outlast-report lists the files the report wrote,
and the next report into DIR removes those it does not write again. Other
files in DIR are never touched, so "--out ." is safe.

Each experiment (runs sharing runs.experiment) gets the sections of its
design: paired (Table 2 with the sign test, Figures 1 and 4), recovery
(Table 3 with exact paired tests, Figures 5 and 8), calibration and nocache
(the c(L) fit, S and 1/S), drain (W(t), slopes, bracket), mix-shift
(Figure 6), prevention and flush (outcome counts). Every run appears in the
overview and on the regime map; runs of other designs get per-run figures.

The same dataset gives byte-identical files. No date is written unless
SOURCE_DATE_EPOCH is set.

Examples:
  outlast simulate --design paired --seeds 3 --out runs/paired
  outlast ingest --out ds runs/paired
  outlast report ds --out out/paired
  outlast report ds --out out/paired --title "Paired, 8B" --seed 502
  outlast report -q ds -o out/paired      # print nothing when it succeeds
`

func runReport(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("report", reportHelp)
	out := fs.out("output `DIR` (created if needed; an earlier report in it is replaced)")
	title := fs.String("title", "", "report title (default \"outlast report: DATASET\")")
	seed := fs.Int64("seed", 0, "seed of the single-seed figures (Figures 1, 4, 5); default: each experiment's smallest")
	if err := fs.parse(stdout, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *out == "" {
		return usageErrorf("report needs one DATASET and --out DIR (see outlast report --help)")
	}
	ds := fs.Arg(0)
	runs, err := dataset.ReadAll(ds)
	if err != nil {
		return inputError(err)
	}
	// The base name only: an absolute path would tie the output to this
	// machine.
	label := filepath.Base(filepath.Clean(ds))
	opt := report.Options{Title: *title, Dataset: label, Version: version}
	if opt.Title == "" {
		opt.Title = "outlast report: " + label
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "seed" {
			opt.Seed = seed
		}
	})
	if err := report.Write(*out, runs, opt); err != nil {
		return inputError(err)
	}
	if !fs.quiet {
		fmt.Fprintln(stdout, filepath.Join(*out, "index.html"))
	}
	return nil
}

// reportFigures gives compare --format html the figures of each column's
// own report, to set side by side.
func reportFigures(col compare.Column) ([]model.Figure, error) {
	return report.Figures(col.Runs, report.Options{Dataset: col.Label})
}
