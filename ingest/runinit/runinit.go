// Package runinit writes a run directory's manifest, run.yaml, from what
// the files in it say (outlast init): the gateway log and its format, the
// run's start and length from its first and last requests, the model and
// the load generator's rate or concurrency from its own configuration or
// summary file, the engine, its version and KV pool from the engine log.
// What no file says (experiment, design, arm, seed, trigger, and anything
// it could not find) is written as manifest.Placeholder with a comment
// saying what goes there; outlast ingest refuses the manifest until each
// is filled in.
//
// runinit.go gathers the facts and writes the manifest, requests.go reads
// the requests' time span and what the load generator's export and
// configuration say (through the table of formats, ingest/inputs),
// engine.go the engine log's header lines.
package runinit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/ingest/inputs"
	"github.com/outlast-dev/outlast/ingest/manifest"
	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/internal/atomicfile"
	"github.com/outlast-dev/outlast/schema"
)

// Options names the engine log and metrics files, relative to the run
// directory or absolute inside it; "" looks for the default names.
type Options struct {
	EngineLog string
	Metrics   string
}

// Facts are what the files of a run directory say, each with where it came
// from (for the manifest's comments).
type Facts struct {
	Run           string
	Gateway       string // file name in the directory
	GatewayFormat string
	Start, End    float64 // Unix seconds of the first request's start and the last one's end; NaN if unknown
	// SpanBenchmark says Start and End are the benchmark's own run's
	// (GuideLLM's scheduler_metrics), which a sampled report's requests
	// do not span.
	SpanBenchmark bool
	Benchmarks    int // the benchmarks of an export of several (GuideLLM's)
	Requests      int
	// ClockUnknown says the gateway log's clock is monotonic and nothing
	// anchors it: files.clock_offset_s must be given.
	ClockUnknown bool

	Model, ModelFrom string
	LoadStrategy     string
	RequestRate      *float64
	Concurrency      *int64
	LoadFrom         string
	LoadNote         string // e.g. several stages

	EngineLog, Metrics string // file names, "" without
	// PrefillLogs and DecodeLogs are a disaggregated deployment's engine
	// logs by role, found by their names when there is no engine log.
	PrefillLogs, DecodeLogs []string
	Engine                  EngineFacts
	Notes                   []string // other things the comments should say
}

// Init writes dir/run.yaml from the files in dir and returns what it
// found. It never overwrites an existing run.yaml.
func Init(dir string, opt Options) (*Facts, error) {
	path := filepath.Join(dir, rundir.ManifestName)
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("%s already exists: outlast init never overwrites a manifest", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	f, err := Gather(dir, opt)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	f.Write(&buf)
	if err := atomicfile.WriteFile(path, buf.Bytes()); err != nil {
		return nil, err
	}
	return f, nil
}

// Gather reads the facts of the run directory dir.
func Gather(dir string, opt Options) (*Facts, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	f := &Facts{Run: runName(dir), Start: math.NaN(), End: math.NaN()}
	if f.Gateway, err = findGateway(dir); err != nil {
		return nil, err
	}
	gw := filepath.Join(dir, f.Gateway)
	if f.GatewayFormat, err = inputs.Detect(gw); err != nil {
		return nil, err
	}
	format, _ := inputs.RequestNamed(f.GatewayFormat)
	if err := f.requests(gw, format); err != nil {
		return nil, err
	}
	if format.Config != nil {
		f.config(format.Config(dir, f.Gateway))
	}
	if f.EngineLog, err = inside(dir, opt.EngineLog, inputs.EngineLog.Defaults[0]); err != nil {
		return nil, err
	}
	if f.Metrics, err = inside(dir, opt.Metrics, inputs.Metrics.Defaults[0]); err != nil {
		return nil, err
	}
	if f.EngineLog == "" {
		if err := f.roleLogs(dir); err != nil {
			return nil, err
		}
	}
	if p := f.startupPath(dir); p != "" {
		if f.Engine, err = readEngine(p); err != nil {
			return nil, err
		}
	}
	if f.Metrics != "" {
		if err := f.Engine.useMetrics(filepath.Join(dir, f.Metrics)); err != nil {
			return nil, err
		}
	}
	f.Engine.defaultPrefixCaching(f.startupLog())
	return f, nil
}

// FindGateway returns the name of the gateway log in dir, the file outlast
// init would read: gateway.jsonl, a load generator's export by its default
// name, or one a tool names otherwise whose first bytes are that tool's.
func FindGateway(dir string) (string, error) { return findGateway(dir) }

// findGateway returns the name of the run's gateway log in dir: the first
// of the request log's default names present, else a file that a tool may
// name otherwise (a row's Glob) whose first bytes are that tool's.
func findGateway(dir string) (string, error) {
	for _, n := range inputs.RequestLog.Defaults {
		for _, ext := range []string{"", ".gz", ".zst"} {
			if st, err := os.Stat(filepath.Join(dir, n+ext)); err == nil && st.Mode().IsRegular() {
				return n + ext, nil
			}
		}
	}
	var others []string
	for _, f := range inputs.Requests {
		if f.Glob == "" {
			continue
		}
		others = append(others, fmt.Sprintf("%s's export as %s", f.Tool, f.Glob))
		matches, _ := filepath.Glob(filepath.Join(dir, f.Glob))
		for _, m := range matches {
			if format, err := inputs.Detect(m); err == nil && format == f.Name {
				return filepath.Base(m), nil
			}
		}
	}
	want := strings.Join(inputs.RequestLog.Defaults, ", ")
	if len(others) > 0 {
		want += " (or " + strings.Join(others, ", ") + ")"
	}
	return "", fmt.Errorf("%s: no gateway log: want one of %s", dir, want)
}

// inside returns name relative to dir when the file exists, checking that
// it lies inside dir; "" (and no error) for a missing default file.
func inside(dir, name, def string) (string, error) {
	if name == "" {
		for _, ext := range []string{"", ".gz", ".zst"} {
			if st, err := os.Stat(filepath.Join(dir, def+ext)); err == nil && st.Mode().IsRegular() {
				return def + ext, nil
			}
		}
		return "", nil
	}
	p := name
	if !filepath.IsAbs(p) {
		if _, err := os.Stat(p); err != nil {
			p = filepath.Join(dir, name)
		}
	}
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	absP, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absDir, absP)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the run directory %s: the manifest names files inside it; copy or move it there", name, dir)
	}
	return filepath.ToSlash(rel), nil
}

var badName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// runName turns the directory's name into a run name.
func runName(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	n := strings.Trim(badName.ReplaceAllString(filepath.Base(abs), "-"), "-")
	if n == "" || n == "." {
		n = "run"
	}
	return n
}

// line writes "key: value" at indent, with a comment when one is given.
func line(buf *bytes.Buffer, indent int, key, value, comment string) {
	s := strings.Repeat("  ", indent) + key + ": " + value
	if comment != "" {
		if pad := 34 - len(s); pad > 0 {
			s += strings.Repeat(" ", pad)
		}
		s += " # " + comment
	}
	buf.WriteString(s + "\n")
}

const fill = manifest.Placeholder

// Write writes the manifest of f.
func (f *Facts) Write(buf *bytes.Buffer) {
	buf.WriteString("# Written by outlast init from the files of this directory. Replace every\n")
	buf.WriteString("# " + fill + " (outlast ingest refuses the manifest until then), check the\n")
	buf.WriteString("# rest; docs/run-format.md describes every key.\n")
	for _, n := range f.Notes {
		for _, l := range wrap(n, 76) {
			buf.WriteString("# " + l + "\n")
		}
	}
	line(buf, 0, "format", manifest.Format, "")
	line(buf, 0, "run", f.Run, "from the directory's name")
	line(buf, 0, "experiment", fill, "runs analysed together, e.g. agentic-qwen3")
	line(buf, 0, "design", fill, strings.Join(schema.Designs, " | "))
	line(buf, 0, "seed", fill, "arms that share a base arrival stream share a seed; delete the line if none")
	line(buf, 0, "arm", fill, "burst, no-burst, none, budgeter, session-cap, ...")
	if math.IsNaN(f.Start) {
		line(buf, 0, "started_at", fill, "wall clock of t=0, RFC 3339: the requests' times do not say it")
		line(buf, 0, "duration_s", fill, "the run's planned length, seconds")
	} else {
		start := time.Unix(int64(math.Floor(f.Start)), 0).UTC()
		from, to := "the first request's start", "to the last request's end"
		if f.SpanBenchmark {
			from, to = "the benchmark's start", "to the benchmark's end"
		}
		line(buf, 0, "started_at", start.Format(time.RFC3339), fmt.Sprintf("%s, to the second (%s)", from, f.Gateway))
		dur := math.Ceil(f.End - float64(start.Unix()))
		line(buf, 0, "duration_s", strconv.FormatFloat(math.Max(dur, 1), 'f', -1, 64), to)
	}
	buf.WriteString("engine:\n")
	f.writeEngine(buf)
	if f.LoadStrategy != "" || f.RequestRate != nil || f.Concurrency != nil {
		buf.WriteString("workload:" + comment(f.LoadFrom) + "\n")
		if f.LoadNote != "" {
			buf.WriteString("  # " + f.LoadNote + "\n")
		}
		if f.LoadStrategy != "" {
			line(buf, 1, "load_strategy", f.LoadStrategy, "")
		}
		if f.RequestRate != nil {
			line(buf, 1, "request_rate", strconv.FormatFloat(*f.RequestRate, 'f', -1, 64), "requests/s")
		}
		if f.Concurrency != nil {
			line(buf, 1, "concurrency", strconv.FormatInt(*f.Concurrency, 10), "")
		}
	}
	buf.WriteString("trigger:\n")
	line(buf, 1, "kind", fill, "burst | flush | rate-change | mix-shift | none; give start_s and end_s too")
	buf.WriteString("files:\n")
	line(buf, 1, "gateway", f.Gateway, "")
	line(buf, 1, "gateway_format", f.GatewayFormat, "found from the file's first bytes or name")
	if f.Benchmarks > 1 {
		buf.WriteString(fmt.Sprintf("  # %s holds %d benchmarks (a sweep): ingest makes one run per benchmark,\n", f.Gateway, f.Benchmarks))
		buf.WriteString(fmt.Sprintf("  # %s-b0 ... %s-b%d, each from its own start; \"benchmark: N\" reads only the Nth, from its own start.\n", f.Run, f.Run, f.Benchmarks-1))
	}
	if f.ClockUnknown {
		line(buf, 1, "clock_offset_s", fill, "Unix time minus inference-perf's perf_counter, seconds: nothing in the directory says it")
	}
	if f.EngineLog != "" {
		line(buf, 1, "engine_log", f.EngineLog, "")
	}
	f.writeRoles(buf)
	if f.Metrics != "" {
		line(buf, 1, "metrics", f.Metrics, "")
	}
}

func comment(from string) string {
	if from == "" {
		return ""
	}
	return " # from " + from
}

// writeEngine writes the engine section's keys.
func (f *Facts) writeEngine(buf *bytes.Buffer) {
	e := f.Engine
	log := f.startupLog()
	if e.Name != "" {
		line(buf, 1, "name", e.Name, "from "+e.NameFrom)
	} else {
		line(buf, 1, "name", fill, "vllm | sglang | other: no engine log or metrics recognised")
	}
	switch {
	case e.Version != "":
		line(buf, 1, "version", quoteVersion(e.Version), "from "+log)
	case e.Name == schema.EngineSGLang:
		// SGLang's log does not print its version; the report and compare
		// split experiments by it, so say where to find it.
		buf.WriteString("  # version: unknown: SGLang's log does not print it; add it from\n")
		buf.WriteString("  #   python -c 'import sglang; print(sglang.__version__)' (or the image's tag)\n")
	case e.Name != "" && log == "":
		buf.WriteString("  # version: unknown: no engine log to say it; add it (the report and compare split runs by it)\n")
	case e.Name != "":
		buf.WriteString("  # version: unknown: " + log + " does not say it; add it (the report and compare split runs by it)\n")
	}
	switch {
	case f.Model != "":
		c := "from " + f.ModelFrom
		if e.Model != "" && e.Model != f.Model {
			c += "; " + log + " says " + e.Model
		}
		line(buf, 1, "model", f.Model, c)
	case e.Model != "":
		line(buf, 1, "model", e.Model, "from "+log)
	}
	switch {
	case e.PrefixCaching != nil:
		line(buf, 1, "prefix_caching", strconv.FormatBool(*e.PrefixCaching), e.PrefixFrom)
	default:
		line(buf, 1, "prefix_caching", fill, "true or false: whether the engine cached prefixes")
	}
	if e.KVPoolTokens > 0 {
		line(buf, 1, "kv_pool_tokens", strconv.FormatInt(e.KVPoolTokens, 10), "from "+e.PoolFrom)
	}
}

// quoteVersion keeps a version such as 0.10 a string in YAML.
func quoteVersion(v string) string {
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return strconv.Quote(v)
	}
	return v
}

// wrap breaks text into lines of at most width bytes, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}
