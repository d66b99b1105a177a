package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/outlast-dev/outlast/internal/atomicfile"

	"github.com/outlast-dev/outlast/compare"
	"github.com/outlast-dev/outlast/compare/page"
	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/schema"
)

func init() {
	commands["compare"] = command{summary: "compare datasets (engine versions) configuration by configuration, with tests", run: runCompare}
}

const compareHelp = `Usage: outlast compare [flags] [LABEL=]DATASET [LABEL=]DATASET...
       outlast compare [flags] --by COLUMN DATASET

Compare answers "did the collapse threshold move?" the way benchstat answers
for Go benchmarks. Each argument is one column (labelled by LABEL, else by
the path); the first is the baseline. With --by, one dataset is split into
one column per value of a runs-table column (engine_version, engine_name,
kv_pool_tokens, label.KEY, ...), ordered by value.

Runs are matched by configuration: design, arm, lambda, pool, caching,
trigger, control and workload shape (--ignore drops fields from the key;
--by drops its own). Within a configuration, runs of two columns that share
a seed are paired (same seed, same arm): paired tests use the shared seeds,
otherwise the runs are compared as independent samples.

Measures, one table each, a row per configuration:
  collapse rate       k/n persistently degraded (caching-on runs); Fisher's exact, exact McNemar if paired
  hit ratio           median end hit ratio of runs not collapsed; Mann-Whitney U, sign test if paired
  turn throughput     median turns/s of runs not collapsed, last 10 minutes; likewise
  end sessions        median sessions in the system, last 5 minutes; likewise
  recovery time       median minutes after control began (n.r.: not recovered); likewise
  latency             median over runs of each run's TTFT p90 (ttft_p90_s), TTFT p90 of
                      the turns sent in the last 10 minutes (end_ttft_p90_s), TPOT p90,
                      end-to-end p90, and goodput (TTFT ≤ 2s, TPOT ≤ 100ms); likewise.
                      Lower latency and higher goodput are better: a significant change
                      the other way is flagged "worse"
  cold-cost b, 1/S    fits over caching-off runs; difference with a normal interval, z-test
Each other column shows its change, or ~ when not significant, with
(p=… n=…); p-values are Holm-adjusted across a table's rows. Warnings are
footnotes. Exit status 0 whatever the differences (see "outlast check").

Examples:
  outlast compare old=ds-0.8 new=ds-0.9
  outlast compare --by engine_version ds
  outlast compare --ignore pool v1=ds400k v2=ds200k --format csv
  outlast compare --measures ttft_p90_s,end_ttft_p90_s,goodput old=ds-0.8 new=ds-0.9
  outlast compare --format html -o cmp.html old=ds-0.8 new=ds-0.9
`

func runCompare(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("compare", compareHelp)
	by := fs.String("by", "", "split one DATASET into columns by this runs `COLUMN`")
	ignore := fs.String("ignore", "", "comma-separated `FIELDS` of the configuration key that runs are not matched on: "+strings.Join(compare.KeyFields, ", "))
	alpha := fs.Float64("alpha", compare.DefaultAlpha, "significance `LEVEL`, in (0, 1)")
	confidence := fs.Float64("confidence", compare.DefaultConfidence, "confidence `LEVEL` of the intervals, in (0, 1)")
	noHolm := fs.Bool("no-holm", false, "report raw p-values instead of Holm-adjusted ones")
	measures := fs.String("measures", "", "comma-separated `MEASURES` to show (default all): "+strings.Join(compare.MeasureIDs(), ", "))
	format := fs.String("format", "text", "output `FORMAT`: text, csv, json or html")
	out := fs.out("output `FILE`; \"-\" or none: standard output")
	if err := fs.parse(stdout, args); err != nil {
		return err
	}
	// compare.Options reads 0 as "the default", so a level given as 0 is
	// refused here, where it is known to have been given.
	for _, l := range []struct {
		name  string
		level float64
	}{{"alpha", *alpha}, {"confidence", *confidence}} {
		if !(l.level > 0 && l.level < 1) {
			return usageErrorf("compare: --%s %g: want a level in (0, 1)", l.name, l.level)
		}
	}
	opts := compare.Options{Alpha: *alpha, Confidence: *confidence, NoHolm: *noHolm, By: *by}
	var err error
	if opts.Ignore, err = splitIgnore(*ignore); err != nil {
		return err
	}
	if opts.Measures, err = splitMeasures(*measures); err != nil {
		return err
	}
	switch *format {
	case "text", "csv", "json", "html":
	default:
		return usageErrorf("compare: --format %q: want text, csv, json or html", *format)
	}
	if err := checkOutFile("compare", *out); err != nil {
		return err
	}
	if *format != "html" {
		// Runs are summarized as they are read (compared); html holds
		// them all, which no fixed limit bounds.
		defer limitMemory(reportMemoryLimit)()
	}
	res, cols, err := compared(*format, fs.Args(), *by, opts, fs.readProgress(stderr))
	if err != nil {
		return err
	}
	write, err := compareWriter(*format, cols)
	if err != nil {
		return err
	}
	if *out == "" || *out == "-" {
		bw := bufio.NewWriter(stdout)
		if err := write(bw, res); err != nil {
			return err
		}
		return bw.Flush()
	}
	return atomicfile.Write(*out, func(w io.Writer) error { return write(w, res) })
}

// compared reads the columns of a comparison and compares them. The html
// format sets each column's report figures side by side, which need the
// runs' tables: the runs are all read into memory and returned. Otherwise
// each run is summarized as it is read and its tables dropped, so that
// memory does not grow with the number of runs.
func compared(format string, args []string, by string, opts compare.Options, p readProgress) (*compare.Result, []compare.Column, error) {
	var res *compare.Result
	var cols []compare.Column
	var err error
	if format == "html" {
		if cols, err = loadColumns(args, by, 2, p); err == nil {
			res, err = compare.Compare(cols, opts)
			err = usageIf(err)
		}
	} else {
		var fcols []compare.FactsColumn
		if fcols, err = loadFactsColumns(args, by, 2, p); err == nil {
			res, err = compare.CompareFacts(fcols, opts)
			err = usageIf(err)
		}
	}
	return res, cols, err
}

// usageIf makes a comparison's error a usage error.
func usageIf(err error) error {
	if err != nil {
		return usageErrorf("%v", err)
	}
	return nil
}

// compareWriter returns the writer of a --format.
func compareWriter(format string, cols []compare.Column) (func(io.Writer, *compare.Result) error, error) {
	switch format {
	case "text":
		return func(w io.Writer, r *compare.Result) error { return r.WriteText(w) }, nil
	case "csv":
		return func(w io.Writer, r *compare.Result) error { return r.WriteCSV(w) }, nil
	case "json":
		return func(w io.Writer, r *compare.Result) error { return r.WriteJSON(w) }, nil
	case "html":
		return func(w io.Writer, r *compare.Result) error { return page.Write(w, r, cols, reportFigures) }, nil
	}
	return nil, usageErrorf("--format %q: want text, csv, json or html", format)
}

// loadColumns reads the columns of a comparison, at least least of them:
// one per [LABEL=]DATASET argument, or, with by, one per value of that runs
// column in a single dataset; p shows the runs read.
func loadColumns(args []string, by string, least int, p readProgress) ([]compare.Column, error) {
	read := func(root string) ([]*schema.RunData, error) {
		var runs []*schema.RunData
		err := p.each(root, func(d *schema.RunData) error { runs = append(runs, d); return nil })
		return runs, err
	}
	return columnsOf(args, by, least, read, compare.SplitBy,
		func(label string, runs []*schema.RunData) compare.Column {
			return compare.Column{Label: label, Runs: runs}
		})
}

// loadFactsColumns is loadColumns with each run summarized for the
// comparison as it is read (compare.FactsOf, on every core), its tables
// not kept.
func loadFactsColumns(args []string, by string, least int, p readProgress) ([]compare.FactsColumn, error) {
	read := func(root string) ([]*compare.Facts, error) {
		var facts []*compare.Facts
		if err := datasetDir(root); err != nil {
			return nil, err
		}
		tick, done := p(root)
		defer done()
		err := dataset.EachWith(root, func(d *schema.RunData) (*compare.Facts, error) { return compare.FactsOf(d), nil },
			func(f *compare.Facts) error { tick(f.Run().Run); facts = append(facts, f); return nil }, forStats)
		return facts, err
	}
	return columnsOf(args, by, least, read, compare.SplitFactsBy,
		func(label string, runs []*compare.Facts) compare.FactsColumn {
			return compare.FactsColumn{Label: label, Runs: runs}
		})
}

// columnsOf reads the columns of a comparison whose runs are of type R
// (tables or facts) and columns of type C: read reads a dataset's runs,
// split splits them by a runs column, column labels them.
func columnsOf[R, C any](args []string, by string, least int, read func(string) ([]R, error),
	split func([]R, string) ([]C, error), column func(string, []R) C) ([]C, error) {
	if by != "" {
		if len(args) != 1 {
			return nil, usageErrorf("--by needs exactly one DATASET, have %d", len(args))
		}
		runs, err := read(args[0])
		if err != nil {
			return nil, inputError(err)
		}
		cols, err := split(runs, by)
		if err != nil {
			return nil, usageErrorf("--by: %v", err)
		}
		if len(cols) < least {
			return nil, inputError(fmt.Errorf("--by %s: every run of %s has the same value; nothing to compare", by, args[0]))
		}
		return cols, nil
	}
	if len(args) < least {
		if least == 1 {
			return nil, usageErrorf("need a DATASET, or --by COLUMN and one")
		}
		return nil, usageErrorf("need at least %d datasets, or --by COLUMN and one", least)
	}
	cols := make([]C, 0, len(args))
	for _, a := range args {
		label, path := columnArg(a)
		runs, err := read(path)
		if err != nil {
			return nil, inputError(err)
		}
		cols = append(cols, column(label, runs))
	}
	return cols, nil
}

// columnArg splits LABEL=DATASET; an argument that names an existing path,
// or has no "=", is a dataset labelled by its path.
func columnArg(arg string) (label, path string) {
	if _, err := os.Stat(arg); err == nil {
		return arg, arg
	}
	if l, p, ok := strings.Cut(arg, "="); ok && l != "" && p != "" {
		return l, p
	}
	return arg, arg
}

// splitIgnore parses --ignore: comma-separated key fields, each one of
// compare.KeyFields, checked before any dataset is read.
func splitIgnore(v string) ([]string, error) {
	return splitList("--ignore", v, compare.KeyFields, "cannot ignore %q: not a key field (%s)")
}

// splitMeasures parses --measures: comma-separated measure ids.
func splitMeasures(v string) ([]string, error) {
	return splitList("--measures", v, compare.MeasureIDs(), "unknown measure %q (want %s)")
}

// splitList parses the comma-separated value v of flag, each item one of
// allowed; an item that is not is a usage error worded by format, which
// takes the item and the allowed list.
func splitList(flag, v string, allowed []string, format string) ([]string, error) {
	if v == "" {
		return nil, nil
	}
	items := strings.Split(v, ",")
	for _, it := range items {
		if !slices.Contains(allowed, it) {
			return nil, usageErrorf("%s: "+format, flag, it, strings.Join(allowed, ", "))
		}
	}
	return items, nil
}
