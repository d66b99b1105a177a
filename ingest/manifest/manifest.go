// Package manifest parses a run's run.yaml (format outlast-run/1, see
// run-format.md) into a typed Manifest and flattens it into a schema.Run.
// Every error names the file and line of the offending value, and unknown
// keys are errors, so that a typo never passes silently.
package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/textpos"

	// Embedded zone data: engine.log_tz must resolve the same way on every
	// machine, including minimal containers without /usr/share/zoneinfo.
	_ "time/tzdata"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/schema"
)

// Format is the one manifest format version this package reads.
const Format = "outlast-run/1"

// Default file names of a run directory, used when run.yaml has no files: section.
const (
	DefaultGateway   = "gateway.jsonl"
	DefaultEngineLog = "engine.log"
	DefaultMetrics   = "metrics.prom"
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
	Metrics   string // default DefaultMetrics
}

// runNameRE is the run-name alphabet: the name becomes a Hive partition
// directory, so it must be safe in a path.
var runNameRE = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// yamlLineRE finds the line number in a yaml.v3 syntax error message.
var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Parse parses and validates run.yaml's bytes. name is the file name used in
// error positions. Errors are *textpos.ParseError values, "name:line: reason".
func Parse(data []byte, name string) (*Manifest, error) {
	p := &parser{name: name}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, p.errorf(1, "empty manifest: want a YAML mapping starting with format: %s", Format)
		}
		return nil, p.syntaxError(err)
	}
	var second yaml.Node
	if err := dec.Decode(&second); err == nil {
		return nil, p.errorf(second.Line, "a second YAML document: run.yaml holds exactly one")
	} else if !errors.Is(err, io.EOF) {
		return nil, p.syntaxError(err)
	}
	root := resolve(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, p.errorf(root.Line, "want a YAML mapping of keys (format, run, ...), got %s", describe(root))
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

// AlignS returns where 5-minute analysis windows are aligned (run-format.md):
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

// parser carries the file name into positioned errors.
type parser struct {
	name      string
	converted int // free-form values converted so far, see maxValues
}

func (p *parser) errorf(line int, format string, args ...any) *textpos.ParseError {
	if line < 1 {
		line = 1
	}
	return textpos.Errorf(textpos.Pos{File: p.name, Line: line}, nil, format, args...)
}

// syntaxError positions a yaml.v3 error, which carries its line in the text.
func (p *parser) syntaxError(err error) error {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return p.errorf(line, "not valid YAML: %s", m[2])
	}
	return p.errorf(1, "not valid YAML: %s", strings.TrimPrefix(msg, "yaml: "))
}

// entry is one key of a mapping with its value.
type entry struct {
	key   string
	line  int
	value *yaml.Node
}

// entries lists a mapping's keys in document order, rejecting duplicates
// (yaml.v3 does not when decoding into a Node) and non-scalar keys.
func (p *parser) entries(n *yaml.Node, path string) ([]entry, error) {
	out := make([]entry, 0, len(n.Content)/2)
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if k.Kind != yaml.ScalarNode {
			return nil, p.errorf(k.Line, "%swant a plain key, got %s", prefix(path), describe(k))
		}
		if line, dup := first[k.Value]; dup {
			return nil, p.errorf(k.Line, "%s: duplicate key (first at line %d)", join(path, k.Value), line)
		}
		first[k.Value] = k.Line
		out = append(out, entry{key: k.Value, line: k.Line, value: resolve(n.Content[i+1])})
	}
	return out, nil
}

func prefix(path string) string {
	if path == "" {
		return ""
	}
	return path + ": "
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

var topKeys = []string{"format", "run", "experiment", "design", "seed", "arm", "started_at", "duration_s", "engine", "workload", "trigger", "control", "labels", "files"}

func (p *parser) manifest(root *yaml.Node) (*Manifest, error) {
	es, err := p.entries(root, "")
	if err != nil {
		return nil, err
	}
	// The format is checked first: another version may have other keys, and
	// "unsupported version" is the useful message then.
	formatSeen := false
	for _, e := range es {
		if e.key != "format" {
			continue
		}
		formatSeen = true
		s, err := p.str(e, "format")
		if err != nil {
			return nil, err
		}
		if s != Format {
			if strings.HasPrefix(s, "outlast-run/") {
				return nil, p.errorf(e.value.Line, "format: unsupported version %q: this outlast reads %s", s, Format)
			}
			return nil, p.errorf(e.value.Line, "format: want %s, got %q", Format, s)
		}
	}
	if !formatSeen {
		return nil, p.errorf(root.Line, "missing required key format (want format: %s)", Format)
	}

	m := &Manifest{Format: Format, Files: Files{Gateway: DefaultGateway, EngineLog: DefaultEngineLog, Metrics: DefaultMetrics}}
	seen := map[string]bool{}
	var engineLine int
	for _, e := range es {
		seen[e.key] = !isNull(e.value)
		var err error
		switch e.key {
		case "format":
		case "run":
			m.Name, err = p.str(e, "run")
			if err == nil && !runNameRE.MatchString(m.Name) {
				err = p.errorf(e.value.Line, "run: %q is not a valid run name: use only letters, digits, '.', '_' and '-'", m.Name)
			}
		case "experiment":
			m.Experiment, err = p.str(e, "experiment")
		case "design":
			m.Design, err = p.oneOf(e, "design", schema.Designs)
		case "seed":
			m.Seed, err = p.optInt(e, "seed")
		case "arm":
			m.Arm, err = p.str(e, "arm")
		case "started_at":
			m.StartedAt, err = p.timestamp(e, "started_at")
		case "duration_s":
			var d *float64
			d, err = p.optNumber(e, "duration_s")
			if err == nil && d != nil {
				if *d <= 0 {
					err = p.errorf(e.value.Line, "duration_s: want a positive number of seconds, got %s", e.value.Value)
				}
				m.DurationS = *d
			}
		case "engine":
			engineLine = e.line
			err = p.engine(e, &m.Engine)
		case "workload":
			err = p.workload(e, &m.Workload)
		case "trigger":
			m.Trigger, err = p.trigger(e)
		case "control":
			m.Control, err = p.control(e)
		case "labels":
			m.Labels, err = p.labels(e)
		case "files":
			err = p.files(e, &m.Files)
		default:
			err = p.unknownKey(e, "", topKeys)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, k := range []string{"run", "experiment", "design", "arm", "started_at", "duration_s"} {
		if !seen[k] {
			return nil, p.errorf(root.Line, "missing required key %s", k)
		}
	}
	if !seen["engine"] {
		return nil, p.errorf(root.Line, "missing required key engine (with at least engine.name)")
	}
	if m.Engine.Name == "" {
		return nil, p.errorf(engineLine, "engine: missing required key name (one of %s)", strings.Join(schema.EngineNames, ", "))
	}
	return m, nil
}

var engineKeys = []string{"name", "version", "model", "prefix_caching", "kv_pool_tokens", "cpu_offload_tokens", "log_tz"}

func (p *parser) engine(sec entry, out *Engine) error {
	es, err := p.section(sec)
	if err != nil {
		return err
	}
	for _, e := range es {
		path := "engine." + e.key
		switch e.key {
		case "name":
			if !isNull(e.value) {
				out.Name, err = p.oneOf(e, path, schema.EngineNames)
			}
		case "version":
			out.Version, err = p.optStr(e, path)
		case "model":
			out.Model, err = p.optStr(e, path)
		case "prefix_caching":
			out.PrefixCaching, err = p.optBool(e, path)
		case "kv_pool_tokens":
			out.KVPoolTokens, err = p.optInt(e, path)
		case "cpu_offload_tokens":
			out.CPUOffloadTokens, err = p.optInt(e, path)
		case "log_tz":
			out.LogTZ, err = p.optStr(e, path)
			if err == nil && out.LogTZ != "" {
				err = p.zone(e, path, out.LogTZ)
			}
		default:
			err = p.unknownKey(e, "engine", engineKeys)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) zone(e entry, path, tz string) error {
	if tz == "Local" {
		return p.errorf(e.value.Line, "%s: \"Local\" depends on the machine reading the run; name the zone, e.g. UTC or Europe/Paris", path)
	}
	if _, err := time.LoadLocation(tz); err != nil {
		return p.errorf(e.value.Line, "%s: unknown time zone %q: want an IANA name such as UTC or Europe/Paris", path, tz)
	}
	return nil
}

func (p *parser) workload(sec entry, out *Workload) error {
	es, err := p.section(sec)
	if err != nil {
		return err
	}
	for _, e := range es {
		path := "workload." + e.key
		switch e.key {
		case "arrival_rate":
			out.ArrivalRate, err = p.optNumber(e, path)
		case "turns":
			out.Turns, err = p.optInt(e, path)
		case "think_mean_s":
			out.ThinkMeanS, err = p.optNumber(e, path)
		case "system_tokens":
			out.SystemTokens, err = p.optInt(e, path)
		case "task_tokens":
			out.TaskTokens, err = p.optInt(e, path)
		case "output_tokens":
			out.OutputTokens, err = p.optInt(e, path)
		case "tool_tokens":
			out.ToolTokens, err = p.optInt(e, path)
		default:
			if out.Extra == nil {
				out.Extra = map[string]any{}
			}
			out.Extra[e.key], err = p.convert(e.value, path, 0)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) trigger(sec entry) (*Trigger, error) {
	if isNull(sec.value) {
		return nil, nil
	}
	es, err := p.section(sec)
	if err != nil {
		return nil, err
	}
	t := &Trigger{}
	for _, e := range es {
		path := "trigger." + e.key
		switch e.key {
		case "kind":
			t.Kind, err = p.oneOf(e, path, schema.TriggerKinds)
		case "start_s":
			t.StartS, err = p.optNumber(e, path)
		case "end_s":
			t.EndS, err = p.optNumber(e, path)
			if err == nil && t.EndS != nil && t.StartS != nil && *t.EndS < *t.StartS {
				err = p.errorf(e.value.Line, "trigger.end_s: %s is before trigger.start_s %s", fmtNum(*t.EndS), fmtNum(*t.StartS))
			}
		case "extra_rate":
			t.ExtraRate, err = p.optNumber(e, path)
		case "rate_after":
			t.RateAfter, err = p.optNumber(e, path)
		default:
			if t.Extra == nil {
				t.Extra = map[string]any{}
			}
			t.Extra[e.key], err = p.convert(e.value, path, 0)
		}
		if err != nil {
			return nil, err
		}
	}
	if t.Kind == "" {
		return nil, p.errorf(sec.line, "trigger: missing required key kind (one of %s)", strings.Join(schema.TriggerKinds, ", "))
	}
	// end_s may come before start_s in the mapping; check the order again.
	if t.EndS != nil && t.StartS != nil && *t.EndS < *t.StartS {
		return nil, p.errorf(sec.line, "trigger.end_s: %s is before trigger.start_s %s", fmtNum(*t.EndS), fmtNum(*t.StartS))
	}
	return t, nil
}

var controlKeys = []string{"kind", "start_s", "params"}

func (p *parser) control(sec entry) (*Control, error) {
	if isNull(sec.value) {
		return nil, nil
	}
	es, err := p.section(sec)
	if err != nil {
		return nil, err
	}
	c := &Control{}
	for _, e := range es {
		path := "control." + e.key
		switch e.key {
		case "kind":
			c.Kind, err = p.oneOf(e, path, schema.ControlKinds)
		case "start_s":
			c.StartS, err = p.optNumber(e, path)
		case "params":
			if isNull(e.value) {
				break
			}
			if e.value.Kind != yaml.MappingNode {
				err = p.errorf(e.value.Line, "%s: want a mapping of parameters, got %s", path, describe(e.value))
				break
			}
			var v any
			v, err = p.convert(e.value, path, 0)
			if err == nil {
				c.Params = v.(map[string]any)
			}
		default:
			err = p.unknownKey(e, "control", controlKeys)
		}
		if err != nil {
			return nil, err
		}
	}
	if c.Kind == "" {
		return nil, p.errorf(sec.line, "control: missing required key kind (one of %s)", strings.Join(schema.ControlKinds, ", "))
	}
	return c, nil
}

func (p *parser) labels(sec entry) (map[string]string, error) {
	if isNull(sec.value) {
		return nil, nil
	}
	es, err := p.section(sec)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(es))
	for _, e := range es {
		if e.value.Kind != yaml.ScalarNode {
			return nil, p.errorf(e.value.Line, "labels.%s: want a plain value, got %s", e.key, describe(e.value))
		}
		out[e.key] = e.value.Value
		if isNull(e.value) {
			out[e.key] = ""
		}
	}
	return out, nil
}

var fileKeys = []string{"gateway", "engine_log", "metrics"}

func (p *parser) files(sec entry, out *Files) error {
	es, err := p.section(sec)
	if err != nil {
		return err
	}
	for _, e := range es {
		key := "files." + e.key
		var dst *string
		switch e.key {
		case "gateway":
			dst = &out.Gateway
		case "engine_log":
			dst = &out.EngineLog
		case "metrics":
			dst = &out.Metrics
		default:
			return p.unknownKey(e, "files", fileKeys)
		}
		s, err := p.str(e, key)
		if err != nil {
			return err
		}
		// The names are joined to the run directory: keep them inside it.
		if path.IsAbs(s) || strings.HasPrefix(s, "\\") || slices.Contains(strings.Split(strings.ReplaceAll(s, "\\", "/"), "/"), "..") {
			return p.errorf(e.value.Line, "%s: %q must be a path inside the run directory", key, s)
		}
		*dst = s
	}
	return nil
}

// section returns the entries of a section's mapping; a null section is empty.
func (p *parser) section(sec entry) ([]entry, error) {
	if isNull(sec.value) {
		return nil, nil
	}
	if sec.value.Kind != yaml.MappingNode {
		return nil, p.errorf(sec.value.Line, "%s: want a mapping of keys, got %s", sec.key, describe(sec.value))
	}
	return p.entries(sec.value, sec.key)
}

func (p *parser) unknownKey(e entry, section string, known []string) error {
	hint := ""
	if s := closest(e.key, known); s != "" {
		hint = fmt.Sprintf(" (did you mean %s?)", s)
	}
	where := ""
	if section != "" {
		where = " in " + section
	}
	return p.errorf(e.line, "unknown key %q%s%s; known keys: %s", e.key, where, hint, strings.Join(known, ", "))
}

// closest returns the known key within edit distance 2 of key, if any: the
// likely intended spelling of a typo.
func closest(key string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (p *parser) str(e entry, path string) (string, error) {
	n := e.value
	if isNull(n) {
		return "", p.errorf(e.line, "%s: want a value, got nothing", path)
	}
	if n.Kind != yaml.ScalarNode {
		return "", p.errorf(n.Line, "%s: want a plain value, got %s", path, describe(n))
	}
	if n.Value == "" {
		return "", p.errorf(n.Line, "%s: want a non-empty value", path)
	}
	// The text as written: version 0.10 must not become the float 0.1.
	return n.Value, nil
}

func (p *parser) optStr(e entry, path string) (string, error) {
	if isNull(e.value) {
		return "", nil
	}
	return p.str(e, path)
}

func (p *parser) oneOf(e entry, path string, set []string) (string, error) {
	s, err := p.str(e, path)
	if err != nil {
		return "", err
	}
	if !slices.Contains(set, s) {
		return "", p.errorf(e.value.Line, "%s: want one of %s, got %q", path, strings.Join(set, ", "), s)
	}
	return s, nil
}

func (p *parser) timestamp(e entry, path string) (time.Time, error) {
	s, err := p.str(e, path)
	if err != nil {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, p.errorf(e.value.Line, "%s: want an RFC 3339 time such as 2026-10-27T12:00:00Z, got %q", path, s)
	}
	return t.UTC(), nil
}

func (p *parser) optBool(e entry, path string) (*bool, error) {
	n := e.value
	if isNull(n) {
		return nil, nil
	}
	var b bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
		return nil, p.errorf(n.Line, "%s: want true or false, got %s", path, describe(n))
	}
	return &b, nil
}

func (p *parser) optInt(e entry, path string) (*int64, error) {
	n := e.value
	if isNull(n) {
		return nil, nil
	}
	var v int64
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&v) != nil {
		return nil, p.errorf(n.Line, "%s: want a whole number, got %s", path, describe(n))
	}
	if v < 0 {
		return nil, p.errorf(n.Line, "%s: want a non-negative number, got %d", path, v)
	}
	return &v, nil
}

func (p *parser) optNumber(e entry, path string) (*float64, error) {
	n := e.value
	if isNull(n) {
		return nil, nil
	}
	var v float64
	tag := n.ShortTag()
	if n.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") || n.Decode(&v) != nil {
		return nil, p.errorf(n.Line, "%s: want a number, got %s", path, describe(n))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, p.errorf(n.Line, "%s: want a finite number, got %s", path, n.Value)
	}
	if v < 0 {
		return nil, p.errorf(n.Line, "%s: want a non-negative number, got %s", path, n.Value)
	}
	return &v, nil
}

// maxDepth bounds nesting in free-form values (workload extras, params).
const maxDepth = 32

// maxValues bounds the free-form values of one manifest: aliases can make a
// small file expand exponentially ("billion laughs").
const maxValues = 10000

// convert turns a free-form YAML value into a JSON-encodable Go value:
// map[string]any, []any, string, int64, float64, bool or nil.
func (p *parser) convert(n *yaml.Node, path string, depth int) (any, error) {
	n = resolve(n)
	if depth > maxDepth {
		return nil, p.errorf(n.Line, "%s: nested too deeply", path)
	}
	if p.converted++; p.converted > maxValues {
		return nil, p.errorf(n.Line, "%s: more than %d values (aliases expanding?)", path, maxValues)
	}
	switch n.Kind {
	case yaml.MappingNode:
		es, err := p.entries(n, path)
		if err != nil {
			return nil, err
		}
		out := make(map[string]any, len(es))
		for _, e := range es {
			if out[e.key], err = p.convert(e.value, join(path, e.key), depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			v, err := p.convert(c, fmt.Sprintf("%s[%d]", path, i), depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err == nil {
				return b, nil
			}
		case "!!int":
			var i int64
			if err := n.Decode(&i); err == nil {
				return i, nil
			}
		case "!!float":
			var f float64
			if err := n.Decode(&f); err == nil {
				if math.IsNaN(f) || math.IsInf(f, 0) {
					return nil, p.errorf(n.Line, "%s: want a finite number, got %s", path, n.Value)
				}
				return f, nil
			}
		}
		return n.Value, nil
	}
	return nil, p.errorf(n.Line, "%s: unsupported YAML value %s", path, describe(n))
}

// resolve follows an alias (*anchor) to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names a node for an error message: the scalar as written, or its kind.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch {
		case isNull(n):
			return "nothing"
		case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
			// Say so: a quoted 0.03 looks like a number but is a string.
			return "the quoted string " + strconv.Quote(n.Value)
		case n.ShortTag() == "!!str":
			return strconv.Quote(n.Value)
		}
		return n.Value
	}
	return "an unexpected YAML node"
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
