package runinit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/outlast-dev/outlast/schema"
	"go.yaml.in/yaml/v3"
)

// config reads the model and the load from the load generator's own
// configuration or summary file beside its export, when there is one.
func (f *Facts) config(dir string) {
	switch f.GatewayFormat {
	case schema.GatewayAIPerf:
		f.aiperfSummary(dir)
	case schema.GatewayInferencePerf:
		f.inferencePerfConfig(dir)
	}
}

// aiperfSummary reads AIPerf's profile_export_aiperf.json (or
// PREFIX_aiperf.json beside PREFIX.jsonl): input_config holds the user's
// configuration — in 2025 builds endpoint.model_names and
// loadgen.{concurrency, request_rate} (aiperf/common/config/user_config.py),
// in 2026 builds models.items[].name and phases[] with the profiling
// phase's type, concurrency and rate (src/aiperf/config/models.py).
func (f *Facts) aiperfSummary(dir string) {
	base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(f.Gateway, ".gz"), ".zst"), ".jsonl")
	name := base + "_aiperf.json"
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return
	}
	var doc struct {
		InputConfig map[string]any `json:"input_config"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		f.Notes = append(f.Notes, fmt.Sprintf("%s: not read: %v", name, err))
		return
	}
	c := doc.InputConfig
	if m := str(at(c, "endpoint", "model_names", 0)); m != "" {
		f.Model, f.ModelFrom = m, name
	} else if m := str(at(c, "models", "items", 0, "name")); m != "" {
		f.Model, f.ModelFrom = m, name
	}
	if lg, ok := at(c, "loadgen").(map[string]any); ok {
		f.load(name+" (input_config.loadgen)", "", lg["request_rate"], lg["concurrency"])
		if f.RequestRate != nil {
			f.LoadStrategy = "request_rate"
			if mode := str(lg["request_rate_mode"]); mode != "" {
				f.LoadStrategy = mode
			}
		} else if f.Concurrency != nil {
			f.LoadStrategy = "concurrency"
		}
		return
	}
	phases, _ := at(c, "phases").([]any)
	for _, p := range phases {
		ph, _ := p.(map[string]any)
		if str(ph["kind"]) == "profiling" || str(ph["name"]) == "profiling" {
			f.load(name+" (input_config.phases, the profiling phase)", str(ph["type"]), ph["rate"], ph["concurrency"])
			return
		}
	}
}

// inferencePerfConfig reads inference-perf's config.yaml: server.model_name and
// load.{type, stages[].rate, stages[].concurrency_level,
// stages[].concurrent_sessions} (config/config.py).
func (f *Facts) inferencePerfConfig(dir string) {
	const name = "config.yaml"
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return
	}
	var c map[string]any
	if err := yaml.Unmarshal(data, &c); err != nil {
		f.Notes = append(f.Notes, fmt.Sprintf("%s: not read: %v", name, err))
		return
	}
	if m := str(at(c, "server", "model_name")); m != "" {
		f.Model, f.ModelFrom = m, name
	}
	stages, _ := at(c, "load", "stages").([]any)
	if len(stages) == 0 {
		return
	}
	st, _ := stages[0].(map[string]any)
	conc := st["concurrency_level"]
	if conc == nil {
		conc = st["concurrent_sessions"]
	}
	f.load(name+" (load.stages[0])", str(at(c, "load", "type")), st["rate"], conc)
	if len(stages) > 1 {
		f.LoadNote = fmt.Sprintf("%s has %d stages: these are the first's", name, len(stages))
	}
}

// load sets the load strategy, rate and concurrency, each when given.
func (f *Facts) load(from, strategy string, rate, conc any) {
	f.LoadFrom = from
	if strategy != "" {
		f.LoadStrategy = strategy
	}
	if r, ok := num(rate); ok && r > 0 {
		f.RequestRate = &r
	}
	if c, ok := num(conc); ok && c > 0 && c == float64(int64(c)) {
		n := int64(c)
		f.Concurrency = &n
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
