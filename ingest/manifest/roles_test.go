package manifest

import (
	"slices"
	"strings"
	"testing"
)

// TestRoleLogs reads files.prefill_log and files.decode_log, one name or
// a list, and refuses a name outside the run directory at its place.
func TestRoleLogs(t *testing.T) {
	const head = "format: outlast-run/1\nrun: pd\nexperiment: e\ndesign: observe\narm: none\nstarted_at: 2026-04-01T15:00:00Z\nduration_s: 600\nengine: {name: sglang}\n"
	m, err := Parse([]byte(head+"files:\n  prefill_log: prefill.log\n  decode_log: [decode-0.log, logs/decode-1.log]\n"), "run.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Files.PrefillLogs, []string{"prefill.log"}) || !slices.Equal(m.Files.DecodeLogs, []string{"decode-0.log", "logs/decode-1.log"}) || !m.Files.HasRoles() {
		t.Errorf("files %+v", m.Files)
	}
	for _, tc := range []struct{ files, want string }{
		{"  decode_log: [decode.log, ../x.log]\n", `run.yaml:10: files.decode_log[1]: "../x.log" must be a path inside the run directory`},
		{"  decode_log: []\n", "an empty list"},
		{"  prefill_log: {a: b}\n", "want a plain value"},
	} {
		_, err := Parse([]byte(head+"files:\n"+tc.files), "run.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.files, err, tc.want)
		}
	}
}
