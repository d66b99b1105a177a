package replay

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
)

// session adds a session arriving at arrive with turns of the given
// prompts, each of 100 output tokens, issued gap seconds after the previous
// one completed and taking 2 s; ended says whether it has a session_end.
type sessionSpec struct {
	name, origin string
	arrive, gap  float64
	prompts      []int64
	cached       []int64
	ended        bool
	planned      *int64
	noReady      bool // sent_s only
	noTimes      bool // neither ready_s nor sent_s
}

func fakeRunData(specs ...sessionSpec) *schema.RunData {
	rd := &schema.RunData{Run: schema.Run{Run: "obs", Experiment: "e", Design: schema.DesignObserve, Arm: "none",
		DurationS: 600, EngineName: schema.EngineVLLM, PrefixCaching: true, KVPoolTokens: new(int64(400000)), KVPoolSource: "manifest"}}
	for _, sp := range specs {
		s := schema.Session{Session: sp.name, Origin: sp.origin, ArriveS: sp.arrive, Status: schema.SessionOpen, TurnsPlanned: sp.planned}
		t := sp.arrive
		for k, p := range sp.prompts {
			ready := t
			if k > 0 {
				ready = t + sp.gap
			}
			tr := schema.Turn{Session: sp.name, Turn: int32(k), Origin: sp.origin, PromptTokens: p, OutputTokens: 100,
				FirstTokenS: new(ready + 0.5), DoneS: ready + 2, Status: schema.TurnOK}
			if k < len(sp.cached) {
				tr.CachedTokens = sp.cached[k]
			}
			if !sp.noTimes {
				tr.SentS = new(ready)
				if !sp.noReady {
					tr.ReadyS = new(ready)
				}
			}
			rd.Turns = append(rd.Turns, tr)
			t = ready + 2
		}
		s.TurnsDone = int64(len(sp.prompts))
		if sp.ended {
			s.EndS, s.Status = new(t), schema.SessionDone
		}
		rd.Sessions = append(rd.Sessions, s)
	}
	return rd
}

// TestWorkloadFromTurns checks what the workload takes from each turn: its
// prompt and output, the think time from ready_s, else sent_s, else the
// median of the others, and the shared prefix from the first turns' hits.
func TestWorkloadFromTurns(t *testing.T) {
	rd := fakeRunData(
		sessionSpec{name: "a", origin: "base", arrive: 0, gap: 3, prompts: []int64{1000, 1500, 2000, 2500}, cached: []int64{0, 992}, ended: true},
		sessionSpec{name: "b", origin: "base", arrive: 5, gap: 4, prompts: []int64{1200, 1700, 2200}, cached: []int64{512}, ended: true, noReady: true},
		sessionSpec{name: "c", origin: "burst", arrive: 9, gap: 9, prompts: []int64{900, 1300, 1700, 2100}, cached: []int64{512}, ended: true, noTimes: true},
	)
	w, err := extractWorkload(rd, 600)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Sessions) != 3 || w.Turns != 11 {
		t.Fatalf("%d sessions, %d turns; want 3 and 11", len(w.Sessions), w.Turns)
	}
	a, b, c := w.Sessions[0], w.Sessions[1], w.Sessions[2]
	if a.Turns[1].GapS != 3 || a.Turns[0].GapS != 0 || a.Turns[3].PromptTokens != 2500 || a.Turns[2].OutputTokens != 100 {
		t.Errorf("session a: %+v", a.Turns)
	}
	if b.Turns[1].GapS != 4 {
		t.Errorf("session b's gap from sent_s: %g, want 4", b.Turns[1].GapS)
	}
	// Known gaps: a's three 3 s and b's two 4 s; their median fills c's.
	for k := 1; k < len(c.Turns); k++ {
		if c.Turns[k].GapS != 3 {
			t.Errorf("session c turn %d: filled gap %g, want the median 3", k, c.Turns[k].GapS)
		}
	}
	if w.Gaps[GapFromReady] != 3 || w.Gaps[GapFromSent] != 2 || w.Gaps[GapFromFilled] != 3 || len(w.Warnings) == 0 {
		t.Errorf("gap sources %v, warnings %q", w.Gaps, w.Warnings)
	}
	if w.SystemTokens != 512 || w.SystemFrom != "first turns" {
		t.Errorf("shared prefix %d from %s, want 512 from the first turns' hits", w.SystemTokens, w.SystemFrom)
	}
	if c.Origin != "burst" || w.Origins["burst"] != 1 || w.MaxContext != 2600 {
		t.Errorf("origin %q, origins %v, max context %d", c.Origin, w.Origins, w.MaxContext)
	}
	rd.Run.SystemTokens = new(int64(1024))
	if w, _ := extractWorkload(rd, 600); w.SystemTokens != 1024 || w.SystemFrom != "manifest" {
		t.Errorf("shared prefix %d from %s, want the manifest's 1024", w.SystemTokens, w.SystemFrom)
	}
}

// TestWorkloadExtendsOpenSessions checks that a session still open at the
// end gets the turns it had left: up to turns_planned, or as many as a
// completed session that got further had, growing as it grew.
func TestWorkloadExtendsOpenSessions(t *testing.T) {
	rd := fakeRunData(
		sessionSpec{name: "a", origin: "base", arrive: 0, gap: 3, prompts: []int64{1000, 1500, 2000, 2500, 3000, 3500}, ended: true},
		sessionSpec{name: "b", origin: "base", arrive: 5, gap: 4, prompts: []int64{1000, 1300, 1600}, planned: new(int64(5))},
		sessionSpec{name: "c", origin: "base", arrive: 9, gap: 9, prompts: []int64{1000, 1200}},
		sessionSpec{name: "d", origin: "base", arrive: 9, gap: 9, prompts: []int64{1000, 1100, 1200, 1300, 1400, 1500, 1600}, planned: new(int64(3))},
	)
	w, err := extractWorkload(rd, 600)
	if err != nil {
		t.Fatal(err)
	}
	b, c := w.Sessions[1], w.Sessions[2]
	if len(b.Turns) != 5 || b.Turns[3].PromptTokens != 1900 || b.Turns[4].PromptTokens != 2200 {
		t.Errorf("b extended to %d turns %+v, want 5 growing by 300", len(b.Turns), b.Turns)
	}
	// c has 2 turns; the one ended session that got further had 6.
	if len(c.Turns) != 6 || c.Turns[5].PromptTokens != 2000 || !(c.Turns[3].GapS > 0) {
		t.Errorf("c extended to %d turns %+v, want 6 growing by 200 with gaps", len(c.Turns), c.Turns)
	}
	if n := len(w.Sessions[3].Turns); n != 7 {
		t.Errorf("d, past its turns_planned, has %d turns, want its 7 observed", n)
	}
	if w.Extended != 2 || w.ExtendedTurns != 6 {
		t.Errorf("extended %d sessions by %d turns, want 2 by 6", w.Extended, w.ExtendedTurns)
	}
}

// TestTooFewTurns checks the clear error of a run too small to fit.
func TestTooFewTurns(t *testing.T) {
	rd := fakeRunData(sessionSpec{name: "a", origin: "base", prompts: []int64{1000, 1500, 2000}, ended: true},
		sessionSpec{name: "b", origin: "base", arrive: 3, prompts: []int64{1000, 1500}, ended: true})
	_, err := Fit(rd, nil)
	if !errors.Is(err, ErrTooFewTurns) {
		t.Fatalf("error %v, want ErrTooFewTurns", err)
	}
	if want := "run obs has 5 completed turns in 2 sessions"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q lacks %q", err, want)
	}
}

// TestArrivalsAndControl checks the arrival process and the control read
// from the manifest, and the observed rate without one.
func TestArrivalsAndControl(t *testing.T) {
	var specs []sessionSpec
	for i := range 12 {
		specs = append(specs, sessionSpec{name: string(rune('a' + i)), origin: "base", arrive: float64(50 * i), gap: 1, prompts: []int64{1000, 1100}, ended: true})
	}
	specs = append(specs, sessionSpec{name: "x1", origin: "burst", arrive: 120, prompts: []int64{1000}, ended: true},
		sessionSpec{name: "x2", origin: "burst", arrive: 150, prompts: []int64{1000}, ended: true})
	rd := fakeRunData(specs...)
	m := mustFit(t, rd)
	a := m.Arrivals
	if a.BaseFrom != "observed" || math.Abs(a.BaseRate-12.0/600) > 1e-12 {
		t.Errorf("base rate %g from %s, want 12/600 observed", a.BaseRate, a.BaseFrom)
	}
	if a.Burst == nil || a.Burst.StartS != 120 || a.BurstSessions != 2 || len(m.Warnings) == 0 {
		t.Errorf("burst %+v (%d sessions), warnings %q: want one placed over the burst sessions, with a warning", a.Burst, a.BurstSessions, m.Warnings)
	}
	r := &rd.Run
	r.ArrivalRate = new(float64(0.025))
	r.TriggerKind, r.TriggerStartS, r.TriggerEndS, r.TriggerExtraRate = schema.TriggerBurst, new(float64(100)), new(float64(200)), new(float64(0.05))
	r.ControlKind, r.ControlStartS, r.ControlParams = schema.ControlSessionCap, new(float64(300)), `{"k":10,"k_hi":12}`
	m = mustFit(t, rd)
	a = m.Arrivals
	if a.BaseRate != 0.025 || a.BaseFrom != "manifest" || *a.Burst != (sim.Burst{Rate: 0.05, StartS: 100, EndS: 200}) || a.BurstFrom != "manifest" {
		t.Errorf("arrivals %+v burst %+v", a, a.Burst)
	}
	if c := m.Arm.Control; c.Kind != schema.ControlSessionCap || c.StartS != 300 || c.K != 10 || c.KHi != 12 {
		t.Errorf("control %+v, want session-cap from 300 s, k 10, k_hi 12", c)
	}
	if m.Arm.SlotS != [2]float64{100, 200} {
		t.Errorf("slot %v", m.Arm.SlotS)
	}
}

// TestWorkloadWithoutSessionRecords checks a run whose gateway records no
// sessions, only turns: each session arrives with its first turn.
func TestWorkloadWithoutSessionRecords(t *testing.T) {
	rd := fakeRunData(
		sessionSpec{name: "a", origin: "base", arrive: 0, gap: 3, prompts: []int64{1000, 1500, 2000, 2500}, ended: true},
		sessionSpec{name: "b", origin: "base", arrive: 5, gap: 4, prompts: []int64{1200, 1700, 2200}, ended: true},
		sessionSpec{name: "c", origin: "base", arrive: 9, gap: 9, prompts: []int64{900, 1300, 1700, 2100}, ended: true, noReady: true},
	)
	rd.Sessions = nil
	w, err := extractWorkload(rd, 600)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Sessions) != 3 || w.Sessions[2].Name != "c" || w.Sessions[2].ArriveS != 9 || len(w.Sessions[1].Turns) != 3 || w.Extended != 0 {
		t.Errorf("sessions %+v", w.Sessions)
	}
}

// TestWorkloadKeepsSessionsThatEnded checks that the workload extends only
// the sessions without an end: one that ended aborted at the run's end
// (a gateway's session_end) is replayed with its own turns. A load
// generator's session that its stop left in the system comes from ingest
// open, without an end (loadgen.Collector), and is extended as any open
// session is.
func TestWorkloadKeepsSessionsThatEnded(t *testing.T) {
	rd := fakeRunData(
		sessionSpec{name: "a", origin: "base", arrive: 0, gap: 3, prompts: []int64{1000, 1500, 2000, 2500, 3000, 3500}, ended: true},
		sessionSpec{name: "b", origin: "base", arrive: 500, gap: 4, prompts: []int64{1000, 1300, 1600}, ended: true},
		sessionSpec{name: "c", origin: "base", arrive: 550, gap: 4, prompts: []int64{1000, 1300}},
	)
	rd.Sessions[1].EndS, rd.Sessions[1].Status = new(600.2), schema.SessionAborted
	w, err := extractWorkload(rd, 600)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range w.Sessions {
		switch {
		case s.Name == "b" && len(s.Turns) != 3:
			t.Errorf("session b, ended aborted at the end, replays %d turns, want its 3", len(s.Turns))
		case s.Name == "c" && len(s.Turns) != 6:
			t.Errorf("session c, open at the end, replays %d turns, want it extended to the 6 of the session that got further", len(s.Turns))
		}
	}
}
