package report

import (
	"fmt"
	"math"

	"github.com/outlast-dev/outlast/schema"
)

// fakeRun describes a hand-built run whose measures are known exactly:
// Sessions sessions arrive at t = 0 and never end, so the mean number in
// the system is Sessions at any time; one turn of 1000 prompt tokens
// completes every 10 s, with 950 cached (hit ratio 0.95) before DropS and
// 100 cached (0.10) from DropS on, then 950 again from RecoverS on. Every
// session's context is 1000 tokens and no output is generated, so
// D = 1000·Sessions and, with C = 100000, D/C = Sessions/100 and
// N* = C/L̄ = 100. Each turn is sent 2 s before it completes (end-to-end
// 2 s), its first token 0.5 s after it is sent (TTFT 0.5 s), or 1.9 s
// after while the hit ratio is down.
type fakeRun struct {
	Name, Experiment, Design, Arm string
	Seed                          int64
	Sessions                      int
	DropS, RecoverS               float64 // +Inf: never
	TriggerKind                   string
	TriggerStartS, TriggerEndS    float64
	ControlKind                   string
	ControlStartS                 float64 // NaN: no control
	DurationS                     float64
}

func (f fakeRun) build() *schema.RunData {
	i64 := func(v int64) *int64 { return &v }
	f64 := func(v float64) *float64 { return &v }
	rd := &schema.RunData{Run: schema.Run{
		Run: f.Name, Experiment: f.Experiment, Design: f.Design, Arm: f.Arm, Seed: i64(f.Seed),
		DurationS: f.DurationS, EngineName: "vllm", EngineVersion: "0.8.5", EngineModel: "test/model",
		PrefixCaching: true, KVPoolTokens: i64(100000), KVPoolSource: "manifest",
		ArrivalRate: f64(0.01), Turns: i64(25), ThinkMeanS: f64(5),
		SystemTokens: i64(500), TaskTokens: i64(500), OutputTokens: i64(0), ToolTokens: i64(100),
		WorkloadExtra: "{}", TriggerKind: f.TriggerKind, TriggerExtra: "{}", ControlKind: f.ControlKind,
		ControlParams: "{}", Labels: "{}", SchemaVersion: schema.Version, OutlastVersion: "test",
		ManifestSHA256: "m-" + f.Name, GatewaySHA256: "g-" + f.Name,
	}}
	if f.TriggerKind != "" {
		rd.Run.TriggerStartS, rd.Run.TriggerEndS = f64(f.TriggerStartS), f64(f.TriggerEndS)
		rd.Run.AlignS = f.TriggerEndS
	}
	if !math.IsNaN(f.ControlStartS) {
		rd.Run.ControlStartS = f64(f.ControlStartS)
		if f.TriggerKind == "" {
			rd.Run.AlignS = f.ControlStartS
		}
	}
	for k := 0; k < f.Sessions; k++ {
		rd.Sessions = append(rd.Sessions, schema.Session{
			Run: f.Name, Session: fmt.Sprintf("s%03d", k), Origin: "base", Status: "open", ContextTokens: i64(1000),
		})
	}
	for t := 10.0; t <= f.DurationS; t += 10 {
		cached := int64(950)
		if t >= f.DropS && t < f.RecoverS {
			cached = 100
		}
		sent, ttft := t-2, 0.5
		if cached == 100 {
			ttft = 1.9
		}
		rd.Turns = append(rd.Turns, schema.Turn{
			Run: f.Name, Session: "s000", Turn: int32(t / 10), Origin: "base", ReadyS: f64(sent), SentS: f64(sent),
			FirstTokenS: f64(sent + ttft), DoneS: t, PromptTokens: 1000, CachedTokens: cached, Status: "ok",
		})
	}
	return rd
}

var inf = math.Inf(1)

// fixtureRuns is a small dataset with a paired and a recovery experiment
// whose every number is known by construction.
func fixtureRuns() []*schema.RunData {
	var runs []*schema.RunData
	pair := func(seed int64, burstDrops, twinDrops bool) {
		b := fakeRun{Name: fmt.Sprintf("s%d-burst", seed), Experiment: "paired-test", Design: "paired", Arm: "burst", Seed: seed,
			Sessions: 8, DropS: inf, RecoverS: inf, TriggerKind: "burst", TriggerStartS: 900, TriggerEndS: 1200,
			ControlKind: "none", ControlStartS: 0, DurationS: 3600}
		t := b
		t.Name, t.Arm, t.TriggerKind = fmt.Sprintf("s%d-no-burst", seed), "no-burst", "none"
		if burstDrops {
			b.DropS, b.Sessions = 1200, 40
		}
		if twinDrops {
			t.DropS, t.Sessions = 1800, 30
		}
		runs = append(runs, b.build(), t.build())
	}
	pair(1, true, false)
	pair(2, true, false)
	pair(3, false, false)
	// Recovery: collapsed from minute 10; the budgeter recovers as soon as
	// control starts at minute 20, no control never does.
	for seed := int64(1); seed <= 3; seed++ {
		for _, arm := range []string{"none", "budgeter"} {
			r := fakeRun{Name: fmt.Sprintf("r%d-%s", seed, arm), Experiment: "recovery-test", Design: "recovery", Arm: arm, Seed: seed,
				Sessions: 20, DropS: 600, RecoverS: inf, TriggerKind: "burst", TriggerStartS: 300, TriggerEndS: 540,
				ControlKind: arm, ControlStartS: 1200, DurationS: 3600}
			if arm == "budgeter" {
				r.RecoverS = 1200
			}
			runs = append(runs, r.build())
		}
	}
	runs = append(runs, calibrationRun())
	// Mix-shift: of 2 sessions arriving before the shift, s001's first turn
	// waits 30 s at the gateway and s000 never has a turn 0 (censored at
	// the end, 3600 s).
	m := fakeRun{Name: "m1", Experiment: "mix-test", Design: "mix-shift", Arm: "cap-10", Seed: 1, Sessions: 2,
		DropS: inf, RecoverS: inf, TriggerKind: "mix-shift", TriggerStartS: 1800, TriggerEndS: 1800,
		ControlKind: "session-cap", ControlStartS: 0, DurationS: 3600}.build()
	ready, sent, first := 0.0, 30.0, 30.5
	m.Turns = append(m.Turns, schema.Turn{Run: "m1", Session: "s001", Turn: 0, Origin: "base", ReadyS: &ready, SentS: &sent,
		FirstTokenS: &first, DoneS: 35, PromptTokens: 1000, CachedTokens: 950, Status: "ok"})
	runs = append(runs, m)
	// Observe: no KV pool size, and no turn completes in minutes 10–20.
	o := fakeRun{Name: "o1", Experiment: "observe-test", Design: "something-new", Arm: "none", Seed: 1, Sessions: 3,
		DropS: inf, RecoverS: inf, ControlStartS: math.NaN(), DurationS: 1800}.build()
	o.Run.KVPoolTokens = nil
	kept := o.Turns[:0]
	for _, tn := range o.Turns {
		if tn.DoneS < 600 || tn.DoneS >= 1200 {
			kept = append(kept, tn)
		}
	}
	o.Turns = kept
	runs = append(runs, o)
	// Drain: degraded from minute 5, the rate drops to 0.005/s at minute
	// 10, and the run recovers at minute 15.
	d := fakeRun{Name: "d1", Experiment: "drain-test", Design: "drain", Arm: "rate-0.005", Seed: 1, Sessions: 8,
		DropS: 300, RecoverS: 900, TriggerKind: "rate-change", TriggerStartS: 600, TriggerEndS: 600,
		ControlStartS: math.NaN(), DurationS: 3600}.build()
	after := 0.005
	d.Run.TriggerRateAfter = &after
	runs = append(runs, d)
	// Prevention: without control the burst leaves the run degraded, with
	// the budgeter from t = 0 it does not.
	for _, arm := range []string{"none", "budgeter"} {
		r := fakeRun{Name: "p-" + arm, Experiment: "prevention-test", Design: "prevention", Arm: arm, Seed: 1, Sessions: 8,
			DropS: 1200, RecoverS: inf, TriggerKind: "burst", TriggerStartS: 600, TriggerEndS: 720,
			ControlKind: arm, ControlStartS: 0, DurationS: 3600}
		if arm == "budgeter" {
			r.DropS = inf
		}
		runs = append(runs, r.build())
	}
	return runs
}

// calibrationRun is a caching-off run whose three 2-minute windows obey
// c(L) = 1 s + 1e-4 s/token·L exactly: 20 turns of 50,000 tokens
// (20 + 100 = 120 s), 40 of 20,000 (40 + 80) and 60 of 10,000 (60 + 60).
// Every turn is in flight for 200 s (its first token 1 s after it is
// sent), and 4 more run from 0 to past the end, so at least 4 are running
// throughout each window.
func calibrationRun() *schema.RunData {
	return calibrationRunOf([3]calWindow{{20, 50000}, {40, 20000}, {60, 10000}})
}

// calWindow is a 2-minute window of a calibration run: n turns of one
// prompt length, back to back.
type calWindow struct {
	n      int
	prompt int64
}

// calibrationRunOf is calibrationRun with other windows.
func calibrationRunOf(ws [3]calWindow) *schema.RunData {
	f := fakeRun{Name: "cal", Experiment: "cal-test", Design: "nocache", Arm: "none", Seed: 1,
		Sessions: 4, ControlStartS: math.NaN(), DurationS: 360}
	rd := f.build()
	rd.Run.PrefixCaching = false
	rd.Turns = nil
	turn := int32(0)
	for k, w := range ws {
		for i := 0; i < w.n; i++ {
			done := float64(k)*120 + (float64(i)+0.5)*120/float64(w.n)
			sent, first := done-200, done-199
			rd.Turns = append(rd.Turns, schema.Turn{Run: "cal", Session: "s000", Turn: turn, Origin: "base",
				SentS: &sent, FirstTokenS: &first, DoneS: done, PromptTokens: w.prompt, Status: "ok"})
			turn++
		}
	}
	for i := 0; i < 4; i++ {
		sent, first := 0.0, 1.0
		rd.Turns = append(rd.Turns, schema.Turn{Run: "cal", Session: "s001", Turn: int32(i), Origin: "base",
			SentS: &sent, FirstTokenS: &first, DoneS: 400, PromptTokens: 1, Status: "ok"})
	}
	return rd
}

// withEngine adds to rd a metrics scrape every 60 s (at 30, 90, ... s)
// whose prefix-cache counters give the engine hit ratio engineHit(t): 10000
// query tokens and round(10000·engineHit(t)) hits since the previous
// scrape, with 4 requests running, 1 waiting, KV usage 0.5 and no
// preemption. A NaN engineHit gives scrapes without counters.
func withEngine(rd *schema.RunData, engineHit func(t float64) float64) *schema.RunData {
	f64 := func(v float64) *float64 { return &v }
	for t := 30.0; t < rd.Run.DurationS; t += 60 {
		e := schema.EngineSample{Run: rd.Run.Run, TS: t, Source: schema.SourceMetrics, Kind: schema.LineScrape, Line: int64(t),
			Running: f64(4), Waiting: f64(1), KVUsage: f64(0.5), IntervalS: f64(60), Preemptions: f64(0)}
		if h := engineHit(t); !math.IsNaN(h) {
			e.PrefixQueries, e.PrefixHits = f64(10000), f64(math.Round(10000*h))
		}
		rd.Engine = append(rd.Engine, e)
		rd.Run.MetricsSHA256 = "s-" + rd.Run.Run
	}
	return rd
}

// withoutCachedTokens clears every turn's cached tokens, as a gateway that
// never received them records them.
func withoutCachedTokens(rd *schema.RunData) *schema.RunData {
	for i := range rd.Turns {
		rd.Turns[i].CachedTokens = 0
	}
	return rd
}
