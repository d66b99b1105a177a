package rundir

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/outlast-dev/outlast/ingest/aiperf"
	"github.com/outlast-dev/outlast/ingest/guidellm"
	"github.com/outlast-dev/outlast/ingest/inferenceperf"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/manifest"
	"github.com/outlast-dev/outlast/schema"
)

// loadgenNames are the file names the load generators give their
// per-request exports, tried in order when the manifest names no gateway
// log and there is no gateway.jsonl.
var loadgenNames = []string{"profile_export.jsonl", "benchmarks.json", "benchmarks.yaml", "per_request_lifecycle_metrics.json"}

// loadgenByName is the format of each of loadgenNames, the tools' own
// default names: AIPerf's OutputDefaults.PROFILE_EXPORT_FILE
// (aiperf/common/config/config_defaults.py), GuideLLM's default outputs
// (benchmark/output.py at v0.3.1, benchmark/outputs/serialized.py since),
// inference-perf's report name (reportgen/base.py).
var loadgenByName = map[string]string{
	"profile_export.jsonl":               schema.GatewayAIPerf,
	"benchmarks.json":                    schema.GatewayGuideLLM,
	"benchmarks.yaml":                    schema.GatewayGuideLLM,
	"per_request_lifecycle_metrics.json": schema.GatewayInferencePerf,
}

// gatewayFile returns the path of the run's gateway log and its format:
// files.gateway_format when the manifest gives it, else the one Detect
// finds.
func gatewayFile(dir string, m *manifest.Manifest) (string, string, error) {
	p, err := findFile(dir, m.Files.Gateway, false)
	if err != nil {
		return "", "", err
	}
	if p == "" && m.Files.Gateway == manifest.DefaultGateway {
		for _, n := range loadgenNames {
			if p, err = findFile(dir, n, false); p != "" || err != nil {
				break
			}
		}
	}
	if err != nil {
		return "", "", err
	}
	if p == "" {
		err := fmt.Errorf("%s: missing %s (required by run-format.md)", dir, m.Files.Gateway)
		if m.Files.Gateway == manifest.DefaultGateway {
			// A load generator's summary under its own name is no
			// request log: say what it is, and what to give instead.
			if name, what := summaryIn(dir); name != "" {
				err = fmt.Errorf("%s: missing %s, and %s is not one: %s", dir, m.Files.Gateway, name, what)
			}
		}
		return "", "", err
	}
	if m.Files.GatewayFormat != "" {
		return p, m.Files.GatewayFormat, nil
	}
	format, err := Detect(p)
	return p, format, err
}

// Detect returns the gateway-log format of the file at path (possibly .gz
// or .zst). Its first bytes decide when they show a load generator's
// export: an AIPerf record, a GuideLLM report (JSON or YAML), an
// inference-perf list of request records. Else its name does: a file
// named as a load generator's export (loadgenByName) is that tool's, so
// that a record of a shape outlast does not know is refused in the tool's
// terms, not as a bad line of outlast's own gateway log. Any other file is
// outlast's own gateway log.
func Detect(path string) (string, error) {
	lr, err := lineio.OpenHead(path, filepath.Base(path))
	if err != nil {
		return "", err
	}
	defer lr.Close()
	head := make([]byte, 4096)
	n, err := io.ReadFull(lr, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	format := detect(filepath.Base(path), head[:n])
	if format == schema.GatewayOutlast {
		if what := loadgenSummary(filepath.Base(path), head[:n]); what != "" {
			return "", fmt.Errorf("%s: not a gateway log: %s", filepath.Base(path), what)
		}
	}
	return format, nil
}

// loadgenSummary says what the file named name, whose first bytes are
// head, is when it is one of the load generators' summaries, which hold no
// request; "" otherwise.
func loadgenSummary(name string, head []byte) string {
	name = trimCompression(name)
	if what := aiperf.Summary(name, head); what != "" {
		return what
	}
	for _, summary := range []func(string) string{guidellm.Summary, inferenceperf.Summary} {
		if what := summary(name); what != "" {
			return what
		}
	}
	return ""
}

// summaryIn returns the name of a file in dir that a load generator's
// summary is by its name, and what it is; "" when there is none.
func summaryIn(dir string) (string, string) {
	entries, _ := os.ReadDir(dir) // unreadable: no summary to name
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if what := loadgenSummary(e.Name(), nil); what != "" {
			return e.Name(), what
		}
	}
	return "", ""
}

// trimCompression removes a compression suffix from a file name.
func trimCompression(name string) string {
	for _, ext := range []string{".gz", ".zst"} {
		name = strings.TrimSuffix(name, ext)
	}
	return name
}

// detect returns the format of the file named name whose first bytes are
// head.
func detect(name string, head []byte) string {
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	switch {
	case aiperf.Sniff(firstLine(trimmed)):
		return schema.GatewayAIPerf
	case guidellm.Sniff(trimmed):
		return schema.GatewayGuideLLM
	case inferenceperf.Sniff(trimmed):
		return schema.GatewayInferencePerf
	}
	if f, ok := loadgenByName[trimCompression(name)]; ok {
		return f
	}
	return schema.GatewayOutlast
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}
