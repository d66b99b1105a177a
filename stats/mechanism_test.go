package stats

import (
	"fmt"
	"math"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

func TestNewMechanism(t *testing.T) {
	nan := math.NaN()
	run := func(v Verdict, dc, n, pre float64) RunSummary {
		return RunSummary{Run: "b", Verdict: v, EndDemandRatio: dc, EndSessions: n, PreSessions: pre, PreDemandRatio: 0.5}
	}
	twin := func(v Verdict, n float64) *RunSummary {
		return &RunSummary{Run: "t", Verdict: v, EndDemandRatio: 0.6, EndSessions: n}
	}
	for _, tc := range []struct {
		name   string
		s      RunSummary
		twin   *RunSummary
		status MechanismStatus
		ref    float64
		from   string
	}{
		{"§4: 4.8× the pool, 142 sessions against a healthy twin's 8", run(VerdictPersistent, 4.8, 142, 10), twin(VerdictNeverDegraded, 8), MechanismPresent, 8, "twin"},
		{"low hit ratio without the mechanism: D/C 0.4, 6 sessions", run(VerdictPersistent, 0.4, 6, 5), twin(VerdictNeverDegraded, 8), MechanismAbsent, 8, "twin"},
		{"beyond the pool, but no more sessions than the twin", run(VerdictPersistent, 1.2, 12, 5), twin(VerdictRecoveredAlone, 8), MechanismAbsent, 8, "twin"},
		{"no twin: against its own pre-trigger level", run(VerdictPersistent, 1.2, 40, 15), nil, MechanismPresent, 15, "pre-trigger"},
		{"exactly twice the reference is a backlog", run(VerdictPartial, 1, 30, 15), nil, MechanismPresent, 15, "pre-trigger"},
		{"a degraded twin is no reference", run(VerdictPersistent, 3, 175, 10), twin(VerdictPersistent, 137), MechanismPresent, 10, "pre-trigger"},
		{"C unknown: D/C unknown", run(VerdictPersistent, nan, 40, 10), nil, MechanismUnknown, 10, "pre-trigger"},
		{"C unknown, and no backlog: absent all the same", run(VerdictPersistent, nan, 12, 10), nil, MechanismAbsent, 10, "pre-trigger"},
		{"no reference", run(VerdictPersistent, 2, 40, nan), nil, MechanismUnknown, nan, ""},
		{"ended healthy: nothing to check", run(VerdictNeverDegraded, 0.5, 8, 8), nil, "", 8, "pre-trigger"},
		{"cut short: its end is no end", func() RunSummary { s := run(VerdictPersistent, 0, 0, 8); s.CutShort = true; return s }(), nil, MechanismUnknown, 8, "pre-trigger"},
	} {
		m := NewMechanism(tc.s, tc.twin)
		if m.Status != tc.status || !near(m.Reference, tc.ref, 0) || m.ReferenceFrom != tc.from {
			t.Errorf("%s: status %q reference %v (%s); want %q %v (%s)", tc.name, m.Status, m.Reference, m.ReferenceFrom, tc.status, tc.ref, tc.from)
		}
	}
}

// TestPreTrigger: the run's own level before a trigger at 900 s is the
// 5-minute window ending at 600 or 900 with the fewer sessions, the
// warm-up [0, 300) left out: 4 sessions in the system throughout [300,
// 600) and 4 + 6 = 10 in [600, 900); so 4, and D/C over [300, 600).
func TestPreTrigger(t *testing.T) {
	rd := &schema.RunData{Run: schema.Run{Run: "p", DurationS: 1800, PrefixCaching: true, KVPoolTokens: new(int64(10000)), TriggerStartS: new(float64(900))}}
	add := func(id string, arrive float64) {
		rd.Sessions = append(rd.Sessions, schema.Session{Session: id, ArriveS: arrive, Status: "open", ContextTokens: new(int64(1000))})
	}
	for i := range 4 {
		add(fmt.Sprintf("a%d", i), 0) // in the system from 0: 1000 tokens each
	}
	for i := range 6 {
		add(fmt.Sprintf("b%d", i), 600)
	}
	// Turn of a0 at 100 s: 2000 + 300 output tokens from then on.
	rd.Turns = []schema.Turn{{Session: "a0", Turn: 0, DoneS: 100, PromptTokens: 2000, CachedTokens: 0, OutputTokens: 300, Status: "ok"}}
	n, dc := NewRunIndex(rd).preTrigger()
	checkNear(t, "pre sessions", n, 4, 1e-12)
	// [300, 600): a0 holds 2300 tokens, a1..a3 their context, 1000 each
	// (no output_tokens in the manifest, no turn of their own).
	checkNear(t, "pre D/C", dc, (2300+3*1000)/10000.0, 1e-12)
	rd.Run.TriggerStartS = new(float64(200))
	if n, _ := NewRunIndex(rd).preTrigger(); !math.IsNaN(n) {
		t.Errorf("trigger at 200 s: pre sessions %v, want NaN", n)
	}
}
