package inputs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/outlast-dev/outlast/ingest/aiperf"
	"github.com/outlast-dev/outlast/ingest/guidellm"
	"github.com/outlast-dev/outlast/ingest/inferenceperf"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/loadgen"
	"github.com/outlast-dev/outlast/ingest/outlastlog"
	"github.com/outlast-dev/outlast/schema"
)

// Request is a format of the request log, a row of Requests.
type Request struct {
	// Name is the format's name in files.gateway_format and
	// runs.gateway_format.
	Name string
	// Tool names the program that writes it, in messages.
	Tool string
	// Files are the names the tool gives the file by default, tried in
	// order (RequestLog) when run.yaml names no request log; a file so
	// named is this format when its first bytes show none (Detect).
	Files []string
	// Glob matches other names the tool may give the file (AIPerf's
	// --profile-export-prefix): outlast init takes a file it matches whose
	// first bytes Sniff knows. "" for none.
	Glob string
	// Sniff reports whether head, a file's first bytes (up to 4 KiB,
	// leading white space removed), are this format's; nil for outlast's
	// own log, which any file no row claims is.
	Sniff func(head []byte) bool
	// Summary says what the file named name (without a compression
	// suffix), whose first bytes are head (nil when unread), is when it
	// is one of the tool's summaries, which hold no request; "" otherwise.
	Summary func(name string, head []byte) string
	// Records opens outlast's own log, whose records carry sessions and
	// events besides turns; nil for a load generator's export.
	Records func(lr *lineio.Reader, t0 time.Time) RecordReader
	// Open opens a load generator's export, whose records are turns;
	// ingest derives the sessions. nil for outlast's own log.
	Open func(lr *lineio.Reader, opt Options) (Export, error)
	// Count returns how many runs (benchmarks) the export in r holds, for
	// a format whose export may hold several; nil for one run.
	Count func(r io.Reader) (int, error)
	// ClockOffset says the export's times are on a monotonic clock, which
	// files.clock_offset_s may put on the wall clock.
	ClockOffset bool
	// Config reads what the tool's own configuration or summary beside
	// the export (named export, in dir) says of the run, for outlast
	// init; nil when there is none.
	Config func(dir, export string) Config
}

// Requests are the request-log formats, in the order Detect tries their
// Sniff and RequestLog their Files. Outlast's own log comes first: its
// gateway.jsonl is the default name.
var Requests = []Request{
	{
		Name:    schema.GatewayOutlast,
		Tool:    "outlast",
		Files:   []string{"gateway.jsonl"},
		Records: func(lr *lineio.Reader, t0 time.Time) RecordReader { return outlastlog.NewReader(lr, t0) },
	},
	{
		// AIPerf's OutputDefaults.PROFILE_EXPORT_FILE
		// (aiperf/common/config/config_defaults.py).
		Name:    schema.GatewayAIPerf,
		Tool:    "AIPerf",
		Files:   []string{"profile_export.jsonl"},
		Glob:    "*.jsonl",
		Sniff:   func(head []byte) bool { return aiperf.Sniff(firstLine(head)) },
		Summary: aiperf.Summary,
		Open:    openAIPerf,
		Config:  aiperfConfig,
	},
	{
		// GuideLLM's default outputs (benchmark/output.py at v0.3.1,
		// benchmark/outputs/serialized.py since).
		Name:    schema.GatewayGuideLLM,
		Tool:    "GuideLLM",
		Files:   []string{"benchmarks.json", "benchmarks.yaml"},
		Sniff:   guidellm.Sniff,
		Summary: byName(guidellm.Summary),
		Open:    openGuideLLM,
		Count:   guidellm.Count,
	},
	{
		// inference-perf's report name (reportgen/base.py).
		Name:        schema.GatewayInferencePerf,
		Tool:        "inference-perf",
		Files:       []string{"per_request_lifecycle_metrics.json"},
		Sniff:       inferenceperf.Sniff,
		Summary:     byName(inferenceperf.Summary),
		Open:        openInferencePerf,
		ClockOffset: true,
		Config:      inferencePerfConfig,
	},
}

// byName adapts a Summary that goes by the file's name alone.
func byName(summary func(name string) string) func(string, []byte) string {
	return func(name string, _ []byte) string { return summary(name) }
}

// openAIPerf opens AIPerf's profile_export.jsonl: one run, less its
// warm-up records.
func openAIPerf(lr *lineio.Reader, opt Options) (Export, error) {
	var rd *aiperf.Reader
	plan, planWarning := aiperfPlan(opt.Path)
	return &oneRun{
		turns: func(t0 time.Time) loadgen.Source {
			rd = aiperf.NewReader(lr, t0)
			rd.SetPlan(plan)
			return rd
		},
		done: func() Done {
			ws := rd.Warnings()
			if plan == nil && rd.Info().MultiTurn {
				ws = append(ws, planWarning)
			}
			return Done{Warnings: ws, Excluded: int64(rd.Info().Warmup)}
		},
		close: func() {
			if rd != nil {
				rd.Close()
			}
		},
	}, nil
}

// aiperfPlan reads AIPerf's inputs.json beside the export at path: the
// turns planned for each conversation, nil without it, and what a
// multi-turn run then cannot tell.
func aiperfPlan(path string) (map[string]int64, string) {
	lost := "AIPerf writes no session end and drops a request that ends after the benchmark's duration and grace period, " +
		"so a conversation the end cut short reads as ended at its last recorded turn: the sessions in the system at the end may be undercounted"
	if path == "" {
		return nil, ""
	}
	name := filepath.Join(filepath.Dir(path), aiperf.PlanFile)
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Sprintf("WARNING: no %s beside %s (the dataset AIPerf writes, one payload per turn): %s; keep it in the run directory",
			aiperf.PlanFile, filepath.Base(path), lost)
	}
	if err != nil {
		return nil, fmt.Sprintf("WARNING: %v: %s", err, lost)
	}
	defer f.Close()
	plan, err := aiperf.ReadPlan(f, aiperf.PlanFile)
	if err != nil {
		return nil, fmt.Sprintf("WARNING: %v: the turns planned are not known: %s", err, lost)
	}
	return plan, ""
}

// openInferencePerf opens inference-perf's per_request_lifecycle_metrics.json:
// one run, its perf_counter times put on the wall clock by
// files.clock_offset_s or the files beside it.
func openInferencePerf(lr *lineio.Reader, opt Options) (Export, error) {
	var rd *inferenceperf.Reader
	return &oneRun{
		turns: func(t0 time.Time) loadgen.Source {
			rd = inferenceperf.NewReader(lr, lr.Name(), inferenceperf.Options{
				T0:           t0,
				ClockOffsetS: opt.ClockOffsetS,
				PerSession:   filepath.Join(filepath.Dir(opt.Path), inferenceperf.PerSessionFile),
			})
			return rd
		},
		done: func() Done {
			a := rd.Anchor()
			if a.Method == "" { // ErrNoClock: the records read, but gave no turn
				return Done{Warnings: rd.Warnings(), Unplaced: rd.Records()}
			}
			d := Done{Warnings: rd.Warnings(), Clock: &Clock{Method: a.Method, OffsetS: a.OffsetS, UncertaintyS: a.UncertaintyS}}
			if a.UncertaintyS != nil {
				d.Warnings = append(d.Warnings, fmt.Sprintf("%s: request times are inference-perf's perf_counter, put on the wall clock from %s: offset %.3f s ± %.3f s",
					lr.Name(), a.Method, a.OffsetS, *a.UncertaintyS))
			}
			return d
		},
		close: func() {},
	}, nil
}

// openGuideLLM opens a GuideLLM report: a run per benchmark.
func openGuideLLM(lr *lineio.Reader, opt Options) (Export, error) {
	rd, err := guidellm.NewReader(lr, lr.Name(), guidellm.Options{Lenient: opt.Lenient})
	if err != nil {
		return nil, err
	}
	return &guidellmReport{rd: rd}, nil
}

// guidellmReport is a GuideLLM report read as an Export.
type guidellmReport struct {
	rd *guidellm.Reader
	b  *guidellm.Benchmark
}

func (g *guidellmReport) NextRun() (Run, error) {
	b, err := g.rd.NextBenchmark()
	if err != nil {
		return Run{}, err
	}
	g.b = b
	idx := int64(b.Index)
	return Run{
		Benchmark: &idx, Start: b.Start, End: b.End,
		Strategy: b.Strategy, Rate: b.Rate, Concurrency: b.Concurrency,
		StrategyFrom: fmt.Sprintf("benchmarks[%d].%s", b.Index, b.StrategyAt),
	}, nil
}

func (g *guidellmReport) Turns(t0 time.Time) loadgen.Source {
	g.rd.SetT0(t0)
	return g.rd
}

func (g *guidellmReport) Done() Done {
	// The benchmark's model (v0.7's config.backend.model, v0.3's
	// worker.backend_model), else the report's (v0.4-v0.6 args).
	model := g.b.Model
	if model == "" {
		model = g.rd.Report().Model
	}
	return Done{Warnings: g.rd.TakeWarnings(), Excluded: g.b.Excluded, Model: model}
}

func (g *guidellmReport) Close() {}
