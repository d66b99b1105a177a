package enginelog

import (
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"
)

// TestDockerJSON reads lines of Docker's json-file log: the engine's line
// decoded, Docker's "time" as the wrapper's zoned stamp, columns mapped
// back to the raw line until the first escape, and lines that are not
// whole such objects left as they are.
func TestDockerJSON(t *testing.T) {
	const stamp = "2026-07-20T10:15:03.527104251Z"
	for _, tc := range []struct {
		name, raw, text string
		json            bool
		col             int // Col of the offset of "Engine" in text, when it is there
	}{
		{"plain", `{"log":"INFO 07-20 10:15:03 [loggers.py:271] Engine 000: Running: 1 reqs\n","stream":"stdout","time":"` + stamp + `"}`,
			"INFO 07-20 10:15:03 [loggers.py:271] Engine 000: Running: 1 reqs", true, 46},
		{"attrs", `{"log":"x Engine\n","stream":"stderr","attrs":{"time":"no","tag":"vllm"},"time":"` + stamp + `"}`, "x Engine", true, 9 + 2},
		{"escapes", `{"log":"\u001b[32mINFO\u001b[0m a \u0026 \u003c\u003e \"q\" \\ \t\ud83d\ude80 Engine\r\n","time":"` + stamp + `"}`,
			"\x1b[32mINFO\x1b[0m a & <> \"q\" \\ \t\U0001F680 Engine\r", true, 0},
		{"partial", `{"log":"Engine part","stream":"stdout","time":"` + stamp + `"}`, "Engine part", true, 9},
		{"no time", `{"log":"Engine\n","stream":"stdout"}`, "", false, 0},
		{"cut", `{"log":"Engine`, "", false, 0},
		{"bad escape", `{"log":"\x Engine\n","time":"` + stamp + `"}`, "", false, 0},
		{"not docker", `{"level":"info","log":"Engine"}`, "", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := new(Preamble).Read([]byte(tc.raw))
			if !tc.json {
				if l.Wrappers().Has(DockerJSON) || string(l.Text) != tc.raw {
					t.Fatalf("read as Docker's json-file: text %q, wrappers %v", l.Text, l.Wrappers())
				}
				return
			}
			if !l.Wrappers().Has(DockerJSON) {
				t.Errorf("wrappers %v, want docker-json", l.Wrappers())
			}
			// Colour codes are stripped as on any line.
			want := tc.text
			if tc.name == "escapes" {
				want = "INFO a & <> \"q\" \\ \t\U0001F680 Engine"
			}
			if string(l.Text) != want {
				t.Errorf("text %q, want %q", l.Text, want)
			}
			if got, ok := l.WrapperTime(); !ok || !got.Equal(time.Date(2026, 7, 20, 10, 15, 3, 527104251, time.UTC)) {
				t.Errorf("wrapper time %v, %v", got, ok)
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
