package runinit

import (
	"path/filepath"
	"strings"

	"github.com/outlast-dev/outlast/ingest/inputs"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/rundir"
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
	// The version and model as the engine's row finds them (vLLM's when
	// no header was recognised); prefix caching as ingest reads it
	// (rundir.PrefixCachingArg).
	format, ok := inputs.EngineNamed(e.Name)
	if !ok {
		format = &inputs.EngineLogs[0]
	}
	for i := 0; i < 2000 && lr.Next(); i++ {
		b := lr.Bytes()
		if m := format.Version.FindSubmatch(b); m != nil && e.Version == "" {
			e.Version = string(m[1])
		}
		if m := format.Model.FindSubmatch(b); m != nil && e.Model == "" {
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
