package runinit

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/rundir"
	"github.com/outlast-dev/outlast/schema"
)

// EngineFacts are what the engine log says of the engine.
type EngineFacts struct {
	Name, Version, Model string
	KVPoolTokens         int64
	PrefixCaching        *bool
	PrefixFrom           string // why PrefixCaching is what it is
	// NameFrom, PoolFrom and VersionFrom name the file each came from.
	NameFrom, PoolFrom string
	logFormat          string // the engine log's format, as ingest names it
}

// Header patterns of the engine logs' startup lines, vLLM's then SGLang's.
var (
	// vLLM: "Initializing a V1 LLM engine (v0.28.0) with config: model='…'",
	// "vLLM API server version 0.8.5", the banner's "version 0.28.0".
	vllmVersion = regexp.MustCompile(`(?:LLM engine \(v|vLLM API server version |█  version )([0-9][0-9A-Za-z.+-]*)`)
	vllmModel   = regexp.MustCompile(`(?:with config: model='|'model': ')([^']+)'`)
	// SGLang: "server_args=ServerArgs(model_path='…', …)" and the version
	// line "sglang version: 0.5.2" / "SGLang v0.5.2". Prefix caching is
	// read as ingest reads it (rundir.PrefixCachingArg).
	sglangVersion = regexp.MustCompile(`(?i)sglang(?: version[:=]? ?| v)([0-9][0-9A-Za-z.+-]*)`)
	sglangModel   = regexp.MustCompile(`model_path='([^']+)'`)
)

// readEngine reads the engine log at path: its engine and KV pool as
// ingest reads them, its version, model and prefix caching from the
// startup lines among its first 2,000.
func readEngine(path string) (EngineFacts, error) {
	log, err := rundir.ReadEngineLog(path)
	if err != nil {
		return EngineFacts{}, err
	}
	e := EngineFacts{Name: log.Engine, KVPoolTokens: log.KVPoolTokens}
	if e.Name != "" {
		e.NameFrom = filepath.Base(path)
	}
	if e.KVPoolTokens > 0 {
		e.PoolFrom = filepath.Base(path)
	}
	lr, err := lineio.Open(path, filepath.Base(path))
	if err != nil {
		return e, err
	}
	defer lr.Close()
	version, model := vllmVersion, vllmModel
	if e.Name == schema.EngineSGLang {
		version, model = sglangVersion, sglangModel
	}
	for i := 0; i < 2000 && lr.Next(); i++ {
		b := lr.Bytes()
		if m := version.FindSubmatch(b); m != nil && e.Version == "" {
			e.Version = string(m[1])
		}
		if m := model.FindSubmatch(b); m != nil && e.Model == "" {
			e.Model = string(m[1])
		}
	}
	if err := lr.Err(); err != nil {
		return e, err
	}
	if on, err := rundir.PrefixCachingArg(path, e.Name); err != nil {
		return e, err
	} else if on != nil {
		e.PrefixCaching = on
		e.PrefixFrom = "from " + filepath.Base(path) + "'s startup arguments"
	}
	e.logFormat = log.Format
	return e, nil
}

// useMetrics completes e with what the metrics at path say, where the
// engine log said nothing: the engine (from its series' names), the KV
// pool, and prefix caching from vLLM's cache_config_info, which ingest
// also takes before the engines' default.
func (e *EngineFacts) useMetrics(path string) error {
	info, err := rundir.ReadMetricsInfo(path)
	if err != nil {
		return err
	}
	name := filepath.Base(path)
	if e.Name == "" && info.Engine != "" {
		e.Name, e.NameFrom = info.Engine, name+"'s series names"
	}
	if e.KVPoolTokens <= 0 && info.KVPoolTokens > 0 {
		e.KVPoolTokens, e.PoolFrom = info.KVPoolTokens, name
	}
	if e.PrefixCaching == nil && info.PrefixCaching != nil {
		e.PrefixCaching = info.PrefixCaching
		e.PrefixFrom = "from " + name + "'s cache_config_info (enable_prefix_caching)"
	}
	return nil
}

// defaultPrefixCaching sets prefix caching, where nothing said it, to the
// engine's default as ingest takes it: on for vLLM's V1 engine and SGLang's
// radix cache, off for vLLM's V0 engine (its log's format says it).
// engineLog is the engine log's name, "" without one.
func (e *EngineFacts) defaultPrefixCaching(engineLog string) {
	if e.PrefixCaching != nil || e.Name == "" {
		return
	}
	on := e.logFormat != "vllm-v0" && !strings.HasPrefix(e.logFormat, "vllm-v0+")
	e.PrefixCaching = &on
	switch {
	case !on:
		e.PrefixFrom = "the default of vLLM's V0 engine, whose log " + engineLog + " is"
	case engineLog == "":
		e.PrefixFrom = "the engine's default: no engine log says otherwise"
	default:
		e.PrefixFrom = "the engine's default: " + engineLog + " does not turn it off"
	}
}
