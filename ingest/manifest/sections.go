package manifest

import (
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/ingest/inputs"
	"github.com/outlast-dev/outlast/internal/yamlpos"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// parser reads the sections of a manifest, carrying the file name into
// positioned errors.
type parser struct {
	f         yamlpos.File
	converted int // free-form values converted so far, see maxValues
}

// errorf returns a ParseError at n's line (line 1 for nil).
func (p *parser) errorf(n *yaml.Node, format string, args ...any) *textpos.ParseError {
	return p.f.Errorf(n, format, args...)
}

// each calls read with every entry of the section sec and its dotted path
// ("engine.name"), stopping at the first error. A null section is empty.
func (p *parser) each(sec yamlpos.Entry, read func(e yamlpos.Entry, path string) error) error {
	if yamlpos.IsNull(sec.Value) {
		return nil
	}
	es, err := p.f.Mapping(sec.Value, sec.Name)
	if err != nil {
		return err
	}
	for _, e := range es {
		if err := read(e, sec.Name+"."+e.Name); err != nil {
			return err
		}
	}
	return nil
}

var topKeys = []string{"format", "run", "experiment", "design", "seed", "arm", "started_at", "duration_s", "engine", "workload", "trigger", "control", "labels", "files"}

func (p *parser) manifest(root *yaml.Node) (*Manifest, error) {
	es, err := p.f.Entries(root, "")
	if err != nil {
		return nil, err
	}
	// The format is checked first: another version may have other keys, and
	// "unsupported version" is the useful message then.
	formatSeen := false
	for _, e := range es {
		if e.Name != "format" {
			continue
		}
		formatSeen = true
		s, err := p.str(e, "format")
		if err != nil {
			return nil, err
		}
		if s != Format {
			if strings.HasPrefix(s, "outlast-run/") {
				return nil, p.errorf(e.Value, "format: unsupported version %q: this outlast reads %s", s, Format)
			}
			return nil, p.errorf(e.Value, "format: want %s, got %q", Format, s)
		}
	}
	if !formatSeen {
		return nil, p.errorf(root, "missing required key format (want format: %s)", Format)
	}

	if err := p.placeholder(root, ""); err != nil {
		return nil, err
	}
	m := &Manifest{Format: Format, Files: Files{Gateway: DefaultGateway, EngineLog: DefaultEngineLog, Metrics: DefaultMetrics}}
	seen := map[string]bool{}
	var engineKey *yaml.Node
	for _, e := range es {
		seen[e.Name] = !yamlpos.IsNull(e.Value)
		var err error
		switch e.Name {
		case "format":
		case "run":
			m.Name, err = p.str(e, "run")
			switch {
			case err != nil:
			case !runNameRE.MatchString(m.Name):
				err = p.errorf(e.Value, "run: %q is not a valid run name: use only letters, digits, '.', '_' and '-'", m.Name)
			case len(m.Name) > maxRunName:
				// The name becomes a partition directory and a staged file
				// name, within the file system's 255 bytes.
				err = p.errorf(e.Value, "run: a run name of %d bytes is too long: at most %d", len(m.Name), maxRunName)
			case m.Name[0] == '.':
				// ".", ".." and hidden names are no partition directory
				// of their own (run=. is the table's own directory).
				err = p.errorf(e.Value, "run: %q is not a valid run name: it must not begin with '.'", m.Name)
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
			// Not optNumber, whose "non-negative" would mislead: 0 is
			// no length either.
			d, err = optScalar[float64](p, e, "duration_s", "a positive number of seconds", "!!int", "!!float")
			if err == nil && d != nil {
				if !(*d > 0) || math.IsInf(*d, 0) {
					err = p.errorf(e.Value, "duration_s: want a positive number of seconds, got %s", e.Value.Value)
				}
				m.DurationS = *d
			}
		case "engine":
			engineKey = e.Key
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
			err = p.f.UnknownKey(e, "", topKeys)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, k := range []string{"run", "experiment", "design", "arm", "started_at", "duration_s"} {
		if !seen[k] {
			return nil, p.errorf(root, "missing required key %s", k)
		}
	}
	if !seen["engine"] {
		return nil, p.errorf(root, "missing required key engine (with at least engine.name)")
	}
	if m.Engine.Name == "" {
		return nil, p.errorf(engineKey, "engine: missing required key name (one of %s)", strings.Join(schema.EngineNames, ", "))
	}
	return m, nil
}

var engineKeys = []string{"name", "version", "model", "prefix_caching", "kv_pool_tokens", "cpu_offload_tokens", "log_tz"}

func (p *parser) engine(sec yamlpos.Entry, out *Engine) error {
	return p.each(sec, func(e yamlpos.Entry, path string) (err error) {
		switch e.Name {
		case "name":
			if !yamlpos.IsNull(e.Value) {
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
			if err == nil && out.KVPoolTokens != nil && *out.KVPoolTokens == 0 {
				// D/C and N* divide by it: a pool of 0 is no pool size.
				err = p.errorf(e.Value, "%s: want a positive number of tokens, got 0 (leave it out when unknown)", path)
			}
		case "cpu_offload_tokens":
			out.CPUOffloadTokens, err = p.optInt(e, path)
		case "log_tz":
			out.LogTZ, err = p.optStr(e, path)
			if err == nil && out.LogTZ != "" {
				err = p.zone(e, path, out.LogTZ)
			}
		default:
			err = p.f.UnknownKey(e, "engine", engineKeys)
		}
		return err
	})
}

func (p *parser) zone(e yamlpos.Entry, path, tz string) error {
	if tz == "Local" {
		return p.errorf(e.Value, "%s: \"Local\" depends on the machine reading the run; name the zone, e.g. UTC or Europe/Paris", path)
	}
	if _, err := time.LoadLocation(tz); err != nil {
		return p.errorf(e.Value, "%s: unknown time zone %q: want an IANA name such as UTC or Europe/Paris", path, tz)
	}
	return nil
}

func (p *parser) workload(sec yamlpos.Entry, out *Workload) error {
	return p.each(sec, func(e yamlpos.Entry, path string) (err error) {
		switch e.Name {
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
		case "load_strategy":
			out.LoadStrategy, err = p.optStr(e, path)
		case "request_rate":
			out.RequestRate, err = p.optNumber(e, path)
		case "concurrency":
			out.Concurrency, err = p.optInt(e, path)
		default:
			err = p.extra(&out.Extra, e, path)
		}
		return err
	})
}

// extra keeps a key the section does not name, converted to a JSON value.
func (p *parser) extra(m *map[string]any, e yamlpos.Entry, path string) (err error) {
	if *m == nil {
		*m = map[string]any{}
	}
	(*m)[e.Name], err = p.convert(e.Value, path, 0)
	return err
}

// kindSection reads sec, a section that may be null (false), with a
// required kind, one of kinds, and an optional start_s; read takes its
// other keys.
func (p *parser) kindSection(sec yamlpos.Entry, kinds []string, kind *string, startS **float64, read func(e yamlpos.Entry, path string) error) (bool, error) {
	if yamlpos.IsNull(sec.Value) {
		return false, nil
	}
	err := p.each(sec, func(e yamlpos.Entry, path string) (err error) {
		switch e.Name {
		case "kind":
			*kind, err = p.oneOf(e, path, kinds)
		case "start_s":
			*startS, err = p.optNumber(e, path)
		default:
			err = read(e, path)
		}
		return err
	})
	if err != nil {
		return true, err
	}
	if *kind == "" {
		return true, p.errorf(sec.Key, "%s: missing required key kind (one of %s)", sec.Name, strings.Join(kinds, ", "))
	}
	return true, nil
}

func (p *parser) trigger(sec yamlpos.Entry) (*Trigger, error) {
	t := &Trigger{}
	ok, err := p.kindSection(sec, schema.TriggerKinds, &t.Kind, &t.StartS, func(e yamlpos.Entry, path string) (err error) {
		switch e.Name {
		case "end_s":
			t.EndS, err = p.optNumber(e, path)
			if err == nil && t.EndS != nil && t.StartS != nil && *t.EndS < *t.StartS {
				err = p.errorf(e.Value, "trigger.end_s: %s is before trigger.start_s %s", fmtNum(*t.EndS), fmtNum(*t.StartS))
			}
		case "extra_rate":
			t.ExtraRate, err = p.optNumber(e, path)
		case "rate_after":
			t.RateAfter, err = p.optNumber(e, path)
		default:
			err = p.extra(&t.Extra, e, path)
		}
		return err
	})
	if !ok || err != nil {
		return nil, err
	}
	// end_s may come before start_s in the mapping; check the order again.
	if t.EndS != nil && t.StartS != nil && *t.EndS < *t.StartS {
		return nil, p.errorf(sec.Key, "trigger.end_s: %s is before trigger.start_s %s", fmtNum(*t.EndS), fmtNum(*t.StartS))
	}
	return t, nil
}

var controlKeys = []string{"kind", "start_s", "params"}

func (p *parser) control(sec yamlpos.Entry) (*Control, error) {
	c := &Control{}
	ok, err := p.kindSection(sec, schema.ControlKinds, &c.Kind, &c.StartS, func(e yamlpos.Entry, path string) (err error) {
		if e.Name == "params" {
			c.Params, err = p.params(e, path)
		} else {
			err = p.f.UnknownKey(e, "control", controlKeys)
		}
		return err
	})
	if !ok || err != nil {
		return nil, err
	}
	return c, nil
}

// params reads control.params, a free-form mapping.
func (p *parser) params(e yamlpos.Entry, path string) (map[string]any, error) {
	if yamlpos.IsNull(e.Value) {
		return nil, nil
	}
	if e.Value.Kind != yaml.MappingNode {
		return nil, p.errorf(e.Value, "%s: want a mapping of parameters, got %s", path, yamlpos.Describe(e.Value))
	}
	v, err := p.convert(e.Value, path, 0)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

func (p *parser) labels(sec yamlpos.Entry) (map[string]string, error) {
	if yamlpos.IsNull(sec.Value) {
		return nil, nil
	}
	out := map[string]string{}
	err := p.each(sec, func(e yamlpos.Entry, path string) error {
		if e.Value.Kind != yaml.ScalarNode {
			return p.errorf(e.Value, "%s: want a plain value, got %s", path, yamlpos.Describe(e.Value))
		}
		out[e.Name] = e.Value.Value
		if yamlpos.IsNull(e.Value) {
			out[e.Name] = ""
		}
		return nil
	})
	return out, err
}

var fileKeys = []string{inputs.RequestLog.Key, inputs.EngineLog.Key, inputs.Metrics.Key, "metrics_format", "gateway_format", "benchmark", "clock_offset_s", inputs.PrefillLog.Key, inputs.DecodeLog.Key}

func (p *parser) files(sec yamlpos.Entry, out *Files) error {
	return p.each(sec, func(e yamlpos.Entry, key string) (err error) {
		var dst *string
		switch e.Name {
		case "gateway":
			dst = &out.Gateway
		case "engine_log":
			dst = &out.EngineLog
		case "metrics":
			dst = &out.Metrics
		case "metrics_format":
			out.MetricsFormat, err = p.oneOf(e, key, schema.MetricsFormats)
			return err
		case "gateway_format":
			if !yamlpos.IsNull(e.Value) {
				out.GatewayFormat, err = p.oneOf(e, key, inputs.RequestNames())
			}
			return err
		case "benchmark":
			out.Benchmark, err = p.optInt(e, key)
			return err
		case "clock_offset_s":
			out.ClockOffsetS, err = p.optNumber(e, key)
			return err
		case "prefill_log":
			out.PrefillLogs, err = p.fileList(e, key)
			return err
		case "decode_log":
			out.DecodeLogs, err = p.fileList(e, key)
			return err
		default:
			return p.f.UnknownKey(e, "files", fileKeys)
		}
		s, err := p.fileName(e, key)
		if err != nil {
			return err
		}
		*dst = s
		return nil
	})
}

// fileName reads a file name, which must stay inside the run directory:
// the names are joined to it.
func (p *parser) fileName(e yamlpos.Entry, key string) (string, error) {
	s, err := p.str(e, key)
	if err != nil {
		return "", err
	}
	if path.IsAbs(s) || strings.HasPrefix(s, "\\") || slices.Contains(strings.Split(strings.ReplaceAll(s, "\\", "/"), "/"), "..") {
		return "", p.errorf(e.Value, "%s: %q must be a path inside the run directory", key, s)
	}
	return s, nil
}
