package enginelog

import (
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"
)

// TestJSONLines reads lines of Docker's json-file log and entries of
// `journalctl -o json`: the engine's line decoded (colour codes then
// stripped as on any line), the wrapper's stamp as its instant, columns
// mapped back to the raw line until the first escape (0 past it), and
// lines that are not whole such objects left as they are.
func TestJSONLines(t *testing.T) {
	const (
		stamp   = "2026-07-20T10:15:03.527104251Z"
		journal = `{"__CURSOR":"s=6a4c;i=1f2;b=9e1;m=3c1;t=62a;x=51b","__REALTIME_TIMESTAMP":"1784542503527104","__MONOTONIC_TIMESTAMP":"977310221","_BOOT_ID":"9e1","PRIORITY":"6","SYSLOG_IDENTIFIER":"vllm","_PID":"1234",`
		msg     = "INFO 07-20 10:15:03 [loggers.py:271] Engine 000: Running: 1 reqs"
	)
	docker := time.Date(2026, 7, 20, 10, 15, 3, 527104251, time.UTC)
	journald := time.Date(2026, 7, 20, 10, 15, 3, 527104000, time.UTC)
	for _, tc := range []struct {
		name, raw string
		wrapper   Wrapper // 0 (LogExport): not read as JSON
		text      string
		col       int // Col of the offset of "Engine" in text
	}{
		{"docker", `{"log":"` + msg + `\n","stream":"stdout","time":"` + stamp + `"}`, DockerJSON, msg, 9 + 37},
		{"docker attrs", `{"log":"x Engine\n","stream":"stderr","attrs":{"time":"no","tag":"vllm"},"time":"` + stamp + `"}`, DockerJSON, "x Engine", 9 + 2},
		{"docker escapes", `{"log":"\u001b[32mINFO\u001b[0m a \u0026 \u003c\u003e \"q\" \\ \t\ud83d\ude80 Engine\r\n","time":"` + stamp + `"}`,
			DockerJSON, "INFO a & <> \"q\" \\ \t\U0001F680 Engine", 0},
		// Blanks a terminal copy pads the line with are not the object's.
		{"docker padded", `{"log":"` + msg + `\n","stream":"stdout","time":"` + stamp + `"}` + "  \t", DockerJSON, msg, 9 + 37},
		{"journald padded", journal + `"MESSAGE":"` + msg + `","_COMM":"python3"} `, JournaldJSON, msg, len(journal) + len(`"MESSAGE":"`) + 37 + 1},
		{"docker partial", `{"log":"Engine part","stream":"stdout","time":"` + stamp + `"}`, DockerJSON, "Engine part", 9},
		{"docker re-dumped by Python", `{"log": "` + msg + `\n", "stream": "stdout", "time": "` + stamp + `"}`, DockerJSON, msg, 10 + 37},
		{"docker half spaced", `{"log": "Engine\n","stream":"stdout","time":"` + stamp + `"}`, 0, "", 0},
		{"docker no time", `{"log":"Engine\n","stream":"stdout"}`, 0, "", 0},
		{"docker cut", `{"log":"Engine`, 0, "", 0},
		{"docker bad escape", `{"log":"\x Engine\n","time":"` + stamp + `"}`, 0, "", 0},
		{"not docker", `{"level":"info","log":"Engine"}`, 0, "", 0},
		{"journald", journal + `"MESSAGE":"` + msg + `","_COMM":"python3"}`, JournaldJSON, msg, len(journal) + len(`"MESSAGE":"`) + 37 + 1},
		{"journald bytes", journal + `"MESSAGE":[27,91,51,50,109,73,78,70,79,27,91,48,109,32,69,110,103,105,110,101],"_COMM":"python3"}`, JournaldJSON, "INFO Engine", 0},
		{"journald escaped", journal + `"MESSAGE":"a \"q\" Engine\n"}`, JournaldJSON, `a "q" Engine`, 0},
		{"journald json-seq", "\x1e" + journal + `"MESSAGE":"` + msg + `","_COMM":"python3"}`, JournaldJSON, msg, 1 + len(journal) + len(`"MESSAGE":"`) + 37 + 1},
		{"json-seq not journald", "\x1e" + `{"MESSAGE":"` + msg + `"}`, 0, "", 0},
		{"journald several values", journal + `"MESSAGE":["a","b"]}`, 0, "", 0},
		{"journald no stamp", `{"__CURSOR":"s=1","MESSAGE":"` + msg + `"}`, 0, "", 0},
		{"journald cut", journal + `"MESSAGE":"` + msg, 0, "", 0},
		{"not journald", `{"MESSAGE":"` + msg + `"}`, 0, "", 0},
		{"journald re-dumped by Python", `{"__CURSOR": "s=6a4c", "__REALTIME_TIMESTAMP": "1784542503527104", "_PID": "1234", "MESSAGE": "` + msg + `", "_COMM": "python3"}`,
			JournaldJSON, msg, len(`{"__CURSOR": "s=6a4c", "__REALTIME_TIMESTAMP": "1784542503527104", "_PID": "1234", "MESSAGE": "`) + 37 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := new(Preamble).Read([]byte(tc.raw))
			if tc.wrapper == 0 {
				if l.Wrappers().Has(DockerJSON) || l.Wrappers().Has(JournaldJSON) || string(l.Text) != tc.raw {
					t.Fatalf("read as JSON: text %q, wrappers %v", l.Text, l.Wrappers())
				}
				return
			}
			if !l.Wrappers().Has(tc.wrapper) {
				t.Errorf("wrappers %v, want %v", l.Wrappers(), tc.wrapper)
			}
			if string(l.Text) != tc.text {
				t.Errorf("text %q, want %q", l.Text, tc.text)
			}
			want := docker
			if tc.wrapper == JournaldJSON {
				want = journald
			}
			if got, ok := l.WrapperTime(); !ok || !got.Equal(want) {
				t.Errorf("wrapper time %v, %v; want %v", got, ok, want)
			}
			if k := indexOf(l.Text, "Engine"); k >= 0 && l.Col(k) != tc.col {
				t.Errorf("Col(%d) = %d, want %d", k, l.Col(k), tc.col)
			}
		})
	}
}

func indexOf(b []byte, s string) int {
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return i
		}
	}
	return -1
}

// FuzzDockerJSONString checks appendJSONString against encoding/json: a
// string it decodes, encoding/json decodes the same; a string
// encoding/json writes, it decodes back.
func FuzzDockerJSONString(f *testing.F) {
	for _, s := range []string{`abc"`, `\u0026\u003c\"\\\/\b\f\n\r\t"`, `\ud83d\ude80"`, `\ud83d"`, `\udc00\ud83d"`, `\u12"`, `\x"`, `tail`} {
		f.Add([]byte(s), "INFO é \x00 \u2028 <&>\n")
	}
	f.Fuzz(func(t *testing.T, b []byte, s string) {
		q := append([]byte{'"'}, b...)
		if got, end, _, ok := appendJSONString(nil, q, 1); ok {
			var want string
			if err := json.Unmarshal(q[:end], &want); err != nil || !utf8.Valid(q[:end]) {
				// encoding/json refuses raw control bytes, which the
				// decoder passes on as Docker never writes them.
				return
			}
			if string(got) != want {
				t.Fatalf("%q: decoded %q, encoding/json %q", b, got, want)
			}
		}
		enc, _ := json.Marshal(s)
		got, end, _, ok := appendJSONString(nil, enc, 1)
		var want string
		json.Unmarshal(enc, &want)
		if !ok || end != len(enc) || string(got) != want {
			t.Fatalf("%q: decoded %q (end %d of %d, ok %v), want %q", enc, got, end, len(enc), ok, want)
		}
	})
}
