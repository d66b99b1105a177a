// Package manifest parses a run's run.yaml (format outlast-run/1, see
// docs/run-format.md) into a typed Manifest and flattens it into a
// schema.Run. Every error names the file and line of the offending value,
// and unknown keys are errors, so that a typo never passes silently.
//
// manifest.go holds the model, sections.go reads each section and
// values.go the typed values and outlast init's placeholder; the YAML-node
// toolkit behind the positioned errors is internal/yamlpos, which
// compare/check's rules files share.
package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	// Embedded zone data: engine.log_tz must resolve the same way on every
	// machine, including minimal containers without /usr/share/zoneinfo.
	_ "time/tzdata"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/ingest/inputs"
	"github.com/outlast-dev/outlast/internal/yamlpos"
	"github.com/outlast-dev/outlast/schema"
)

// Format is the one manifest format version this package reads.
const Format = "outlast-run/1"

// Default file names of a run directory, used when run.yaml's files:
// section names none (the roles of ingest/inputs).
var (
	DefaultGateway   = inputs.RequestLog.Defaults[0]
	DefaultEngineLog = inputs.EngineLog.Defaults[0]
	DefaultMetrics   = inputs.Metrics.Defaults[0]
)

// Manifest is a parsed run.yaml. Optional values are pointers, nil when the
// manifest does not give them; optional sections are nil when absent.
type Manifest struct {
	Format     string    // always Format once parsed
	Name       string    // the run: key, unique in a dataset
	Experiment string    // runs analysed together
	Design     string    // one of schema.Designs
	Seed       *int64    // shared by arms that share a base arrival stream
	Arm        string    // burst, no-burst, none, budgeter, ...
	StartedAt  time.Time // wall clock of t=0, in UTC
	DurationS  float64   // planned length, seconds, > 0
	Engine     Engine
	Workload   Workload
	Trigger    *Trigger          // nil without a trigger: section
	Control    *Control          // nil without a control: section
	Labels     map[string]string // free key/values; scalar values kept as written
	Files      Files             // file names inside the run directory
}

// Engine is the engine: section.
type Engine struct {
	Name    string // one of schema.EngineNames
	Version string // as written (0.10 stays "0.10", not the float 0.1)
	Model   string
	// PrefixCaching is engine.prefix_caching; nil when not stated.
	PrefixCaching    *bool
	KVPoolTokens     *int64 // KV pool size C in tokens
	CPUOffloadTokens *int64 // host-tier KV tokens
	LogTZ            string // IANA zone of the engine log's timestamps; "" means UTC
}

// Workload is the workload: section. Keys other than the named ones are
// kept in Extra with their YAML values converted to JSON-compatible values.
type Workload struct {
	ArrivalRate  *float64 // sessions/s (lambda)
	Turns        *int64   // turns per session
	ThinkMeanS   *float64 // mean think/tool time, seconds
	SystemTokens *int64
	TaskTokens   *int64
	OutputTokens *int64
	ToolTokens   *int64
	// LoadStrategy, RequestRate (requests/s) and Concurrency describe a
	// load generator's schedule (runs.load_strategy, load_rate,
	// load_concurrency); outlast init copies them from its configuration.
	LoadStrategy string
	RequestRate  *float64
	Concurrency  *int64
	Extra        map[string]any
}

// Trigger is the trigger: section. Keys other than the named ones are kept
// in Extra.
type Trigger struct {
	Kind      string // one of schema.TriggerKinds
	StartS    *float64
	EndS      *float64 // >= StartS when both are given
	ExtraRate *float64 // burst: extra sessions/s
	RateAfter *float64 // rate-change: arrival rate after StartS
	Extra     map[string]any
}

// Control is the control: section.
type Control struct {
	Kind   string // one of schema.ControlKinds
	StartS *float64
	Params map[string]any // kind-specific
}

// Files names the run's input files, relative to the run directory.
type Files struct {
	Gateway   string // default DefaultGateway
	EngineLog string // default DefaultEngineLog
	Metrics   string // default DefaultMetrics: a file, or a directory of query_range answers
	// MetricsFormat is files.metrics_format, one of schema.MetricsFormats:
	// how to read Metrics instead of telling from its content; "" to tell.
	MetricsFormat string
	// GatewayFormat is files.gateway_format, one of inputs.RequestNames; ""
	// lets ingest detect the format from the file's first bytes.
	GatewayFormat string
	// Benchmark is files.benchmark: the one benchmark of a GuideLLM file
	// (a sweep holds several) read as the run; nil reads every benchmark,
	// one run each.
	Benchmark *int64
	// ClockOffsetS is files.clock_offset_s: Unix time minus the gateway
	// log's clock, for a load generator that records monotonic times
	// (inference-perf) when its output directory holds no wall-clock
	// anchor.
	ClockOffsetS *float64
	// PrefillLogs and DecodeLogs are files.prefill_log and
	// files.decode_log: the engine logs of a prefill/decode-disaggregated
	// deployment, one file or a list (one per node or rank), each read
	// for its role (roles.go) instead of EngineLog.
	PrefillLogs, DecodeLogs []string
}

// runNameRE is the run-name alphabet: the name becomes a Hive partition
// directory, so it must be safe in a path.
var runNameRE = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// maxRunName is the longest run name: "run=" and the name make a
// directory, and the name with ".parquet" a file, both within the 255
// bytes most file systems allow a name.
const maxRunName = 200

// Parse parses and validates run.yaml's bytes. name is the file name used in
// error positions. Errors are *textpos.ParseError values, "name:line: reason".
func Parse(data []byte, name string) (*Manifest, error) {
	p := &parser{f: yamlpos.File{Name: name}}
	root, err := p.f.Decode(data, "run.yaml")
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, p.errorf(nil, "empty manifest: want a YAML mapping starting with format: %s", Format)
	}
	if root.Kind != yaml.MappingNode {
		return nil, p.errorf(root, "want a YAML mapping of keys (format, run, ...), got %s", yamlpos.Describe(root))
	}
	return p.manifest(root)
}

// Run flattens the manifest into a schema.Run. Provenance fields (hashes,
// versions, engine log format, rejected lines) are left for the caller.
func (m *Manifest) Run() schema.Run {
	r := schema.Run{
		Run:              m.Name,
		Experiment:       m.Experiment,
		Design:           m.Design,
		Seed:             m.Seed,
		Arm:              m.Arm,
		StartedAt:        m.StartedAt,
		DurationS:        m.DurationS,
		EngineName:       m.Engine.Name,
		EngineVersion:    m.Engine.Version,
		EngineModel:      m.Engine.Model,
		PrefixCaching:    m.Engine.PrefixCaching != nil && *m.Engine.PrefixCaching,
		KVPoolTokens:     m.Engine.KVPoolTokens,
		CPUOffloadTokens: m.Engine.CPUOffloadTokens,
		LogTZ:            m.Engine.LogTZ,
		ArrivalRate:      m.Workload.ArrivalRate,
		Turns:            m.Workload.Turns,
		ThinkMeanS:       m.Workload.ThinkMeanS,
		SystemTokens:     m.Workload.SystemTokens,
		TaskTokens:       m.Workload.TaskTokens,
		OutputTokens:     m.Workload.OutputTokens,
		ToolTokens:       m.Workload.ToolTokens,
		LoadStrategy:     m.Workload.LoadStrategy,
		LoadRate:         m.Workload.RequestRate,
		LoadConcurrency:  m.Workload.Concurrency,
		WorkloadExtra:    sortedJSON(m.Workload.Extra),
		TriggerExtra:     "{}",
		ControlParams:    "{}",
		Labels:           sortedJSON(labelsAny(m.Labels)),
	}
	if r.LogTZ == "" {
		r.LogTZ = "UTC"
	}
	if m.Engine.KVPoolTokens != nil {
		r.KVPoolSource = "manifest"
	}
	if t := m.Trigger; t != nil {
		r.TriggerKind = t.Kind
		r.TriggerStartS = t.StartS
		r.TriggerEndS = t.EndS
		r.TriggerExtraRate = t.ExtraRate
		r.TriggerRateAfter = t.RateAfter
		r.TriggerExtra = sortedJSON(t.Extra)
	}
	if c := m.Control; c != nil {
		r.ControlKind = c.Kind
		r.ControlStartS = c.StartS
		r.ControlParams = sortedJSON(c.Params)
	}
	r.AlignS = m.AlignS()
	return r
}

// AlignS returns where 5-minute analysis windows are aligned (docs/run-format.md):
// trigger.end_s, else control.start_s, else 0.
func (m *Manifest) AlignS() float64 {
	if m.Trigger != nil && m.Trigger.EndS != nil {
		return *m.Trigger.EndS
	}
	if m.Control != nil && m.Control.StartS != nil {
		return *m.Control.StartS
	}
	return 0
}

// Location returns the zone of the engine log's timestamps, engine.log_tz,
// UTC by default.
func (m *Manifest) Location() (*time.Location, error) {
	if m.Engine.LogTZ == "" {
		return time.UTC, nil
	}
	return time.LoadLocation(m.Engine.LogTZ)
}

// labelsAny widens the labels for sortedJSON.
func labelsAny(labels map[string]string) map[string]any {
	out := make(map[string]any, len(labels))
	for k, v := range labels {
		out[k] = v
	}
	return out
}

// sortedJSON encodes v as compact JSON; encoding/json sorts map keys, which
// makes the output deterministic. nil and empty maps give "{}".
func sortedJSON(v map[string]any) string {
	if len(v) == 0 {
		return "{}"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Unreachable: convert only produces JSON-encodable values.
		panic(fmt.Sprintf("manifest: encoding %v: %v", v, err))
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
