package stats

import (
	"math"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// usersRun: six sessions arriving in [1200, 2400), run end 3600.
func usersRun() *schema.RunData {
	rd := &schema.RunData{Run: schema.Run{DurationS: 3600}}
	add := func(id string, arrive float64, end *float64, status string) {
		rd.Sessions = append(rd.Sessions, schema.Session{Session: id, ArriveS: arrive, EndS: end, Status: status})
	}
	add("a", 1200, new(float64(1800)), "done")    // 600 s
	add("b", 1300, new(float64(2500)), "done")    // 1200 s
	add("c", 1400, new(float64(1700)), "done")    // 300 s
	add("d", 1500, new(float64(2100)), "aborted") // not done
	add("e", 2000, nil, "open")                   // unfinished
	add("f", 2399, new(float64(3299)), "done")    // 900 s
	add("g", 2400, new(float64(2500)), "done")    // next cohort
	add("h", 100, new(float64(200)), "done")      // earlier cohort
	t := func(s string, ready, sent *float64) schema.Turn {
		tt := turn(s, 0, 0, 100, 0)
		tt.ReadyS, tt.SentS = ready, sent
		if sent != nil {
			tt.DoneS = *sent + 1
		}
		return tt
	}
	rd.Turns = []schema.Turn{
		t("a", new(float64(1200)), new(float64(1230))), // 30
		t("b", nil, new(float64(1360))),                // ready missing: from arrival, 60
		t("c", new(float64(1400)), new(float64(1400))), // 0
		t("d", new(float64(1500)), nil),                // never sent: censored at 3600 → 2100
		// e: no turn recorded: censored → 1600
		t("f", new(float64(2399)), new(float64(2409))), // 10
	}
	return rd
}

func TestCohortCompletion(t *testing.T) {
	for _, rd := range []*schema.RunData{usersRun(), shuffled(usersRun(), 5)} {
		x := NewRunIndex(rd)
		p := x.CohortCompletion(Window{1200, 2400})
		if p.K != 4 || p.N != 6 || !near(p.Fraction, 4.0/6, 1e-15) {
			t.Errorf("%+v", p)
		}
		empty := x.CohortCompletion(Window{3000, 3600})
		if empty.N != 0 || !math.IsNaN(empty.Fraction) {
			t.Errorf("empty cohort %+v", empty)
		}
		// A session finishing after the run's end is not done by the end.
		rd2 := usersRun()
		rd2.Run.DurationS = 3000
		if got := NewRunIndex(rd2).CohortCompletion(Window{1200, 2400}); got.K != 3 {
			t.Errorf("run end 3000: %+v", got)
		}
	}
}

func TestSessionLatency(t *testing.T) {
	ls := NewRunIndex(usersRun()).SessionLatency(Window{1200, 2400})
	// Finished latencies 300, 600, 900, 1200: median 750; p90 at h = 2.7:
	// 900 + 0.7·300 = 1110.
	if ls.Sessions != 6 || ls.Finished != 4 || ls.Unfinished != 2 {
		t.Errorf("%+v", ls)
	}
	checkNear(t, "median", ls.MedianS, 750, 1e-9)
	checkNear(t, "p90", ls.P90S, 1110, 1e-9)
	none := NewRunIndex(usersRun()).SessionLatency(Window{3000, 3600})
	if !math.IsNaN(none.MedianS) {
		t.Errorf("no sessions: %+v", none)
	}
}

func TestFirstTurnWait(t *testing.T) {
	ws := NewRunIndex(usersRun()).FirstTurnWait(Window{1200, 2400})
	// Waits 30, 60, 0, 2100 (censored), 1600 (censored), 10 → sorted
	// 0, 10, 30, 60, 1600, 2100: median 45, p90 at h = 4.5: 1850.
	if ws.Sessions != 6 || ws.Censored != 2 {
		t.Errorf("%+v", ws)
	}
	checkNear(t, "median", ws.MedianS, 45, 1e-9)
	checkNear(t, "p90", ws.P90S, 1850, 1e-9)
}

func TestQuantile(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	checkNear(t, "median type 7", Quantile(x, 0.5), 2.5, 0)
	checkNear(t, "q.75 type 7", Quantile(x, 0.75), 3.25, 0)
	checkNear(t, "q0", Quantile(x, 0), 1, 0)
	checkNear(t, "q1", Quantile(x, 1), 4, 0)
	if !math.IsNaN(Quantile(nil, 0.5)) || !math.IsNaN(Quantile(x, 1.5)) {
		t.Error("want NaN")
	}
}
