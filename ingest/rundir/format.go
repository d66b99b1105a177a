package rundir

import (
	"fmt"

	"github.com/outlast-dev/outlast/ingest/inputs"
	"github.com/outlast-dev/outlast/ingest/manifest"
)

// gatewayFile returns the path of the run's gateway log and its format:
// files.gateway_format when the manifest gives it, else the one
// inputs.Detect finds. Without files.gateway, the first of the request
// log's default names present is the log (inputs.RequestLog).
func gatewayFile(dir string, m *manifest.Manifest) (string, *inputs.Request, error) {
	p, err := findFile(dir, m.Files.Gateway, false)
	if err != nil {
		return "", nil, err
	}
	if p == "" && m.Files.Gateway == manifest.DefaultGateway {
		for _, n := range inputs.RequestLog.Defaults {
			if p, err = findFile(dir, n, false); p != "" || err != nil {
				break
			}
		}
	}
	if err != nil {
		return "", nil, err
	}
	if p == "" {
		err := fmt.Errorf("%s: missing %s (required by run-format.md)", dir, m.Files.Gateway)
		if m.Files.Gateway == manifest.DefaultGateway {
			// A load generator's summary under its own name is no
			// request log: say what it is, and what to give instead.
			if name, what := inputs.SummaryIn(dir); name != "" {
				err = fmt.Errorf("%s: missing %s, and %s is not one: %s", dir, m.Files.Gateway, name, what)
			}
		}
		return "", nil, err
	}
	name := m.Files.GatewayFormat
	if name == "" {
		if name, err = inputs.Detect(p); err != nil {
			return "", nil, err
		}
	}
	f, ok := inputs.RequestNamed(name)
	if !ok {
		return "", nil, fmt.Errorf("%s: internal error: no reader of gateway format %q", dir, name)
	}
	return p, f, nil
}
