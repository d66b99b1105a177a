package inputs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Config is what a load generator's own configuration or summary file says
// of the run, for outlast init; each field is empty when it says nothing.
type Config struct {
	Model, ModelFrom string // the model, and the file it came from
	LoadStrategy     string
	RequestRate      *float64 // requests/s
	Concurrency      *int64
	LoadFrom         string   // where the load came from
	LoadNote         string   // what to know of it (several stages, say)
	Notes            []string // files found but not read, and why
}

// aiperfConfig reads AIPerf's profile_export_aiperf.json (or
// PREFIX_aiperf.json beside PREFIX.jsonl): input_config holds the user's
// configuration — in 2025 builds endpoint.model_names and
// loadgen.{concurrency, request_rate} (aiperf/common/config/user_config.py),
// in 2026 builds models.items[].name and phases[] with the profiling
// phase's type, concurrency and rate (src/aiperf/config/models.py).
func aiperfConfig(dir, export string) Config {
	var c Config
	name := strings.TrimSuffix(TrimCompression(export), ".jsonl") + "_aiperf.json"
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return c
	}
	var doc struct {
		InputConfig map[string]any `json:"input_config"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		c.Notes = append(c.Notes, fmt.Sprintf("%s: not read: %v", name, err))
		return c
	}
	in := doc.InputConfig
	if m := str(at(in, "endpoint", "model_names", 0)); m != "" {
		c.Model, c.ModelFrom = m, name
	} else if m := str(at(in, "models", "items", 0, "name")); m != "" {
		c.Model, c.ModelFrom = m, name
	}
	if lg, ok := at(in, "loadgen").(map[string]any); ok {
		c.load(name+" (input_config.loadgen)", "", lg["request_rate"], lg["concurrency"])
		if c.RequestRate != nil {
			c.LoadStrategy = "request_rate"
			if mode := str(lg["request_rate_mode"]); mode != "" {
				c.LoadStrategy = mode
			}
		} else if c.Concurrency != nil {
			c.LoadStrategy = "concurrency"
		}
		return c
	}
	phases, _ := at(in, "phases").([]any)
	for _, p := range phases {
		ph, _ := p.(map[string]any)
		if str(ph["kind"]) == "profiling" || str(ph["name"]) == "profiling" {
			c.load(name+" (input_config.phases, the profiling phase)", str(ph["type"]), ph["rate"], ph["concurrency"])
			break
		}
	}
	return c
}

// inferencePerfConfig reads inference-perf's config.yaml, the whole
// configuration it writes beside its reports: server.model_name, and the
// load by load.type (config.py, from v0.6 config/loadgen/config.py):
//
//   - constant, poisson, trace_replay (v0.1 on): stages[].rate is the
//     target requests/s; no concurrency (worker_max_concurrency is a cap
//     per worker, not the load);
//   - concurrent (v0.4 on): stages[].concurrency_level; its stages[].rate
//     is "set at runtime for load generation" (num_requests over a
//     duration), which inference-perf writes back into the file: no
//     target, so not taken;
//   - trace_session_replay (v0.6 on): stages[].concurrent_sessions, and
//     session_rate, sessions/s (not requests/s: not taken as the rate).
//
// A sweep (load.sweep) makes its stages at run time: the file's are the
// first's.
func inferencePerfConfig(dir, _ string) Config {
	const name = "config.yaml"
	var c Config
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return c
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		c.Notes = append(c.Notes, fmt.Sprintf("%s: not read: %v", name, err))
		return c
	}
	if m := str(at(doc, "server", "model_name")); m != "" {
		c.Model, c.ModelFrom = m, name
	}
	stages, _ := at(doc, "load", "stages").([]any)
	if len(stages) == 0 {
		return c
	}
	typ := str(at(doc, "load", "type"))
	if typ == "" {
		typ = "constant" // LoadConfig's default
	}
	st, _ := stages[0].(map[string]any)
	switch typ {
	case "concurrent":
		c.load(name+" (load.stages[0].concurrency_level)", typ, nil, st["concurrency_level"])
	case "trace_session_replay":
		c.load(name+" (load.stages[0].concurrent_sessions)", typ, nil, st["concurrent_sessions"])
		if r, ok := num(st["session_rate"]); ok && r > 0 {
			c.LoadNote = fmt.Sprintf("session_rate %g sessions/s in %s is not a request rate: not written", r, name)
		}
	default:
		c.load(name+" (load.stages[0].rate)", typ, st["rate"], nil)
	}
	if len(stages) > 1 && c.LoadNote == "" {
		c.LoadNote = fmt.Sprintf("%s has %d stages: these are the first's", name, len(stages))
	}
	if sw := at(doc, "load", "sweep"); sw != nil && c.LoadNote == "" {
		c.LoadNote = fmt.Sprintf("%s's load.sweep made its stages at run time: these are the first's", name)
	}
	return c
}

// load sets the load strategy, rate and concurrency, each when given.
func (c *Config) load(from, strategy string, rate, conc any) {
	c.LoadFrom = from
	if strategy != "" {
		c.LoadStrategy = strategy
	}
	if r, ok := num(rate); ok && r > 0 {
		c.RequestRate = &r
	}
	if n, ok := num(conc); ok && n > 0 && n == float64(int64(n)) {
		i := int64(n)
		c.Concurrency = &i
	}
}

// at follows a path of keys and indexes through decoded JSON or YAML.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}
