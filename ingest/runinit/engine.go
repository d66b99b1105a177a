package runinit

import (
	"path/filepath"
	"regexp"

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
	if e.PrefixCaching == nil && e.Name != "" && log.Format != "vllm-v0" {
		// Both engines cache prefixes unless told not to (vLLM's V1 engine,
		// SGLang's radix cache).
		on := true
		e.PrefixCaching = &on
		e.PrefixFrom = "the engine's default: " + filepath.Base(path) + " does not turn it off"
	}
	return e, nil
}
