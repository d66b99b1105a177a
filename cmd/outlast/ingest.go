package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/ingest/campaign"
	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/schema"
)

func init() {
	commands["ingest"] = command{summary: "read run directories into a Parquet dataset", run: writesFiles(runIngest)}
}

const ingestHelp = `Usage: outlast ingest [--lenient] -o DATASET RUN_DIR...

Ingest reads run directories (run.yaml, gateway.jsonl, and optionally
engine.log and metrics.prom, each possibly .gz or .zst; see
docs/run-format.md) and writes their tables into the Parquet dataset DATASET:

  DATASET/{runs,sessions,turns,events,engine}/run=NAME/part-0.parquet

DATASET is a new or empty directory, or a dataset an ingest wrote; any
other directory is refused, before anything is written. An ingest that
fails leaves it as it was, and removes it when it made it.

A directory without run.yaml is searched at any depth for run directories
(those holding run.yaml; not below them, nor in directories named ".*" or
in datasets), following symbolic links, so "outlast ingest --out ds
campaign" takes every run of campaign/MODEL/RATE/SEED/. Each directory
under it that holds no run is named on standard error, with why: a gateway
log without run.yaml wants "outlast init DIR" first. Run directories are
read several at a time, on every core, the per-run lines printed in the
order found; memory stays bounded whatever their number.
Re-ingesting a run replaces its files; the same inputs give identical bytes.
A run of another experiment or arm under a name the dataset holds replaces
it too, with a warning: run names are unique in a dataset.
Several ingests may write one dataset at once and all succeed (commits take
turns; of two ingests of one run the later commit wins). An ingest that was
killed leaves DATASET/.staging-*; the next ingest removes it, or, if it was
killed while committing, finishes its commit (so does any command that
reads the dataset).

Strict by default: the first bad line stops the ingest with its position
(file:line: reason), exit status 2, and the dataset is left as it was.
With --lenient, bad lines are kept verbatim with their reasons in
DATASET/_rejects/RUN.jsonl and counted in the summary.

Examples:
  outlast ingest --out ds fixtures/real/vllm-2026
  outlast ingest --lenient --out ds runs/*
  outlast ingest -q -o ds runs/paired        # no per-run summary
`

func runIngest(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("ingest", ingestHelp)
	out := fs.out("`DATASET` directory to write (created if needed; required)")
	lenient := fs.Bool("lenient", false, "keep going past bad lines, keeping them under DATASET/_rejects/")
	if err := fs.parse(stdout, args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return usageErrorf("ingest needs --out DATASET and at least one RUN_DIR")
	}
	if err := checkOutDir("ingest", *out); err != nil {
		return err
	}
	if err := mustExist("ingest: ", fs.Args()...); err != nil {
		return err
	}
	made, err := checkOutDataset(*out)
	if err != nil {
		return err
	}
	defer collectNear(ingestMemoryLimit)()
	dirs, skipped, err := campaign.Find(fs.Args())
	if err != nil {
		return inputError(err)
	}
	for _, s := range skipped {
		fmt.Fprintf(stderr, "outlast: skipped %s: %s\n", s.Dir, s.Reason())
	}
	_, statErr := os.Stat(filepath.Join(*out, schema.TableRuns))
	hadRuns := statErr == nil // for the message of an ingest that stops
	stage, err := dataset.NewStage(*out, version)
	if err != nil {
		removeMade(*out, made)
		return err
	}
	if !fs.quiet {
		for _, o := range stage.Removed() {
			if o.Finished > 0 {
				fmt.Fprintf(stderr, "outlast: finished the commit of %d run(s) in %s, left by an ingest killed while committing (%s)\n", o.Finished, filepath.Join(*out, o.Stage), o)
				continue
			}
			fmt.Fprintf(stderr, "outlast: removed %s, left by an ingest that did not finish (%s)\n", filepath.Join(*out, o.Stage), o)
		}
	}
	bar := fs.bar(stderr, "ingest", len(dirs))
	// A failed ingest leaves the dataset as it was: without its stage, and
	// not there at all when this ingest made it.
	committed, aborted := false, false
	abort := func() bool {
		if committed || aborted {
			return false
		}
		aborted = true
		stage.Abort()
		return removeMade(*out, made)
	}
	defer abort()
	// The dataset's run writer is the Sink the runs stream into: the turns
	// and sessions go to the stage as the gateway log is read, so memory
	// does not grow with the log. Several directories are read at once;
	// their results come back in the order of dirs.
	begin := func(name string) (rundir.Sink, error) { return stage.BeginRun(name) }
	var totalRejects, runs int
	opt := campaign.Options{
		Run:      rundir.Options{Lenient: *lenient, Version: version},
		Progress: bar.stepBytes,
	}
	err = campaign.Ingest(dirs, opt, begin, func(_ int, results []*rundir.Result) error {
		bar.clear()
		for _, res := range results {
			if err := stage.WriteRejects(res.Data.Run.Run, res.Rejects); err != nil {
				return stageError{err}
			}
			for _, w := range res.Warnings {
				fmt.Fprintf(stderr, "outlast: %s: %s\n", res.Data.Run.Run, w)
			}
			if w := replacesAnother(*out, &res.Data.Run); w != "" {
				fmt.Fprintf(stderr, "outlast: %s: %s\n", res.Data.Run.Run, w)
			}
			totalRejects += len(res.Rejects)
			runs++
			if fs.quiet && len(res.Rejects) > 0 {
				// The summary line is silenced, not the lines lost.
				fmt.Fprintf(stderr, "outlast: %s: %s rejected (--lenient), kept in %s\n", res.Data.Run.Run,
					countNoun(len(res.Rejects), "line"), filepath.Join(*out, dataset.RejectsDir, res.Data.Run.Run+".jsonl"))
			}
			if !fs.quiet {
				d := res.Data
				fmt.Fprintf(stdout, "%-24s sessions %5d  turns %7d  events %5d  engine samples %6d  rejected %d\n",
					d.Run.Run, res.Sessions, res.Turns, len(d.Events), len(d.Engine), len(res.Rejects))
			}
		}
		return nil
	})
	bar.done()
	if se, ok := err.(stageError); ok {
		return se.error
	}
	if err != nil {
		if runs > 0 {
			// Their lines were printed as they were read: say that none
			// of them is in the dataset.
			what := fmt.Sprintf("the %d runs read before the error were", runs)
			if runs == 1 {
				what = "the run read before the error was"
			}
			state := *out + " is as it was"
			if !hadRuns {
				state = "no run was written to " + *out
			}
			if abort() {
				state = *out + ", which this ingest made, is removed"
			}
			fmt.Fprintf(stderr, "outlast: ingest stopped: %s not committed; %s\n", what, state)
		}
		return inputError(err)
	}
	if err := stage.Commit(); err != nil {
		return err
	}
	committed = true
	if !fs.quiet {
		fmt.Fprintf(stdout, "ingested %s into %s", countNoun(runs, "run"), *out)
		if totalRejects > 0 {
			fmt.Fprintf(stdout, " (%s rejected, kept in %s)", countNoun(totalRejects, "line"), filepath.Join(*out, dataset.RejectsDir))
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

// replacesAnother returns a warning when the dataset at root holds a run
// of r's name from another experiment or arm, which the ingest replaces:
// a re-ingest replaces a run by design, but a name reused by another
// campaign (s501-burst is common) would replace a run that is no earlier
// version of this one, silently. "" otherwise.
func replacesAnother(root string, r *schema.Run) string {
	if _, err := os.Stat(dataset.PartitionDir(root, schema.TableRuns, r.Run)); err != nil {
		return ""
	}
	old, err := dataset.ReadRunRow(root, r.Run)
	if err != nil || old.Experiment == r.Experiment && old.Arm == r.Arm {
		return ""
	}
	return fmt.Sprintf("WARNING: replaces the dataset's run of this name from experiment %q, arm %q (this one: experiment %q, arm %q): run names are unique in a dataset, so the earlier run is lost; give one of them another name, or ingest into another dataset",
		old.Experiment, old.Arm, r.Experiment, r.Arm)
}

// stageError is an error writing the stage, not reading an input.
type stageError struct{ error }
