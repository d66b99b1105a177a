package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/outlast-dev/outlast/alerts"
	"github.com/outlast-dev/outlast/dataset"
	"github.com/outlast-dev/outlast/internal/atomicfile"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

func init() {
	commands["rules"] = command{summary: "write Prometheus rules that alert on a persistently degraded prefix cache", run: runRules}
	commands["dashboard"] = command{summary: "write a Grafana dashboard of the prefix-cache regime", run: runDashboard}
}

const rulesHelp = `Usage: outlast rules --engine vllm|sglang [--from DATASET] [-o FILE]

Rules writes a Prometheus rule file that watches vLLM or SGLang servers for
the regime of "Bursts That Outlast Themselves" (arXiv:2611.13412): a burst
leaves a prefix-cached server with a hit ratio near 0.1, half its throughput
and a growing queue, at a load it otherwise sustains, and it stays so.

Recording rules, per engine instance (instance, job and the labels of your
scrape configuration kept; the engine's own replica, rank and model labels
folded): the prefix-cache hit ratio from the counters' rates over 1, 5 and
10 minutes, requests running and waiting, their mean over 5 minutes, KV
cache usage, preemptions per second. Each metric is read by every name
outlast knows it by ("vllm:" and "vllm_" spellings, the old gpu_ names,
SGLang's cached_tokens_total over its cache_source series).

Alerts:
  PrefixCacheDegradationOnset      warning: the 5-minute hit ratio fell
                                   below the degraded threshold under load
  PrefixCachePersistentlyDegraded  critical: the two latest 5-minute
                                   windows are degraded under load, the
                                   batch verdict's rule as far as a live
                                   rule can see
Neither judges an engine in its first 5 minutes of traffic (a cold cache),
one holding less than one request on average (an idle server), nor one
whose 5-minute hit ratio has not been healthy (0.8) in the last 24 hours
(a workload that reuses little: the regime is a fall from a healthy ratio).

The thresholds are the paper's. With --from DATASET the degraded hit ratio
is taken from the dataset's runs of the engine: midway between the highest
5-minute engine hit ratio of its persistent runs (from their first degraded
window on) and the lowest of its never-degraded runs. A dataset without
both, or whose two kinds of run overlap, gives none (exit status 1). The
file's head says where each threshold came from. docs/alerts.md says how to
load the file and what each alert means.

Examples:
  outlast rules --engine vllm -o outlast-vllm.rules.yml
  promtool check rules outlast-vllm.rules.yml
  outlast rules --engine sglang --from ds -o outlast-sglang.rules.yml
  outlast dashboard --engine vllm -o outlast-vllm.dashboard.json
`

const dashboardHelp = `Usage: outlast dashboard --engine vllm|sglang [--from DATASET] [-o FILE]

Dashboard writes a Grafana dashboard (JSON model; import it under
Dashboards > New > Import) of the series that "outlast rules" records,
per engine instance, as the report's engine view draws a run: the
prefix-cache hit ratio against the degraded and healthy thresholds, requests
running and waiting, KV cache usage, preemptions per minute, and the state
of the rules' alerts. Its data source is a variable: pick any Prometheus
that evaluates the rule file. --from DATASET draws the threshold that
"outlast rules --from DATASET" takes from the dataset.

Examples:
  outlast rules --engine vllm -o outlast-vllm.rules.yml
  outlast dashboard --engine vllm -o outlast-vllm.dashboard.json
  outlast dashboard --engine sglang --from ds > sglang.json
`

func runRules(stdout, stderr io.Writer, args []string) error {
	return runAlertFile(stdout, stderr, args, "rules", rulesHelp, alerts.Rules)
}

func runDashboard(stdout, stderr io.Writer, args []string) error {
	return runAlertFile(stdout, stderr, args, "dashboard", dashboardHelp, alerts.Dashboard)
}

// runAlertFile is rules and dashboard: the same flags, one file each.
func runAlertFile(stdout, stderr io.Writer, args []string, name, help string, gen func(string, alerts.Thresholds) ([]byte, error)) error {
	fs := newFlags(name, help)
	engine := fs.String("engine", "", "`ENGINE` whose metrics to read (required): "+strings.Join(alerts.Engines, " or "))
	from := fs.String("from", "", "take the degraded threshold from the runs of `DATASET`")
	out := fs.out("output `FILE`; \"-\" or none: standard output")
	if err := fs.parse(stdout, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf("%s takes no arguments (the dataset goes with --from)", name)
	}
	if !slices.Contains(alerts.Engines, *engine) {
		return usageErrorf("%s: --engine %q: want %s", name, *engine, strings.Join(alerts.Engines, " or "))
	}
	if err := checkOutFile(name, *out); err != nil {
		return err
	}
	th := alerts.Paper()
	if *from != "" {
		var err error
		var noCounters int
		th, noCounters, err = thresholdsFrom(*from, *engine, fs.readProgress(stderr))
		if noCounters > 0 {
			fmt.Fprintf(stderr, "%s: warning: %d persistent or never-degraded %s runs of %s left out: their engine exported no prefix-cache counters, which the rules read\n", name, noCounters, *engine, *from)
		}
		if err != nil {
			return err
		}
		if !fs.quiet {
			fmt.Fprintf(stderr, "%s: degraded hit ratio %s, %s\n", name, strconvG(th.DegradedHit.Value), th.DegradedHit.Source)
		}
	}
	b, err := gen(*engine, th)
	if err != nil {
		return err
	}
	if *out == "" || *out == "-" {
		bw := bufio.NewWriter(stdout)
		bw.Write(b)
		return bw.Flush()
	}
	return atomicfile.Write(*out, func(w io.Writer) error { _, err := w.Write(b); return err })
}

// thresholdsFrom reads the runs of engine in the dataset at root and
// takes the thresholds from the separation of its persistent and
// never-degraded runs' 5-minute engine hit ratios (alerts.FromRuns). A
// dataset that gives none is a finding (exit status 1). noCounters counts
// the runs of either kind left out for want of the engine's prefix-cache
// counters.
func thresholdsFrom(root, engine string, progress readProgress) (th alerts.Thresholds, noCounters int, err error) {
	var runs []alerts.RunWindows
	err = progress.each(root, func(d *schema.RunData) error {
		if d.Run.EngineName != engine {
			return nil
		}
		r, counters := runWindows(d)
		switch {
		case r.Class == "":
		case !counters:
			noCounters++
		default:
			runs = append(runs, r)
		}
		return nil
	}, dataset.SkipEngineColumns(stats.UnreadEngineColumns...))
	if err != nil {
		return th, noCounters, inputError(err)
	}
	th, err = alerts.FromRuns(root, runs)
	if errors.Is(err, alerts.ErrNoSeparation) {
		err = findingError(err)
	}
	return th, noCounters, err
}

// runWindows is a judged run's 5-minute engine hit ratios as its verdict
// judged them (alerts.RunWindows); its Class is "" for a run of another
// verdict. counters is false when the engine exported no prefix-cache
// counters, which the rules read.
func runWindows(d *schema.RunData) (r alerts.RunWindows, counters bool) {
	x := stats.NewRunIndex(d)
	s := x.Summarize()
	class := ""
	switch s.Verdict {
	case stats.VerdictPersistent:
		class = alerts.ClassPersistent
	case stats.VerdictNeverDegraded:
		class = alerts.ClassNeverDegraded
	default:
		return r, false
	}
	reg := x.Regime()
	var ws []stats.Window
	for _, w := range reg.Windows {
		if class == alerts.ClassNeverDegraded || w.Start >= reg.FirstDegradedS {
			ws = append(ws, w.Window)
		}
	}
	hits, src := x.EngineHitRatios(x.EngineWindows(ws))
	return alerts.RunWindows{Run: d.Run.Run, Class: class, Hits: hits}, src == stats.EngineHitCounters
}

func strconvG(v float64) string { return fmt.Sprintf("%g", v) }
