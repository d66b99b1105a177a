// Package inputs is the table of what outlast reads in a run directory
// (docs/run-format.md): the roles its files play, and the formats read in
// each role, one row each. manifest checks run.yaml's files: section
// against it, rundir finds, tells apart and opens the files by it, and
// runinit (outlast init) finds them and reads the tools' own configuration
// through it. None of them names a format.
//
// A role is run.yaml's files: key that names the file and the names looked
// for when it names none: the request log (RequestLog, files.gateway), the
// engine log (EngineLog, files.engine_log), the metrics (Metrics,
// files.metrics). A row of Requests is a format of the request log:
// outlast's own gateway log or a load generator's per-request export, with
// its name (files.gateway_format, runs.gateway_format), the file names its
// tool writes by default, how its first bytes show it (Sniff), the tool's
// summaries that are no request log (Summary), how to open it (Open, or
// Records for outlast's own), and what outlast init reads beside it
// (Config). A row of EngineLogs is an engine's log: its name (engine.name),
// how its lines show it, how to open it, and where its startup lines give
// the version and the model.
//
// A new load generator's reader is one package and one row:
//
//	ingest/NAME/                 the reader: a Next returning *loadgen.Turn,
//	                             Sniff and Summary; its tests, and a real
//	                             export under fixtures/real with its source
//	ingest/inputs/requests.go    its row in Requests, and its adapter to
//	                             Export (and a Config reader, if the tool
//	                             writes its configuration beside the export)
//	schema/vocab.go              its name among the Gateway* constants, the
//	                             value runs.gateway_format stores
//	docs/run-format.md           its section of the input contract
//
// manifest, rundir and runinit are not touched. A new engine's log is the
// same: its package and a row of EngineLogs (engine.go). A new role (a
// second engine log, say) is a Role here, its key in manifest's Files, and
// where rundir and runinit read it.
package inputs

import "strings"

// Role is a part a file plays in a run directory.
type Role struct {
	Key string // run.yaml's files: key that names the file
	// Defaults are the names looked for, in order, when run.yaml names
	// none; each may also end in .gz or .zst.
	Defaults []string
	// Prefix, for a role read only when run.yaml names its files (no
	// Defaults), starts the names of the files outlast init gives it.
	Prefix string
}

// The roles of a run directory's files.
var (
	// RequestLog is the per-request log, required: outlast's own
	// gateway.jsonl, else the first of the load generators' default names
	// present (Requests' Files, in order).
	RequestLog = Role{Key: "gateway", Defaults: requestFiles()}
	// EngineLog is the engine's log, optional.
	EngineLog = Role{Key: "engine_log", Defaults: []string{"engine.log"}}
	// Metrics is the engine's Prometheus metrics, optional: a file, or a
	// directory of query_range answers.
	Metrics = Role{Key: "metrics", Defaults: []string{"metrics.prom"}}
	// PrefillLog and DecodeLog are a prefill/decode-disaggregated
	// deployment's engine logs, given by role instead of EngineLog: a
	// file or a list of them (a log per node or rank). The prefill side
	// gives the caching, the KV pool and the prefill batches, the decode
	// side the running requests and the decode throughput. Read only when
	// run.yaml names them; outlast init names the logs whose names start
	// with Prefix.
	PrefillLog = Role{Key: "prefill_log", Prefix: "prefill"}
	DecodeLog  = Role{Key: "decode_log", Prefix: "decode"}
)

// requestFiles returns the default names of every request-log format, in
// the order of Requests.
func requestFiles() []string {
	var names []string
	for _, f := range Requests {
		names = append(names, f.Files...)
	}
	return names
}

// RequestNames returns the names of the request-log formats, in the order
// of Requests: the values files.gateway_format may take.
func RequestNames() []string {
	names := make([]string, len(Requests))
	for i, f := range Requests {
		names[i] = f.Name
	}
	return names
}

// RequestNamed returns the request-log format called name, and false when
// there is none.
func RequestNamed(name string) (*Request, bool) {
	for i := range Requests {
		if Requests[i].Name == name {
			return &Requests[i], true
		}
	}
	return nil, false
}

// TrimCompression removes a compression suffix (.gz, .zst) from a file
// name.
func TrimCompression(name string) string {
	for _, ext := range []string{".gz", ".zst"} {
		name = strings.TrimSuffix(name, ext)
	}
	return name
}
