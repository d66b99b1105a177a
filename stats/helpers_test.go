package stats

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// near reports whether got is within tol of want (NaN equals NaN).
func near(got, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= tol
}

func checkNear(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if !near(got, want, tol) {
		t.Errorf("%s = %v, want %v (±%g)", name, got, want, tol)
	}
}

// turn builds an ok turn.
func turn(session string, k int32, done float64, prompt, cached int64) schema.Turn {
	return schema.Turn{Session: session, Turn: k, DoneS: done, PromptTokens: prompt, CachedTokens: cached, OutputTokens: 300, Status: "ok"}
}

// hitRun builds a run of the given duration with one session per 10 s of
// hit function h: at every 10 s mark t (t = 5, 15, ...) one turn of 1000
// prompt tokens completes with round(1000·h(t)) cached; h(t) NaN means no
// turn.
func hitRun(duration, align float64, h func(t float64) float64) *schema.RunData {
	rd := &schema.RunData{Run: schema.Run{Run: "r", DurationS: duration, AlignS: align, PrefixCaching: true}}
	for t := 5.0; t < duration; t += 10 {
		v := h(t)
		if math.IsNaN(v) {
			continue
		}
		rd.Turns = append(rd.Turns, turn("s", int32(len(rd.Turns)), t, 1000, int64(math.Round(1000*v))))
	}
	return rd
}

// shuffled returns a copy of rd with every table's rows permuted.
func shuffled(rd *schema.RunData, seed uint64) *schema.RunData {
	rng := rand.New(rand.NewPCG(seed, 7))
	c := &schema.RunData{Run: rd.Run}
	c.Sessions = append([]schema.Session(nil), rd.Sessions...)
	c.Turns = append([]schema.Turn(nil), rd.Turns...)
	c.Events = append([]schema.Event(nil), rd.Events...)
	c.Engine = append([]schema.EngineSample(nil), rd.Engine...)
	rng.Shuffle(len(c.Sessions), func(i, j int) { c.Sessions[i], c.Sessions[j] = c.Sessions[j], c.Sessions[i] })
	rng.Shuffle(len(c.Turns), func(i, j int) { c.Turns[i], c.Turns[j] = c.Turns[j], c.Turns[i] })
	rng.Shuffle(len(c.Engine), func(i, j int) { c.Engine[i], c.Engine[j] = c.Engine[j], c.Engine[i] })
	return c
}

// syntheticRun builds a closed-loop-looking run: sessions arriving every
// 27 s, 25 turns each of growing context, think gaps, a hit ratio that
// collapses after minute 25, and engine samples every 10 s.
func syntheticRun(seed uint64, sessions int) *schema.RunData {
	rng := rand.New(rand.NewPCG(seed, 1))
	rd := &schema.RunData{Run: schema.Run{
		Run: "syn", Experiment: "bench", Design: "recovery", Seed: new(int64(seed)), Arm: "budgeter",
		DurationS: 5400, AlignS: 840, PrefixCaching: true, KVPoolTokens: new(int64(400000)),
		ArrivalRate: new(float64(0.035)), Turns: new(int64(25)), ThinkMeanS: new(float64(5)), SystemTokens: new(int64(2048)), TaskTokens: new(int64(4096)),
		OutputTokens: new(int64(300)), ToolTokens: new(int64(1024)), TriggerKind: "burst", TriggerStartS: new(float64(600)), TriggerEndS: new(float64(840)),
		ControlKind: "budgeter", ControlStartS: new(float64(1200)),
	}}
	for s := 0; s < sessions; s++ {
		id := string(rune('a'+s%26)) + string(rune('a'+s/26%26)) + string(rune('a'+s/676%26))
		arrive := float64(s) * 5400 / float64(sessions) * 0.9
		t := arrive
		for k := 0; k < 25; k++ {
			ready := t
			sent := ready + rng.Float64()
			done := sent + 1 + 3*rng.Float64()
			prompt := int64(6144 + 1324*k)
			hit := 0.95
			if done > 1500 && done < 2400 {
				hit = 0.1
			}
			cached := int64(float64(prompt) * hit * (0.9 + 0.1*rng.Float64()))
			rd.Turns = append(rd.Turns, schema.Turn{Session: id, Turn: int32(k), ReadyS: new(ready), SentS: new(sent), DoneS: done,
				PromptTokens: prompt, CachedTokens: cached, OutputTokens: 300, Status: "ok"})
			t = done + rng.ExpFloat64()*5
		}
		var end *float64
		if t < 5400 {
			end = new(t)
		}
		status := "open"
		if end != nil {
			status = "done"
		}
		rd.Sessions = append(rd.Sessions, schema.Session{Session: id, ArriveS: arrive, EndS: end, Status: status, TurnsPlanned: new(int64(25)), TurnsDone: 25, ContextTokens: new(int64(6144))})
	}
	// Sorted as in the dataset (schema.RunData).
	slices.SortFunc(rd.Turns, func(a, b schema.Turn) int {
		return cmp.Or(cmp.Compare(a.DoneS, b.DoneS), cmp.Compare(a.Session, b.Session), cmp.Compare(a.Turn, b.Turn))
	})
	slices.SortFunc(rd.Sessions, func(a, b schema.Session) int {
		return cmp.Or(cmp.Compare(a.ArriveS, b.ArriveS), cmp.Compare(a.Session, b.Session))
	})
	for t := 0.0; t < 5400; t += 10 {
		rd.Engine = append(rd.Engine, schema.EngineSample{TS: t, Source: "metrics", Kind: "scrape", Running: new(float64(4 + rng.IntN(20))),
			Waiting: new(float64(rng.IntN(5))), KVUsage: new(rng.Float64()), IntervalS: new(float64(10)), PrefixQueries: new(float64(10000)), PrefixHits: new(float64(rng.IntN(10000))), Preemptions: new(float64(0))})
	}
	return rd
}
