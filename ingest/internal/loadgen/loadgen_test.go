package loadgen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

func f(x float64) *float64 { return &x }

func turn(session string, n int32, ready, sent *float64, done float64, status string) *Turn {
	return &Turn{Pos: textpos.Pos{File: "x.jsonl", Line: int(n) + 1}, Row: schema.Turn{Session: session, Turn: n, ReadyS: ready, SentS: sent, DoneS: done, Status: status}}
}

// TestDerivedSessions checks the sessions derived from turns given out of
// order: start at the first turn's ready time (else sent, else done), end
// at the last completion, status from the turn that completed last.
func TestDerivedSessions(t *testing.T) {
	c := New(nil)
	for _, tr := range []*Turn{
		turn("a", 1, f(10), f(11), 20, "ok"),
		turn("a", 0, f(2), f(3), 9, "ok"),
		turn("b", 0, nil, f(5), 8, "ok"),
		turn("b", 1, nil, f(9), 30, "error"),
		turn("c", 0, nil, nil, 7, "aborted"),
		turn("a", 2, f(21), f(22), 25, "ok"),
	} {
		if err := c.Add(tr); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	c.Finish(func(s schema.Session) error {
		got = append(got, fmt.Sprintf("%s %g %g %s %d %s", s.Session, s.ArriveS, *s.EndS, s.Status, s.TurnsDone, s.Origin))
		return nil
	})
	want := []string{"a 2 25 done 3 base", "b 5 30 aborted 2 base", "c 7 7 aborted 1 base"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("sessions\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c.N != 6 || len(c.Turns()) != 6 {
		t.Errorf("%d turns", c.N)
	}
	for _, tr := range c.Turns() {
		if tr.Origin != schema.OriginBase {
			t.Errorf("origin %q", tr.Origin)
		}
	}
}

func TestRepeatedTurnNamesTheFirst(t *testing.T) {
	c := New(nil)
	a := turn("s", 3, nil, f(1), 2, "ok")
	a.Pos.Line, a.Column = 4, 9
	b := turn("s", 3, nil, f(5), 6, "ok")
	b.Pos.Line, b.Column, b.Raw = 7, 2, []byte("raw")
	if err := c.Add(a); err != nil {
		t.Fatal(err)
	}
	err := c.Add(b)
	if err == nil || err.Error() != `x.jsonl:7:2: session "s" turn 3 is repeated (first at x.jsonl:4:9)` {
		t.Errorf("%v", err)
	}
	if c.N != 1 {
		t.Errorf("the repeat was counted")
	}
}

// TestOrdinalTurns checks that turns without numbers are numbered by the
// order they were sent, and that a session may not mix the two.
func TestOrdinalTurns(t *testing.T) {
	var sunk []string
	c := New(func(t schema.Turn) error {
		sunk = append(sunk, fmt.Sprintf("%s/%d@%g", t.Session, t.Turn, *t.SentS))
		return nil
	})
	for _, sent := range []float64{30, 10, 20} {
		tr := turn("o", 0, nil, f(sent), sent+1, "ok")
		tr.Ordinal = true
		if err := c.Add(tr); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Add(turn("o", 5, nil, f(40), 41, "ok")); err == nil || !strings.Contains(err.Error(), "with and without a turn number") {
		t.Errorf("mixed: %v", err)
	}
	var sessions []schema.Session
	c.Finish(func(s schema.Session) error { sessions = append(sessions, s); return nil })
	if got := strings.Join(sunk, " "); got != "o/0@10 o/1@20 o/2@30" {
		t.Errorf("turns %s", got)
	}
	if len(sessions) != 1 || sessions[0].ArriveS != 10 || *sessions[0].EndS != 31 || sessions[0].TurnsDone != 3 {
		t.Errorf("session %+v", sessions)
	}
}

func TestCachedCount(t *testing.T) {
	c := New(nil)
	a := turn("s", 0, nil, nil, 1, "ok")
	a.CachedReported = true
	c.Add(a)
	c.Add(turn("s", 1, nil, nil, 2, "ok"))
	if c.N != 2 || c.Cached != 1 {
		t.Errorf("N %d Cached %d", c.N, c.Cached)
	}
}

// TestSessionsOpenAtTheEnd checks the sessions still in the system when
// the tool stopped: one whose last turn the tool cancelled at its stop
// (aborted within CutMarginS of the export's last completion, or later)
// and one whose reader says the tool would have sent it another turn are
// open, without an end; a session aborted mid-run, or whose next turn was
// not due, ended.
func TestSessionsOpenAtTheEnd(t *testing.T) {
	c := New(nil)
	more := turn("more", 1, nil, f(90), 95, "ok")
	more.Continues = true
	for _, tr := range []*Turn{
		turn("cut", 0, nil, f(10), 20, "ok"),
		turn("cut", 1, nil, f(80), 98, "aborted"), // cancelled at the stop
		turn("mid", 0, nil, f(10), 40, "aborted"), // cancelled mid-run
		turn("more", 0, nil, f(10), 30, "ok"),
		more,
		turn("done", 0, nil, f(50), 96, "ok"),
		turn("last", 0, nil, f(60), 100, "ok"),
	} {
		if err := c.Add(tr); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	c.Finish(func(s schema.Session) error {
		end := "null"
		if s.EndS != nil {
			end = fmt.Sprint(*s.EndS)
		}
		got = append(got, fmt.Sprintf("%s %s %s %d", s.Session, end, s.Status, s.TurnsDone))
		return nil
	})
	want := []string{"cut null open 2", "mid 40 aborted 1", "more null open 2", "done 96 done 1", "last 100 done 1"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("sessions\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPlannedTurns checks a session whose tool planned its turns (AIPerf's
// inputs.json): it records them as turns_planned, and one that did fewer
// by the end of the export had turns left, so it was in the system at the
// end: open. One that did them all ended.
func TestPlannedTurns(t *testing.T) {
	c := New(nil)
	planned := func(tr *Turn, n int64) *Turn { tr.Planned = n; return tr }
	for _, tr := range []*Turn{
		planned(turn("all", 0, nil, f(1), 5, "ok"), 2),
		planned(turn("all", 1, nil, f(10), 20, "ok"), 2),
		planned(turn("left", 0, nil, f(2), 30, "ok"), 3),
		planned(turn("left", 1, nil, f(40), 50, "error"), 3),
		turn("unknown", 0, nil, f(3), 8, "ok"),
	} {
		if err := c.Add(tr); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	c.Finish(func(s schema.Session) error {
		end, plan := "null", "null"
		if s.EndS != nil {
			end = fmt.Sprint(*s.EndS)
		}
		if s.TurnsPlanned != nil {
			plan = fmt.Sprint(*s.TurnsPlanned)
		}
		got = append(got, fmt.Sprintf("%s %s %s %d/%s", s.Session, end, s.Status, s.TurnsDone, plan))
		return nil
	})
	want := []string{"all 20 done 2/2", "left null open 2/3", "unknown 8 done 1/null"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("sessions\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
