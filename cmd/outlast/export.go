package main

import (
	"bufio"
	"io"
	"slices"
	"strings"

	"github.com/outlast-dev/outlast/internal/atomicfile"

	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/export"
	"github.com/outlast-dev/outlast/schema"
)

func init() {
	commands["export"] = command{summary: "write one table of a dataset as CSV or Arrow IPC (Feather)", run: runExport}
}

const exportHelp = `Usage: outlast export DATASET --table T [--format csv|arrow] [-o FILE]

Export writes one table of the dataset, every run together with the run name
as the first column, as CSV (nulls are empty fields) or as an Arrow IPC file
(Feather v2, zstd), which pandas, polars and pyarrow open directly:
pyarrow.feather.read_table("turns.arrow").

Tables: ` + "runs, sessions, turns, events, engine" + `

The runs are read and written one at a time. With -o FILE the file appears
only once every run was read; to standard output a run that cannot be read
(exit status 2) comes after the rows of those before it, already written.

Examples:
  outlast export ds --table turns > turns.csv
  outlast export ds --table engine --format arrow --out engine.arrow
  outlast export ds --table runs -o runs.csv
`

func runExport(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("export", exportHelp)
	table := fs.String("table", "", "`TABLE` to export (required): "+strings.Join(schema.Tables, ", "))
	format := fs.String("format", "csv", "output `FORMAT`: csv or arrow (feather is arrow too)")
	out := fs.out("output `FILE`; \"-\" or none: standard output")
	if err := fs.parse(stdout, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *table == "" {
		return usageErrorf("export needs one DATASET and --table")
	}
	var newWriter func(io.Writer, string) (*export.Writer, error)
	switch *format {
	case "csv":
		newWriter = export.NewCSVWriter
	case "arrow", "feather":
		newWriter = export.NewArrowWriter
	default:
		return usageErrorf("export: --format %q: want csv or arrow", *format)
	}
	if !slices.Contains(schema.Tables, *table) {
		return usageErrorf("export: --table %q: want %s", *table, strings.Join(schema.Tables, ", "))
	}
	if err := checkOutFile("export", *out); err != nil {
		return err
	}
	root := fs.Arg(0)
	if err := datasetDir(root); err != nil {
		return err
	}
	if _, err := dataset.Runs(root); err != nil {
		return inputError(err)
	}
	// The runs are read and written one at a time, so that memory does not
	// grow with the dataset. Rows written to a terminal would be drawn
	// among the bar's redraws: there is no bar then.
	progress := fs.readProgress(stderr)
	if (*out == "" || *out == "-") && isTerminal(stdout) {
		progress = noProgress
	}
	write := func(w io.Writer) error {
		tw, err := newWriter(w, *table)
		if err != nil {
			return err
		}
		err = progress.each(root, func(d *schema.RunData) error {
			if err := tw.Write(d); err != nil {
				return writeError{err}
			}
			return nil
		})
		if err != nil {
			if we, ok := err.(writeError); ok {
				return we.error
			}
			// The CSV rows of the runs before the one that cannot be
			// read are written whole, as the help says; an Arrow file
			// is left without its footer, not closed as if complete.
			if *format == "csv" {
				tw.Close()
			}
			return inputError(err)
		}
		return tw.Close()
	}
	if *out == "" || *out == "-" {
		bw := bufio.NewWriter(stdout)
		err := write(bw)
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
		return err
	}
	return atomicfile.Write(*out, write)
}

// writeError marks an error writing the output, apart from one reading
// the dataset.
type writeError struct{ error }
