package enginelog

import (
	"testing"
	"time"
)

// TestJournaldJSON reads entries of `journalctl -o json`: the MESSAGE as
// a string or as an array of bytes (with colour codes), the realtime stamp
// as the wrapper's instant, columns mapped back to the raw line, and lines
// that are not such entries left as they are.
func TestJournaldJSON(t *testing.T) {
	const head = `{"__CURSOR":"s=6a4c;i=1f2;b=9e1;m=3c1;t=62a;x=51b","__REALTIME_TIMESTAMP":"1784542503527104","__MONOTONIC_TIMESTAMP":"977310221","_BOOT_ID":"9e1","PRIORITY":"6","SYSLOG_IDENTIFIER":"vllm","_PID":"1234",`
	const msg = "INFO 07-20 10:15:03 [loggers.py:271] Engine 000: Running: 1 reqs"
	at := time.Date(2026, 7, 20, 10, 15, 3, 527104000, time.UTC)
	for _, tc := range []struct {
		name, raw, text string
		journal         bool
		col             int // Col of the offset of "Engine" in text; 0: none
	}{
		{"string", head + `"MESSAGE":"` + msg + `","_COMM":"python3"}`, msg, true, len(head) + len(`"MESSAGE":"`) + 37 + 1},
		{"bytes", head + `"MESSAGE":[27,91,51,50,109,73,78,70,79,27,91,48,109,32,69,110,103,105,110,101],"_COMM":"python3"}`, "INFO Engine", true, 0},
		{"escaped", head + `"MESSAGE":"a \"q\" Engine\n"}`, `a "q" Engine`, true, 0},
		{"several values", head + `"MESSAGE":["a","b"]}`, "", false, 0},
		{"no stamp", `{"__CURSOR":"s=1","MESSAGE":"` + msg + `"}`, "", false, 0},
		{"cut", head + `"MESSAGE":"` + msg, "", false, 0},
		{"not journald", `{"MESSAGE":"` + msg + `"}`, "", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := new(Preamble).Read([]byte(tc.raw))
			if !tc.journal {
				if l.Wrappers().Has(JournaldJSON) || string(l.Text) != tc.raw {
					t.Fatalf("read as journalctl's JSON: text %q, wrappers %v", l.Text, l.Wrappers())
				}
				return
			}
			if !l.Wrappers().Has(JournaldJSON) {
				t.Errorf("wrappers %v, want journald-json", l.Wrappers())
			}
			if string(l.Text) != tc.text {
				t.Errorf("text %q, want %q", l.Text, tc.text)
			}
			if got, ok := l.WrapperTime(); !ok || !got.Equal(at) {
				t.Errorf("wrapper time %v, %v; want %v", got, ok, at)
			}
			if k := indexOf(l.Text, "Engine"); k >= 0 && l.Col(k) != tc.col {
				t.Errorf("Col(%d) = %d, want %d", k, l.Col(k), tc.col)
			}
		})
	}
}
