package rundir

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/schema"
)

// The startup arguments that turn prefix caching on or off, as the
// engines print them: vLLM's config dump ("'enable_prefix_caching': True"
// in its non-default args, "enable_prefix_caching=True" in EngineArgs'
// repr), SGLang's "server_args=ServerArgs(…, disable_radix_cache=False, …)".
var (
	vllmPrefixArg  = regexp.MustCompile(`enable_prefix_caching(?:': |=)(True|False)`)
	sglangRadixArg = regexp.MustCompile(`disable_radix_cache=(True|False)`)
)

// startupLines is how far into a log the engines print their arguments.
const startupLines = 2000

// PrefixCachingArg returns what the startup arguments among the first
// 2,000 lines of the engine log at path say of prefix caching for engine
// (schema.EngineVLLM or EngineSGLang): nil when they say nothing.
func PrefixCachingArg(path, engine string) (*bool, error) {
	lr, err := openHead(path)
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	return prefixCachingArg(lr, engine), lr.Err()
}

func prefixCachingArg(lr *lineio.Reader, engine string) *bool {
	// A literal looked for first: the regular expression runs on the few
	// lines that hold it.
	re, marker := vllmPrefixArg, []byte("prefix_caching")
	if engine == schema.EngineSGLang {
		re, marker = sglangRadixArg, []byte("radix_cache")
	}
	for i := 0; i < startupLines && lr.Next(); i++ {
		b := lr.Bytes()
		if !bytes.Contains(b, marker) {
			continue
		}
		if m := re.FindSubmatch(b); m != nil {
			on := string(m[1]) == "True"
			if engine == schema.EngineSGLang {
				on = !on // disable_radix_cache
			}
			return &on
		}
	}
	return nil
}

// prefixCachingStated warns when the engine log's startup arguments at
// path contradict run.yaml's engine.prefix_caching (stated): the
// manifest's is kept, but a run with caching off counted as cached gets
// a regime verdict it should not (uncached).
func (r *runReader) prefixCachingStated(path, logFormat string, stated bool) {
	engine := logEngine(logFormat)
	if engine != schema.EngineVLLM && engine != schema.EngineSGLang {
		return
	}
	lr, err := openHead(path)
	if err != nil {
		return // the engine log was read whole already; its errors were said
	}
	defer lr.Close()
	if arg := prefixCachingArg(lr, engine); arg != nil && *arg != stated {
		r.warnf("WARNING: run.yaml gives engine.prefix_caching: %t, but %s's startup arguments turn it %s: run.yaml's is used; check which is right",
			stated, filepath.Base(path), map[bool]string{true: "on", false: "off"}[*arg])
	}
}

// logEngine is the engine of a log format ("vllm-v0+docker-compose" is
// vllm's).
func logEngine(logFormat string) string {
	engine, _, _ := strings.Cut(logFormat, "-")
	engine, _, _ = strings.Cut(engine, "+")
	return engine
}

// prefixCachingUnstated decides prefix caching for a run whose run.yaml
// does not say it, rather than taking its absence for "off": from the
// engine log at path ("" for none), whose format was read as logFormat
// ("vllm-v0+docker-compose", say), else from the metrics'
// cache_config_info (read before). Both engines cache prefixes unless told
// not to (vLLM's V1 engine; SGLang's radix cache); vLLM's V0 engine did
// not. Every way, the run says how it was decided.
func (r *runReader) prefixCachingUnstated(path, logFormat string) {
	run := &r.res.Data.Run
	engine := logEngine(logFormat)
	var on *bool
	from := ""
	if path != "" && (engine == schema.EngineVLLM || engine == schema.EngineSGLang) {
		lr, err := openHead(path)
		if err == nil {
			on = prefixCachingArg(lr, engine)
			lr.Close()
		}
		from = filepath.Base(path) + "'s startup arguments"
	}
	switch {
	case on != nil:
	case r.metricsPrefixCaching != nil:
		on, from = r.metricsPrefixCaching, "the metrics' cache_config_info (enable_prefix_caching)"
	case path != "" && strings.HasPrefix(logFormat, "vllm-v0"):
		on, from = new(bool), "the default of vLLM's V0 engine, whose log "+filepath.Base(path)+" is"
	case path == "" && run.EngineName == schema.EngineVLLM && beforeV1(run.EngineVersion):
		on, from = new(bool), "the default of vLLM's V0 engine, the engine of vLLM "+run.EngineVersion+" (V1 became the default in 0.8.0), with no engine log to say otherwise"
	default:
		t := true
		on, from = &t, "both engines' default (vLLM's V1 engine, SGLang's radix cache)"
		if n := run.EngineName; n != schema.EngineVLLM && n != schema.EngineSGLang {
			from = "vLLM's and SGLang's default, a guess for engine " + strconv.Quote(n) + ", which is neither"
		}
		if path == "" {
			from += ", with no engine log to say otherwise"
		} else {
			from += ": " + filepath.Base(path) + " does not turn it off"
		}
	}
	run.PrefixCaching = *on
	r.warnf("WARNING: run.yaml does not give engine.prefix_caching: taken as %t, from %s; write it in run.yaml to be sure", *on, from)
}

// beforeV1 reports whether version ("0.7.3", "v0.5.4.post1") is a vLLM
// release before 0.8.0, whose default engine was V0 (vLLM's V1 engine
// became the default in 0.8.0); false when it does not read as one.
func beforeV1(version string) bool {
	v := strings.TrimPrefix(strings.TrimSpace(version), "v")
	major, rest, ok := strings.Cut(v, ".")
	if !ok {
		return false
	}
	minor, _, _ := strings.Cut(rest, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	return err1 == nil && err2 == nil && ma == 0 && mi < 8
}
