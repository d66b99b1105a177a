package stats

import (
	"math"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// demandRun is the hand-built run of TestPopulationAndDemand.
func demandRun() *schema.RunData {
	rd := &schema.RunData{Run: schema.Run{Run: "d", DurationS: 200, OutputTokens: new(int64(300)), KVPoolTokens: new(int64(100000))}}
	rd.Sessions = []schema.Session{
		{Session: "s1", ArriveS: 0, EndS: new(float64(100)), Status: "done", ContextTokens: new(int64(6144))},
		{Session: "s2", ArriveS: 50, Status: "open"},
		{Session: "s3", ArriveS: 150, EndS: new(float64(160)), Status: "aborted"},
	}
	t0 := turn("s1", 0, 30, 6144, 2048)
	t0.SentS = new(float64(20))
	t1 := turn("s1", 1, 60, 7468, 6144)
	t1.SentS = new(float64(50))
	t2 := turn("s2", 0, 80, 5000, 0)
	t2.OutputTokens = 200
	t2.SentS = new(float64(55))
	late := turn("s1", 2, 150, 8792, 0) // after s1 left: ignored by D
	rd.Turns = []schema.Turn{t0, t1, t2, late}
	return rd
}

func TestPopulationAndDemand(t *testing.T) {
	for _, rd := range []*schema.RunData{demandRun(), shuffled(demandRun(), 1), shuffled(demandRun(), 2)} {
		x := NewRunIndex(rd)
		// N(t): s1 on [0,100), s2 on [50,200) (open: to the run's end), s3 on [150,160).
		for _, c := range []struct{ t, n float64 }{{0, 1}, {49.9, 1}, {50, 2}, {99.9, 2}, {100, 1}, {155, 2}, {160, 1}, {200, 0}} {
			checkNear(t, "N", x.Population.At(c.t), c.n, 0)
		}
		checkNear(t, "mean N [0,200)", x.SessionsInSystem(Window{0, 200}), 1.3, 1e-12)
		checkNear(t, "mean N [40,60)", x.SessionsInSystem(Window{40, 60}), 1.5, 1e-12)
		// D(t) by hand: see the comment in the test's doc.
		for _, c := range []struct{ t, d float64 }{{0, 6444}, {50, 11744}, {60, 13068}, {80, 12968}, {100, 5200}, {155, 5200}, {199, 5200}} {
			checkNear(t, "D", x.Demand.At(c.t), c.d, 0)
		}
		checkNear(t, "mean D [0,100)", x.Demand.Mean(Window{0, 100}), 9603.6, 1e-9)
		checkNear(t, "mean D [0,200)", x.Demand.Mean(Window{0, 200}), 7401.8, 1e-9)
		checkNear(t, "D/C [0,100)", x.DemandRatio(Window{0, 100}), 0.096036, 1e-12)
		if x.DemandUnknownSessions != 1 {
			t.Errorf("DemandUnknownSessions = %d, want 1 (s3)", x.DemandUnknownSessions)
		}
		// In flight: [20,30):1, [50,55):1, [55,60):2, [60,80):1.
		checkNear(t, "in-flight min", x.InFlight.Min(Window{50, 80}), 1, 0)
		checkNear(t, "in-flight max", x.InFlight.Max(Window{50, 80}), 2, 0)
		checkNear(t, "in-flight mean", x.InFlight.Mean(Window{50, 80}), 35.0/30, 1e-12)
		checkNear(t, "in-flight min with idle gap", x.InFlight.Min(Window{25, 55}), 0, 0)
	}
}

func TestDemandWithoutPool(t *testing.T) {
	rd := demandRun()
	rd.Run.KVPoolTokens = nil
	x := NewRunIndex(rd)
	if !math.IsNaN(x.DemandRatio(Window{0, 100})) {
		t.Error("D/C without C should be NaN")
	}
	checkNear(t, "D still computed", x.Demand.Mean(Window{0, 100}), 9603.6, 1e-9)
	s := x.Summarize()
	if !math.IsNaN(s.NStar) || !math.IsNaN(s.PeakDemandRatio) || len(s.Warnings) == 0 {
		t.Errorf("summary without C: N* %v peak %v warnings %v", s.NStar, s.PeakDemandRatio, s.Warnings)
	}
}

func TestDemandInitialWithoutWorkloadOutput(t *testing.T) {
	// Without the workload's output_tokens, a session counts its first
	// turn's output: s2 is 5000 + 200 from its arrival.
	rd := demandRun()
	rd.Run.OutputTokens = nil
	x := NewRunIndex(rd)
	checkNear(t, "D(50)", x.Demand.At(50), 6444+5200, 0)
}

func TestRunEnd(t *testing.T) {
	rd := demandRun()
	checkNear(t, "planned", RunEnd(rd), 200, 0)
	rd.Run.DurationS = 0
	checkNear(t, "observed", RunEnd(rd), 160, 0) // s3's end_s; turn at 150
}

func TestEngineWindows(t *testing.T) {
	rd := &schema.RunData{Run: schema.Run{DurationS: 120}}
	rd.Engine = []schema.EngineSample{
		{TS: 10, Source: "metrics", Kind: "scrape", EngineIndex: 0, Running: new(float64(10)), Waiting: new(float64(2)), KVUsage: new(float64(0.8)), PrefixQueries: new(float64(100)), PrefixHits: new(float64(50)), Preemptions: new(float64(1))},
		{TS: 40, Source: "metrics", Kind: "scrape", EngineIndex: 0, Running: new(float64(20)), Waiting: new(float64(4)), KVUsage: new(float64(1.0)), PrefixQueries: new(float64(100)), PrefixHits: new(float64(30)), Preemptions: new(float64(2))},
		{TS: 45, Source: "log", Kind: "stats", EngineIndex: 0, Preemptions: new(float64(7))}, // not mixed with metrics
		{TS: 70, Source: "metrics", Kind: "scrape", EngineIndex: 0, Running: new(float64(6))},
	}
	for _, r := range []*schema.RunData{rd, shuffled(rd, 9)} {
		ew := NewRunIndex(r).EngineWindows([]Window{{0, 60}, {60, 120}})
		w := ew[0]
		checkNear(t, "running", w.Running, 15, 0)
		checkNear(t, "min running", w.MinRunning, 10, 0)
		checkNear(t, "waiting", w.Waiting, 3, 0)
		checkNear(t, "kv", w.KVUsage, 0.9, 1e-12)
		checkNear(t, "hit", w.HitRatio, 0.4, 1e-12)
		checkNear(t, "preemptions", w.Preemptions, 3, 0)
		if w.HitSource != EngineHitCounters {
			t.Errorf("source %q", w.HitSource)
		}
		if !math.IsNaN(ew[1].HitRatio) || !math.IsNaN(ew[1].Waiting) || ew[1].Running != 6 {
			t.Errorf("second window %+v", ew[1])
		}
	}
}

func TestEngineWindowsPrefillAndAggregate(t *testing.T) {
	rd := &schema.RunData{Run: schema.Run{DurationS: 60}}
	rd.Engine = []schema.EngineSample{
		{TS: 1, Source: "log", Kind: "prefill", EngineIndex: 0, CachedTokens: new(int64(700)), NewTokens: new(int64(300)), Running: new(float64(100))},
		{TS: 2, Source: "log", Kind: "prefill", EngineIndex: -1, CachedTokens: new(int64(100)), NewTokens: new(int64(900)), Running: new(float64(8))},
		// Another source without aggregated samples still counts.
		{TS: 3, Source: "metrics", Kind: "scrape", EngineIndex: 0, Waiting: new(float64(5))},
	}
	w := NewRunIndex(rd).EngineWindows([]Window{{0, 60}})[0]
	// Only the aggregated (-1) sample counts once a run has one.
	checkNear(t, "hit", w.HitRatio, 0.1, 1e-12)
	checkNear(t, "running", w.Running, 8, 0)
	checkNear(t, "waiting", w.Waiting, 5, 0)
	if w.HitSource != EngineHitPrefill || !math.IsNaN(w.Preemptions) {
		t.Errorf("%+v", w)
	}
}
