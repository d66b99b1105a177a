package outlastlog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// collect feeds lines (ts given as run seconds after specT0) through a
// Reader and a Collector and returns the errors, each of which must hold
// its line.
func collect(t *testing.T, lines ...string) (*Collector, []string) {
	t.Helper()
	c := NewCollector()
	perrs, other := feed(newTestReader(t, strings.Join(lines, "\n")+"\n", specT0), c)
	if other != nil {
		t.Fatal(other)
	}
	var errs []string
	for _, e := range perrs {
		if string(e.Raw) != lines[e.Pos.Line-1] {
			t.Errorf("error %v does not hold its line", e)
		}
		errs = append(errs, e.Error())
	}
	return c, errs
}

func start(ts, session string) string {
	return fmt.Sprintf(`{"ts":%s,"ev":"session_start","session":%q}`, ts, session)
}

func turnLine(ts, session string, turn int) string {
	return fmt.Sprintf(`{"ts":%s,"ev":"turn","session":%q,"turn":%d,"prompt_tokens":10,"output_tokens":1}`, ts, session, turn)
}

func TestCollectorRules(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"ordinary session", []string{start("1761566401", "a"), turnLine("1761566402", "a", 0),
			`{"ts":1761566403,"ev":"park","session":"a","turn":1}`, `{"ts":1761566404,"ev":"resume","session":"a","turn":1}`,
			turnLine("1761566405", "a", 1), `{"ts":1761566406,"ev":"session_end","session":"a"}`}, nil},
		{"repeated session_start", []string{start("1761566401", "a"), start("1761566402", "a")},
			[]string{`gateway.jsonl:2: session "a" starts again (first session_start at line 1)`}},
		{"repeated (session, turn)", []string{start("1761566401", "a"), turnLine("1761566402", "a", 0), turnLine("1761566403", "a", 1), turnLine("1761566404", "a", 0)},
			[]string{`gateway.jsonl:4: session "a" turn 0 is repeated (first at line 2)`}},
		{"same turn number in another session is fine", []string{start("1761566401", "a"), start("1761566401", "b"), turnLine("1761566402", "a", 0), turnLine("1761566402", "b", 0)}, nil},
		{"turn before session_start", []string{turnLine("1761566402", "a", 0), start("1761566403", "a")},
			[]string{`gateway.jsonl:1: turn for session "a", which has no session_start before this line`}},
		{"park and resume of an unknown session", []string{`{"ts":1761566403,"ev":"park","session":"z","turn":1}`, `{"ts":1761566404,"ev":"resume","session":"z","turn":1}`},
			[]string{`gateway.jsonl:1: park for session "z", which has no session_start before this line`,
				`gateway.jsonl:2: resume for session "z", which has no session_start before this line`}},
		{"session_end of an unknown session", []string{`{"ts":1761566406,"ev":"session_end","session":"z"}`},
			[]string{`gateway.jsonl:1: session_end for session "z", which has no session_start before this line`}},
		{"repeated session_end", []string{start("1761566401", "a"), `{"ts":1761566406,"ev":"session_end","session":"a"}`, `{"ts":1761566407,"ev":"session_end","session":"a","status":"aborted"}`},
			[]string{`gateway.jsonl:3: session "a" ends again (first session_end at line 2)`}},
		{"turn after session_end is kept (an aborted in-flight turn)", []string{start("1761566401", "a"),
			`{"ts":1761566406,"ev":"session_end","session":"a","status":"aborted"}`, turnLine("1761566407", "a", 0)}, nil},
		{"events without sessions", []string{`{"ts":1761566403,"ev":"rate","arrival_rate":0.02}`, `{"ts":1761566403,"ev":"control","controller":"aimd"}`,
			`{"ts":1761566403,"ev":"trigger","kind":"flush","phase":"start"}`}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := collect(t, tc.lines...)
			if fmt.Sprint(errs) != fmt.Sprint(tc.want) {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestCollectorRejectLeavesState checks that a rejected record changes
// nothing: the repeated session_start keeps the first origin and time.
func TestCollectorRejectLeavesState(t *testing.T) {
	c, errs := collect(t, start("1761566401", "a"),
		`{"ts":1761566409,"ev":"session_start","session":"a","origin":"burst"}`,
		turnLine("1761566402", "a", 0), turnLine("1761566403", "a", 0))
	if len(errs) != 2 {
		t.Fatalf("errors %q, want 2", errs)
	}
	sessions, turns, _ := c.Tables(300)
	if len(sessions) != 1 || sessions[0].Origin != "base" || sessions[0].ArriveS != 1 || sessions[0].TurnsDone != 1 {
		t.Errorf("sessions %+v", sessions)
	}
	if len(turns) != 1 || turns[0].DoneS != 2 {
		t.Errorf("turns %+v", turns)
	}
}

func TestTables(t *testing.T) {
	c, errs := collect(t,
		`{"ts":1761566405,"ev":"session_start","session":"b","origin":"burst","turns_planned":3}`,
		start("1761566401", "c"),
		start("1761566401", "a"),
		turnLine("1761566410", "b", 1),
		turnLine("1761566410", "a", 0),
		turnLine("1761566409", "b", 0),
		turnLine("1761566420", "c", 0),
		`{"ts":1761566430,"ev":"session_end","session":"a","status":"done","turns_done":7}`,
		`{"ts":1761566431,"ev":"session_end","session":"b","status":"aborted"}`,
		`{"ts":1761566412,"ev":"control","controller":"x"}`,
		`{"ts":1761566411,"ev":"park","session":"b","turn":2}`,
		`{"ts":1761566412,"ev":"resume","session":"b","turn":2}`,
		`{"ts":1761566413,"ev":"heartbeat"}`,
		`{"ts":1761566414,"ev":"retry"}`,
		`{"ts":1761566415,"ev":"heartbeat"}`,
	)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	sessions, turns, events := c.Tables(300)
	var got []string
	for _, s := range sessions {
		got = append(got, fmt.Sprintf("%s %s %s-%s %s done=%d", s.Session, s.Origin, num(s.ArriveS), optNum(s.EndS), s.Status, s.TurnsDone))
	}
	// By (arrive_s, session); c never ends: open, nil end, turns counted;
	// a's session_end gives turns_done; b's has none, so its turns count.
	want := "[a base 1-30 done done=7 c base 1-- open done=1 b burst 5-31 aborted done=2]"
	if fmt.Sprint(got) != want {
		t.Errorf("sessions %v\nwant     %s", got, want)
	}
	got = nil
	for _, tr := range turns {
		got = append(got, fmt.Sprintf("%s/%d@%s %s", tr.Session, tr.Turn, num(tr.DoneS), tr.Origin))
	}
	if want := "[b/0@9 burst a/0@10 base b/1@10 burst c/0@20 base]"; fmt.Sprint(got) != want {
		t.Errorf("turns %v\nwant  %s", got, want)
	}
	got = nil
	for _, e := range events {
		got = append(got, fmt.Sprintf("%s@%s", e.Kind, num(e.TS)))
	}
	// Equal times keep input order: control (line 10) before resume (line 12).
	if want := "[park@11 control@12 resume@12]"; fmt.Sprint(got) != want {
		t.Errorf("events %v, want %s", got, want)
	}
	got = nil
	for _, u := range c.Unknown() {
		got = append(got, u.Warning())
	}
	// Each kind once, at the column of its first ev value, with its count.
	if got, want := fmt.Sprint(got), "[gateway.jsonl:13:23: unknown ev \"heartbeat\": 2 records ignored, the first here gateway.jsonl:14:23: unknown ev \"retry\": 1 record ignored]"; got != want {
		t.Errorf("Unknown %s\nwant    %s", got, want)
	}
}

// TestCollectorAfterEnd checks the rules for records that follow a
// session's end, which the collector answers from its compact record: the
// same messages, lines and origins as while the session is open, in memory
// (exact ids) and streaming (hashed ids).
func TestCollectorAfterEnd(t *testing.T) {
	end := `{"ts":1761566405,"ev":"session_end","session":"a","status":"aborted"}`
	lines := []string{
		`{"ts":1761566401,"ev":"session_start","session":"a","origin":"burst"}`,
		turnLine("1761566402", "a", 0),
		end,
		turnLine("1761566406", "a", 1),  // accepted: in flight at the end
		turnLine("1761566407", "a", 0),  // repeated before the end
		turnLine("1761566408", "a", 1),  // repeated after the end
		turnLine("1761566409", "a", 70), // beyond the inline bits
		turnLine("1761566410", "a", 70),
		`{"ts":1761566411,"ev":"park","session":"a","turn":2}`,
		start("1761566412", "a"),
		end,
		turnLine("1761566413", "b", 0),
	}
	want := []string{
		`gateway.jsonl:5: session "a" turn 0 is repeated (first at line 2)`,
		`gateway.jsonl:6: session "a" turn 1 is repeated (first at line 4)`,
		`gateway.jsonl:8: session "a" turn 70 is repeated (first at line 7)`,
		`gateway.jsonl:10: session "a" starts again (first session_start at line 1)`,
		`gateway.jsonl:11: session "a" ends again (first session_end at line 3)`,
		`gateway.jsonl:12: turn for session "b", which has no session_start before this line`,
	}
	c, errs := collect(t, lines...)
	if fmt.Sprint(errs) != fmt.Sprint(want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(want, "\n"))
	}
	sessions, turns, _ := c.Tables(300)
	// The session_end had no turns_done: the turns after it count too.
	if len(sessions) != 1 || sessions[0].TurnsDone != 3 || sessions[0].Status != "aborted" {
		t.Errorf("sessions %+v, want one aborted with 3 turns done", sessions)
	}
	var got []string
	for _, tr := range turns {
		got = append(got, fmt.Sprintf("%d %s", tr.Turn, tr.Origin))
	}
	if fmt.Sprint(got) != "[0 burst 1 burst 70 burst]" {
		t.Errorf("turns %v", got)
	}

	var streamed []schema.Session
	var nTurns int
	sc := NewStreamingCollector(StreamOptions{
		Turn:    func(schema.Turn) error { nTurns++; return nil },
		Session: func(s schema.Session) error { streamed = append(streamed, s); return nil },
	})
	perrs, other := feed(newTestReader(t, strings.Join(lines, "\n")+"\n", specT0), sc)
	if other != nil {
		t.Fatal(other)
	}
	var serrs []string
	for _, e := range perrs {
		serrs = append(serrs, e.Error())
	}
	for i, at := range []string{"", "", "", "session_start ", "session_end "} {
		// Streaming leaves the first line of a repeat to the caller.
		want[i] = strings.Split(want[i], " (first")[0] + " (first " + at + "at an earlier line)"
	}
	if fmt.Sprint(serrs) != fmt.Sprint(want) {
		t.Errorf("streaming errors:\n%s\nwant:\n%s", strings.Join(serrs, "\n"), strings.Join(want, "\n"))
	}
	if err := sc.Finish(); err != nil {
		t.Fatal(err)
	}
	if nTurns != 3 || len(streamed) != 1 || streamed[0].TurnsDone != 1 {
		t.Fatalf("streamed %d turns, sessions %+v; want 3 and one session with 1 turn before the fix", nTurns, streamed)
	}
	sc.SessionFix()(&streamed[0])
	if streamed[0].TurnsDone != 3 {
		t.Errorf("fixed TurnsDone %d, want 3", streamed[0].TurnsDone)
	}
	if got := sc.Unverified(); len(got) != 1 || got[sc.Key("a")] != "a" {
		t.Errorf("Unverified %v, want a under its key", got)
	}
}

// TestCollectorKeyCollision checks that two ids sharing a hash are never
// confused silently: a second id matched to one ended session, or two
// sessions ending with one key, is ErrKeyCollision; a single wrong match
// is left for the caller to find in Unverified.
func TestCollectorKeyCollision(t *testing.T) {
	run := func(lines ...string) (*Collector, error) {
		c := NewStreamingCollector(StreamOptions{
			Turn:    func(schema.Turn) error { return nil },
			Session: func(schema.Session) error { return nil },
			Key:     func(string) uint64 { return 1 },
		})
		_, err := feed(newTestReader(t, strings.Join(lines, "\n")+"\n", specT0), c)
		return c, err
	}
	endA := `{"ts":1761566403,"ev":"session_end","session":"a"}`
	if _, err := run(start("1761566401", "a"), start("1761566401", "b"), endA,
		`{"ts":1761566403,"ev":"session_end","session":"b"}`); err != ErrKeyCollision {
		t.Errorf("two sessions ending with one key: %v, want ErrKeyCollision", err)
	}
	if _, err := run(start("1761566401", "a"), endA, turnLine("1761566404", "a", 1), turnLine("1761566404", "b", 1)); err != ErrKeyCollision {
		t.Errorf("two ids matched to one session: %v, want ErrKeyCollision", err)
	}
	c, err := run(start("1761566401", "a"), endA, turnLine("1761566404", "b", 1))
	if err != nil || fmt.Sprint(c.Unverified()) != "map[1:b]" {
		t.Errorf("one wrong match: %v, Unverified %v, want map[1:b] (key 1) for the caller to check", err, c.Unverified())
	}
}
