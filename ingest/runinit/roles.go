package runinit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/outlast-dev/outlast/ingest/inputs"
)

// roleLogs finds a prefill/decode-disaggregated deployment's engine logs
// in dir, when it holds no engine log: the files whose names start with
// the roles' prefixes (inputs.PrefillLog, inputs.DecodeLog: prefill*,
// decode*) and end in .log, compressed or not, in the order of names.
func (f *Facts) roleLogs(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(inputs.TrimCompression(name), ".log") {
			continue
		}
		lower := strings.ToLower(name)
		switch {
		case strings.HasPrefix(lower, inputs.PrefillLog.Prefix):
			f.PrefillLogs = append(f.PrefillLogs, name)
		case strings.HasPrefix(lower, inputs.DecodeLog.Prefix):
			f.DecodeLogs = append(f.DecodeLogs, name)
		}
	}
	sort.Strings(f.PrefillLogs)
	sort.Strings(f.DecodeLogs)
	return nil
}

// startupLog returns the engine log whose startup lines give the engine,
// its version, prefix caching and KV pool: the engine log, else a
// disaggregated deployment's first prefill log (the side that caches
// prefixes), else its first decode log; "" without any.
func (f *Facts) startupLog() string {
	switch {
	case f.EngineLog != "":
		return f.EngineLog
	case len(f.PrefillLogs) > 0:
		return f.PrefillLogs[0]
	case len(f.DecodeLogs) > 0:
		return f.DecodeLogs[0]
	}
	return ""
}

// writeRoles writes files.prefill_log and files.decode_log: a name, or a
// list of them.
func (f *Facts) writeRoles(buf *bytes.Buffer) {
	if len(f.PrefillLogs)+len(f.DecodeLogs) == 0 {
		return
	}
	buf.WriteString("  # a prefill/decode-disaggregated deployment's engine logs, by role (found by\n")
	buf.WriteString("  # their names): the prefill side gives prefix caching, the KV pool and the\n")
	buf.WriteString("  # prefill batches, the decode side the running requests and decode throughput\n")
	for _, r := range []struct {
		key   string
		names []string
	}{{inputs.PrefillLog.Key, f.PrefillLogs}, {inputs.DecodeLog.Key, f.DecodeLogs}} {
		switch len(r.names) {
		case 0:
		case 1:
			line(buf, 1, r.key, r.names[0], "")
		default:
			line(buf, 1, r.key, "["+strings.Join(r.names, ", ")+"]", fmt.Sprintf("%d logs, one per node or rank", len(r.names)))
		}
	}
	if len(f.PrefillLogs) == 0 {
		buf.WriteString("  # no prefill log found: prefix caching and the KV pool are the prefill side's to say\n")
	}
}

// startupPath is startupLog joined to dir, "" without one.
func (f *Facts) startupPath(dir string) string {
	if s := f.startupLog(); s != "" {
		return filepath.Join(dir, s)
	}
	return ""
}
