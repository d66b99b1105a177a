package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/outlast-dev/outlast/ingest/manifest"
	"github.com/outlast-dev/outlast/ingest/runinit"
)

func init() {
	commands["init"] = command{summary: "write a run directory's run.yaml from its files", run: writesFiles(runInit)}
}

const initHelp = `Usage: outlast init [--engine-log F] [--metrics F] DIR

Init writes DIR/run.yaml, the manifest outlast ingest needs, from what the
files in DIR say: the gateway log (outlast's gateway.jsonl, or the export of
AIPerf, GuideLLM or inference-perf, found by name and recognised by its
first bytes, else by its name), started_at and duration_s from its first and last requests,
the model and the load generator's rate or concurrency from its own summary
or configuration file, and the engine, its version, prefix caching and KV
pool from the engine log (engine.log unless --engine-log names another file
inside DIR; metrics.prom likewise).

What no file says (experiment, design, arm, seed, trigger, and anything not
found) is written as <fill in> with a comment saying what goes there;
outlast ingest refuses the manifest, naming the key, until each is
replaced. Init never overwrites an existing run.yaml.

Examples:
  outlast init artifacts/qwen3-agentic && $EDITOR artifacts/qwen3-agentic/run.yaml
  outlast ingest --out ds artifacts/qwen3-agentic
  outlast init --engine-log vllm.out reports-20261027-115941
`

func runInit(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("init", initHelp)
	engineLog := fs.String("engine-log", "", "the engine log, a `FILE` inside DIR (default engine.log when there is one)")
	metrics := fs.String("metrics", "", "the metrics scrapes, a `FILE` inside DIR (default metrics.prom when there is one)")
	if err := fs.parse(stdout, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("init needs one run directory DIR")
	}
	dir := fs.Arg(0)
	if err := mustExist("init: ", dir); err != nil {
		return err
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return inputError(fmt.Errorf("init: %s is a file, not a run directory", dir))
	}
	f, err := runinit.Init(dir, runinit.Options{EngineLog: *engineLog, Metrics: *metrics})
	if err != nil {
		return inputError(err)
	}
	if fs.quiet {
		return nil
	}
	fmt.Fprintf(stdout, "wrote %s: gateway %s (%s, %d requests)", filepath.Join(dir, "run.yaml"), f.Gateway, f.GatewayFormat, f.Requests)
	if f.EngineLog != "" {
		fmt.Fprintf(stdout, ", engine log %s", f.EngineLog)
	}
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "fill in every %s in it, then: outlast ingest --out DATASET %s\n", manifest.Placeholder, dir)
	return nil
}
