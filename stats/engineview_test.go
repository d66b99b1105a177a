package stats

import (
	"math"
	"strconv"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// engineRun is a 20-minute run with one gateway turn per 10 s (hit 0.9
// throughout) and engine samples every 60 s at t = 30, 90, ...: counters
// of 1000 queries with hits[k] hit tokens in sample k when counters is
// true, else a printed hit rate of logged[k]; KV usage 0.1·(k+1) capped at
// 0.95 and preemptions k%3 in the log.
func engineRun(counters bool, hits, logged []float64) *schema.RunData {
	rd := hitRun(1200, 0, func(float64) float64 { return 0.9 })
	for k := range 20 {
		e := schema.EngineSample{TS: 30 + 60*float64(k), Source: schema.SourceLog, Kind: schema.LineStats, Line: int64(k + 1),
			KVUsage: new(math.Min(0.1*float64(k+1), 0.95)), Preemptions: new(float64(k % 3))}
		if counters {
			e.Source, e.Kind = schema.SourceMetrics, schema.LineScrape
			e.PrefixQueries, e.PrefixHits = new(float64(1000)), new(hits[k])
		} else if k < len(logged) {
			e.LoggedHitRate = new(logged[k])
		}
		rd.Engine = append(rd.Engine, e)
	}
	return rd
}

func TestEngineHitRatiosSources(t *testing.T) {
	hits := make([]float64, 20)
	logged := make([]float64, 20)
	for k := range hits {
		hits[k] = 100 * float64(k) // sample k: hit k/10
		logged[k] = 0.05 * float64(k)
	}
	ws := []Window{{0, 300}, {300, 600}, {900, 1200}}
	// Counters: window [0, 300) holds samples 0..4 (t = 30..270):
	// (0+100+200+300+400)/5000 = 0.2; [300, 600): samples 5..9, 0.7;
	// [900, 1200): samples 15..19, 1.7 (hits above queries are the
	// counters' business, not clipped).
	x := NewRunIndex(engineRun(true, hits, nil))
	got, src := x.EngineHitRatios(x.EngineWindows(ws))
	if src != EngineHitCounters {
		t.Errorf("source = %q, want counters", src)
	}
	for i, want := range []float64{0.2, 0.7, 1.7} {
		checkNear(t, "counters hit", got[i], want, 1e-12)
	}
	// Printed rates: the mean of 0.05·k over the window's samples: 0.1,
	// 0.35, 0.85.
	x = NewRunIndex(engineRun(false, nil, logged))
	got, src = x.EngineHitRatios(x.EngineWindows(ws))
	if src != EngineHitLog {
		t.Errorf("source = %q, want log", src)
	}
	for i, want := range []float64{0.1, 0.35, 0.85} {
		checkNear(t, "logged hit", got[i], want, 1e-12)
	}
	// Printed rates only in the first 5 minutes: later windows are
	// missing, the source stays the log.
	x = NewRunIndex(engineRun(false, nil, logged[:5]))
	got, src = x.EngineHitRatios(x.EngineWindows(ws))
	if src != EngineHitLog || !near(got[0], 0.1, 1e-12) || !math.IsNaN(got[1]) || !math.IsNaN(got[2]) {
		t.Errorf("partial log: %v %q, want [0.1 NaN NaN] log", got, src)
	}
	// No engine hit data at all.
	x = NewRunIndex(engineRun(false, nil, nil))
	got, src = x.EngineHitRatios(x.EngineWindows(ws))
	if src != "" || !math.IsNaN(got[0]) {
		t.Errorf("no hit data: %v %q, want NaN and no source", got, src)
	}
}

func TestEngineSummary(t *testing.T) {
	hits := make([]float64, 20)
	for k := range hits {
		hits[k] = 900
		if k >= 10 {
			hits[k] = 200
		}
	}
	x := NewRunIndex(engineRun(true, hits, nil))
	s := x.EngineSummary()
	// The last 10 minutes, [600, 1200), hold samples 10..19: 2000/10000.
	// The whole run: (9000 + 2000)/20000 = 0.55. KV usage peaks at the cap
	// 0.95 (samples 9..19). Preemptions come from the log samples:
	// Σ k%3 over k = 0..19 = 6·(0+1+2) + (0+1) = 19.
	checkNear(t, "end hit", s.EndHit, 0.2, 1e-12)
	checkNear(t, "run hit", s.RunHit, 0.55, 1e-12)
	checkNear(t, "kv peak", s.KVUsagePeak, 0.95, 0)
	checkNear(t, "preemptions", s.Preemptions, 19, 0)
	if s.Samples != 20 || s.HitSource != EngineHitCounters {
		t.Errorf("samples %d source %q, want 20 counters", s.Samples, s.HitSource)
	}
	// Without engine samples everything is missing.
	none := NewRunIndex(hitRun(1200, 0, func(float64) float64 { return 0.9 })).EngineSummary()
	if none.Samples != 0 || none.HitSource != "" || !math.IsNaN(none.EndHit) || !math.IsNaN(none.KVUsagePeak) || !math.IsNaN(none.Preemptions) {
		t.Errorf("no engine data: %+v, want all missing", none)
	}
}

func TestHitAgreement(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name             string
		gateway, engine  []float64
		windows, differ  int
		meanDiff, maxAbs float64
		disagree         bool
	}{
		{"agree", []float64{0.9, 0.9, 0.1, 0.1}, []float64{0.92, 0.85, 0.12, 0.1}, 4, 0, (0.02 - 0.05 + 0.02 + 0) / 4, 0.05, false},
		// 0.15 apart in 3 of 4 windows: flagged.
		{"three of four", []float64{0.5, 0.5, 0.5, 0.5}, []float64{0.65, 0.65, 0.65, 0.5}, 4, 3, 0.45 / 4, 0.15, true},
		// Exactly 0.1 apart is not more than the tolerance (0.6 − 0.5 is
		// 0.09999999999999998 in binary; 0.75 − 0.5 = 0.25 is exact).
		{"tolerance", []float64{0.5, 0.5, 0.5}, []float64{0.6, 0.6, 0.75}, 3, 1, (0.1 + 0.1 + 0.25) / 3, 0.25, false},
		// Two windows differ: too few.
		{"two", []float64{0, 0}, []float64{0.9, 0.9}, 2, 2, 0.9, 0.9, false},
		// 3 of 13 windows differ: under a quarter.
		{"share", make([]float64, 13), append([]float64{0.5, 0.5, 0.5}, make([]float64, 10)...), 13, 3, 1.5 / 13, 0.5, false},
		// NaN on either side leaves the window out.
		{"gaps", []float64{nan, 0, 0, 0, 0}, []float64{0.9, nan, 0.9, 0.9, 0.9}, 3, 3, 0.9, 0.9, true},
		{"none", []float64{nan}, []float64{0.5}, 0, 0, nan, nan, false},
	} {
		a := HitAgreement(tc.gateway, tc.engine)
		if a.Windows != tc.windows || a.Differing != tc.differ || a.Disagree != tc.disagree {
			t.Errorf("%s: %+v, want %d windows, %d differing, disagree %v", tc.name, a, tc.windows, tc.differ, tc.disagree)
		}
		checkNear(t, tc.name+" mean", a.MeanDiff, tc.meanDiff, 1e-12)
		checkNear(t, tc.name+" max", a.MaxAbsDiff, tc.maxAbs, 1e-12)
	}
}

func TestOnsetS(t *testing.T) {
	// Windows aligned to 0: hit 0.9 until 600 s, 0.3 in [600, 900), 0.9
	// again, 0.2 from 1500 s. The onset is the first degraded window,
	// 600 s, wherever the reference time lies.
	rd := hitRun(2400, 0, func(t float64) float64 {
		switch {
		case t >= 600 && t < 900:
			return 0.3
		case t >= 1500:
			return 0.2
		}
		return 0.9
	})
	x := NewRunIndex(rd)
	ws := x.Turns.Windows(AnalysisWindows(rd))
	checkNear(t, "onset", OnsetS(ws), 600, 0)
	rd.Run.TriggerEndS = new(float64(1200))
	if got := NewRunIndex(rd).Regime().FirstDegradedS; got != 1500 {
		t.Errorf("first degraded after the trigger = %v, want 1500 (onset stays 600)", got)
	}
	// Windows without turns are not degraded.
	if got := OnsetS(NewRunIndex(hitRun(600, 0, func(float64) float64 { return math.NaN() })).Turns.Windows([]Window{{0, 300}})); !math.IsNaN(got) {
		t.Errorf("onset without turns = %v, want NaN", got)
	}
}

func TestCacheReported(t *testing.T) {
	for _, tc := range []struct {
		name            string
		hit             float64
		reported, known bool
	}{
		{"hits", 0.9, true, true},
		{"none cached", 0, false, true},
		{"no turns", math.NaN(), false, false},
	} {
		x := NewRunIndex(hitRun(600, 0, func(float64) float64 { return tc.hit }))
		if r, k := x.CacheReported(); r != tc.reported || k != tc.known {
			t.Errorf("%s: reported %v known %v, want %v %v", tc.name, r, k, tc.reported, tc.known)
		}
	}
	// One cached token anywhere is enough.
	rd := hitRun(600, 0, func(float64) float64 { return 0 })
	rd.Turns[30].CachedTokens = 1
	if r, _ := NewRunIndex(rd).CacheReported(); !r {
		t.Error("a single cached token: want reported")
	}
	// The runs table's record wins over the turns.
	for _, rec := range []bool{true, false} {
		rd := hitRun(600, 0, func(float64) float64 { return 0.9 })
		rd.Run.CacheReported = &rec
		if r, k := NewRunIndex(rd).CacheReported(); r != rec || !k {
			t.Errorf("runs.cache_reported %v: reported %v known %v", rec, r, k)
		}
	}
}

func TestCutShort(t *testing.T) {
	for _, tc := range []struct {
		name     string
		duration float64
		lastTurn float64 // turns every 10 s up to here
		want     bool
	}{
		{"complete", 3600, 3595, false},
		{"one window early", 3600, 3305, false}, // 3305 ≥ 3600 − 300
		{"cut", 3600, 2405, true},
		{"no plan", 0, 2405, false},
	} {
		rd := hitRun(3600, 0, func(t float64) float64 {
			if t > tc.lastTurn {
				return math.NaN()
			}
			return 0.9
		})
		rd.Run.DurationS = tc.duration
		x := NewRunIndex(rd)
		if got := x.CutShort(); got != tc.want {
			t.Errorf("%s: cut short %v, want %v (gateway end %v)", tc.name, got, tc.want, x.GatewayEndS())
		}
	}
	if got := NewRunIndex(&schema.RunData{Run: schema.Run{DurationS: 600}}).GatewayEndS(); !math.IsNaN(got) {
		t.Errorf("gateway end without records = %v, want NaN", got)
	}
}

// countersEqualTurns is a 30-minute run whose engine counters equal its
// turns by construction: one turn completes every 7 s (t = 3.5, 10.5,
// 17.5, ...) with a hit ratio that changes from window to window, and a
// metrics scrape every 20 s, at t = 20, 40, ..., 1800 (the run's end),
// whose counter deltas are the prompt and cached tokens of the turns that
// completed since the scrape before, (t − 20, t] (no turn completes on a
// scrape's timestamp, where the two half-open windows differ by design).
// Scrapes fall on the window edges (300, 600, ...), so a delta counted in
// the window holding its scrape's timestamp, or an end scrape dropped,
// shows.
func countersEqualTurns() *schema.RunData {
	h := func(t float64) float64 { return 0.2 + 0.7*math.Abs(math.Sin(t/170)) }
	rd := &schema.RunData{Run: schema.Run{Run: "c", DurationS: 1800, PrefixCaching: true}}
	for t := 3.5; t < 1800; t += 7 {
		p := int64(1000 + int(t)%500)
		rd.Turns = append(rd.Turns, turn("s", int32(len(rd.Turns)), t, p, int64(math.Round(float64(p)*h(t)))))
	}
	for ts := 20.0; ts <= 1800; ts += 20 {
		var q, c float64
		for _, tn := range rd.Turns {
			if tn.DoneS > ts-20 && tn.DoneS <= ts {
				q, c = q+float64(tn.PromptTokens), c+float64(tn.CachedTokens)
			}
		}
		rd.Engine = append(rd.Engine, schema.EngineSample{TS: ts, Source: schema.SourceMetrics, Kind: schema.LineScrape, Line: int64(ts),
			IntervalS: new(float64(20)), PrefixQueries: new(q), PrefixHits: new(c), KVUsage: new(ts / 1800)})
	}
	return rd
}

// TestEngineWindowsCoverWhatTheyCount: a counter delta belongs to the
// window (start, end] that its interval falls in, and the scrape at the
// run's end counts, so on a run whose engine counters equal its turns the
// engine's hit ratio equals the gateway's in every 5-minute window and
// over the last 10 minutes, to rounding.
func TestEngineWindowsCoverWhatTheyCount(t *testing.T) {
	rd := countersEqualTurns()
	x := NewRunIndex(rd)
	ws := AnalysisWindows(rd)
	if len(ws) != 6 {
		t.Fatalf("%d windows", len(ws))
	}
	eng, _ := x.EngineHitRatios(x.EngineWindows(ws))
	for k, w := range ws {
		// The gateway's ratio, summed here directly.
		var p, c float64
		for _, tn := range rd.Turns {
			if tn.DoneS >= w.Start && tn.DoneS < w.End {
				p, c = p+float64(tn.PromptTokens), c+float64(tn.CachedTokens)
			}
		}
		checkNear(t, "engine hit in window "+strconv.Itoa(k), eng[k], c/p, 1e-12)
	}
	var p, c float64
	for _, tn := range rd.Turns {
		if tn.DoneS >= 1200 {
			p, c = p+float64(tn.PromptTokens), c+float64(tn.CachedTokens)
		}
	}
	s := x.EngineSummary()
	checkNear(t, "engine end hit", s.EndHit, c/p, 1e-12)
	// KV usage is a gauge: the scrapes in [1200, 1800], t/1800 at t = 1200,
	// 1220, ..., 1800, average (1200 + 1800)/2/1800; the peak is 1.
	checkNear(t, "KV usage end mean", s.KVUsageEndMean, 1500.0/1800, 1e-12)
	checkNear(t, "KV usage peak", s.KVUsagePeak, 1, 0)
}
