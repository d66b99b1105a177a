package manifest_test

import (
	"errors"
	"fmt"

	"github.com/outlast-dev/outlast/ingest/manifest"
	"github.com/outlast-dev/outlast/textpos"
)

// A manifest with a misspelt key is refused with the key's line, the key
// it most likely meant and every key that is known there; errors.As
// recovers the position.
func ExampleParse() {
	runYAML := `format: outlast-run/1
run: s501-burst
experiment: paired-8b
design: paired
arm: burst
started_at: 2026-10-27T12:00:00Z
duration_s: 5400
engine:
  name: vllm
  prefix_cacheing: true
`
	_, err := manifest.Parse([]byte(runYAML), "run.yaml")
	fmt.Println(err)
	var pe *textpos.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Pos.File, pe.Pos.Line)
	}
	// Output:
	// run.yaml:10: unknown key "prefix_cacheing" in engine (did you mean prefix_caching?); known keys: name, version, model, prefix_caching, kv_pool_tokens, cpu_offload_tokens, log_tz
	// run.yaml 10
}
