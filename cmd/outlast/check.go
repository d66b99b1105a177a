package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/outlast-dev/outlast/internal/atomicfile"

	"github.com/outlast-dev/outlast/compare"
	"github.com/outlast-dev/outlast/compare/check"
)

func init() {
	commands["check"] = command{summary: "CI gate: check rules over a dataset or a comparison (exit 1 when one fails)", run: runCheck}
}

const checkHelp = `Usage: outlast check (--rules FILE | --require KEY=VALUE...) [flags] [LABEL=]DATASET...
       outlast check (--rules FILE | --require KEY=VALUE...) --by COLUMN DATASET

Check evaluates rules over one dataset, or over a comparison of several
(labelled as in "outlast compare"; the first is the baseline), prints each
rule with its verdict and the numbers behind it, and exits 0 when every rule
holds, 1 when one fails, 2 for bad input or usage. The printed verdict and
the exit status always agree.

A rules file:

  rules:
    - name: prevention never collapses
      where: {design: prevention}
      require: {persistent_runs: 0}
    - name: healthy arms keep the cache
      where: {arm: no-burst}
      require: {min_end_hit_ratio: 0.9}
    - name: B not worse than A
      compare: {baseline: A, candidate: B}
      require: {collapse_rate_not_worse: true, alpha: 0.05}

-o FILE writes them to FILE instead of standard output (as compare's -o).
--format json prints the same verdicts as one JSON object (pass, passed,
failed, and each rule's details with the measure, value, limit, p-value and
runs behind them); --format markdown prints them for a CI job's summary page
(e.g. >> "$GITHUB_STEP_SUMMARY"). The exit status is the same in every
format.

Run requirements: persistent_runs, min_end_hit_ratio, max_end_sessions,
max_recovery_min, min_runs (default 1); on latency (seconds, each run's
completed turns) max_ttft_p90_s, max_end_ttft_p90_s (turns sent in the last
10 minutes), max_tpot_p90_s, max_e2e_p90_s, and min_goodput (the share of
completed turns with TTFT ≤ 2s and TPOT ≤ 100ms). A --require bound may be
written as one: end_ttft_p90_s<=5 is max_end_ttft_p90_s=5, goodput>=0.9
min_goodput=0.9. Comparison requirements: collapse_rate_not_worse,
hit_ratio_not_worse, throughput_not_worse, ttft_p90_not_worse,
end_ttft_p90_not_worse, tpot_p90_not_worse, e2e_p90_not_worse,
goodput_not_worse, alpha.
A comparison requirement fails where the candidate is significantly worse,
and also where too few runs were compared for any outcome to be
significant at alpha, whichever way it went (the detail says so): a gate
that cannot fail would pass anything. See the
package documentation of compare/check for their exact meaning.
Without a file, --where and --require make one rule.

Examples:
  outlast check --rules ci.yaml A=ds-main B=ds-pr
  outlast check --where design=prevention --require persistent_runs=0 ds
  outlast check --require collapse_rate_not_worse=true old=ds-0.8 new=ds-0.9
  outlast check --require 'end_ttft_p90_s<=5' --require 'goodput>=0.9' ds-new
  outlast check --rules ci.yaml --format markdown A=ds-main B=ds-pr >> "$GITHUB_STEP_SUMMARY"
  outlast check --rules ci.yaml --format json -o verdict.json A=ds-main B=ds-pr
`

func runCheck(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("check", checkHelp)
	rulesPath := fs.String("rules", "", "the YAML rules `FILE`")
	var where, require repeatedFlag
	fs.Var(&where, "where", "`COLUMN=VALUE` selecting runs for the --require rule (repeatable)")
	fs.Var(&require, "require", "`KEY=VALUE` requirement of a rule built from flags, or a bound MEASURE<=VALUE, MEASURE>=VALUE (repeatable)")
	by := fs.String("by", "", "split one DATASET into columns by this runs `COLUMN`")
	ignore := fs.String("ignore", "", "comma-separated `FIELDS` of the configuration key that runs are not matched on: "+strings.Join(compare.KeyFields, ", "))
	noHolm := fs.Bool("no-holm", false, "comparison rules use raw p-values instead of Holm-adjusted ones")
	out := fs.out("output `FILE`; \"-\" or none: standard output")
	format := fs.String("format", check.FormatText, "output `FORMAT`: text, json (every verdict with its numbers) or markdown (for a CI job's summary page)")
	if err := fs.parse(stdout, args); err != nil {
		return err
	}
	switch *format {
	case check.FormatText, check.FormatJSON, check.FormatMarkdown:
	default:
		return usageErrorf("check: --format %q: want text, json or markdown", *format)
	}
	if err := checkOutFile("check", *out); err != nil {
		return err
	}
	opts := compare.Options{By: *by, NoHolm: *noHolm}
	var err error
	if opts.Ignore, err = splitIgnore(*ignore); err != nil {
		return err
	}
	var rules *check.Rules
	switch {
	case *rulesPath != "" && (len(where) > 0 || len(require) > 0):
		return usageErrorf("check: give --rules or --where/--require, not both")
	case *rulesPath != "":
		if err := mustExist("check: --rules ", *rulesPath); err != nil {
			return err
		}
		data, err := os.ReadFile(*rulesPath)
		if err != nil {
			return inputError(err)
		}
		if rules, err = check.Parse(data, *rulesPath); err != nil {
			return inputError(err)
		}
	case len(require) > 0:
		if rules, err = check.FromFlags(where, require); err != nil {
			return usageErrorf("check: %v", err)
		}
	default:
		return usageErrorf("check needs --rules FILE or --require KEY=VALUE")
	}
	cols, err := loadColumns(fs.Args(), *by, 1, fs.readProgress(stderr))
	if err != nil {
		return err
	}
	rep, err := check.Evaluate(rules, cols, opts)
	if err != nil {
		return inputError(err)
	}
	// The writers buffer their output and report a failed write.
	if *out == "" || *out == "-" {
		if err := rep.Write(stdout, *format); err != nil {
			return err
		}
	} else if err := atomicfile.Write(*out, func(w io.Writer) error { return rep.Write(w, *format) }); err != nil {
		return err
	}
	if n := rep.Failed(); n > 0 {
		return findingError(fmt.Errorf("%s failed", countNoun(n, "rule")))
	}
	return nil
}

// countNoun returns "1 run", "2 runs": n and what, plural but for 1.
func countNoun(n int, what string) string { return countNouns(n, what, what+"s") }

// countNouns is countNoun for a noun whose plural is not one+"s".
func countNouns(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
