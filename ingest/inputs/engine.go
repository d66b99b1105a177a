package inputs

import (
	"path/filepath"
	"regexp"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/sglanglog"
	"github.com/outlast-dev/outlast/ingest/vllmlog"
	"github.com/outlast-dev/outlast/schema"
)

// EngineFormat is an engine's log format, a row of EngineLogs.
type EngineFormat struct {
	Name string // run.yaml's engine.name
	// Match reports whether a line is one of the engine's (its header,
	// through any wrapper in front of it).
	Match func(line []byte) bool
	Open  func(lr *lineio.Reader, opt enginelog.Options) EngineReader
	// Version and Model find the engine's version and model in its
	// startup lines (outlast init), in their first submatch.
	Version, Model *regexp.Regexp
}

// EngineReader reads an engine log: its samples in order, then, in Info,
// what it saw.
type EngineReader interface {
	Next() (schema.EngineSample, error)
	Info() enginelog.Info
}

// EngineLogs are the engine logs read, in the order SniffEngine prefers on
// a tie.
var EngineLogs = []EngineFormat{
	{
		Name:  schema.EngineVLLM,
		Match: vllmlog.Match,
		Open:  func(lr *lineio.Reader, opt enginelog.Options) EngineReader { return vllmlog.NewReader(lr, opt) },
		// "Initializing a V1 LLM engine (v0.28.0) with config: model='…'",
		// "vLLM API server version 0.8.5", the banner's "version 0.28.0".
		Version: regexp.MustCompile(`(?:LLM engine \(v|vLLM API server version |█  version )([0-9][0-9A-Za-z.+-]*)`),
		Model:   regexp.MustCompile(`(?:with config: model='|'model': ')([^']+)'`),
	},
	{
		Name:  schema.EngineSGLang,
		Match: sglanglog.Match,
		Open:  func(lr *lineio.Reader, opt enginelog.Options) EngineReader { return sglanglog.NewReader(lr, opt) },
		// The version line "sglang version: 0.5.2" / "SGLang v0.5.2", and
		// "server_args=ServerArgs(model_path='…', …)".
		Version: regexp.MustCompile(`(?i)sglang(?: version[:=]? ?| v)([0-9][0-9A-Za-z.+-]*)`),
		Model:   regexp.MustCompile(`model_path='([^']+)'`),
	},
}

// EngineNamed returns the engine-log format of the engine called name, and
// false when there is none.
func EngineNamed(name string) (*EngineFormat, bool) {
	for i := range EngineLogs {
		if EngineLogs[i].Name == name {
			return &EngineLogs[i], true
		}
	}
	return nil, false
}

// SniffEngine returns the engine-log format whose lines most of the first
// 500 lines of the file at path match (an SGLang log can start with a few
// lines in vLLM's format), nil when none does.
func SniffEngine(path string) (*EngineFormat, error) {
	lr, err := lineio.OpenHead(path, filepath.Base(path))
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	votes := make([]int, len(EngineLogs))
	for i := 0; i < 500 && lr.Next(); i++ {
		for k, f := range EngineLogs {
			if f.Match(lr.Bytes()) {
				votes[k]++
				break
			}
		}
	}
	best := -1
	for k, n := range votes {
		if n > 0 && (best < 0 || n > votes[best]) {
			best = k
		}
	}
	if best < 0 {
		return nil, lr.Err()
	}
	return &EngineLogs[best], lr.Err()
}
