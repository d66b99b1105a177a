package benchgen

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestDeterministicAndValid checks that a seed always gives the same
// bytes, that every line is a JSON object with ts and ev, and that each
// session starts before its turns and ends once.
func TestDeterministicAndValid(t *testing.T) {
	var a, b bytes.Buffer
	st, err := WriteGateway(&a, Options{Bytes: 200e3, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteGateway(&b, Options{Bytes: 200e3, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the same seed gave different bytes")
	}
	if st.Bytes != int64(a.Len()) || st.Bytes < 200e3 {
		t.Errorf("stats say %d bytes, wrote %d", st.Bytes, a.Len())
	}
	started, ended := map[string]string{}, map[string]bool{}
	turns := 0
	for i, line := range bytes.Split(bytes.TrimSuffix(a.Bytes(), []byte("\n")), []byte("\n")) {
		var m struct {
			TS         string `json:"ts"`
			Ev         string `json:"ev"`
			Session    string `json:"session"`
			Ready      string `json:"ready_ts"`
			Sent       string `json:"sent_ts"`
			FirstToken string `json:"first_token_ts"`
		}
		if err := json.Unmarshal(line, &m); err != nil || m.TS == "" || m.Ev == "" {
			t.Fatalf("line %d: %v: %s", i+1, err, line)
		}
		switch m.Ev {
		case "session_start":
			started[m.Session] = m.TS
		case "turn":
			turns++
			start, ok := started[m.Session]
			if !ok {
				t.Fatalf("line %d: turn before its session_start", i+1)
			}
			// RFC 3339 times of one zone and precision order as strings.
			if !(start <= m.Ready && m.Ready <= m.Sent && m.Sent <= m.FirstToken && m.FirstToken <= m.TS) {
				t.Fatalf("line %d: times out of order (session start %s): %s", i+1, start, line)
			}
		case "session_end":
			if ended[m.Session] {
				t.Fatalf("line %d: session ends twice", i+1)
			}
			ended[m.Session] = true
		}
	}
	if turns != st.Turns || len(started) != st.Sessions || len(ended) != st.Sessions {
		t.Errorf("counted %d turns, %d starts, %d ends; stats %+v", turns, len(started), len(ended), st)
	}
}
