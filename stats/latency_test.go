package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/internal/duckdbtest"
	"github.com/outlast-dev/outlast/schema"
)

// latTurn is a turn with the given times (NaN: not recorded).
func latTurn(s string, k int32, ready, sent, first, done float64, out int64, status string) schema.Turn {
	opt := func(v float64) *float64 {
		if math.IsNaN(v) {
			return nil
		}
		return &v
	}
	return schema.Turn{Session: s, Turn: k, ReadyS: opt(ready), SentS: opt(sent), FirstTokenS: opt(first), DoneS: done,
		PromptTokens: 1000, OutputTokens: out, Status: status}
}

// latencyRun: a 30-minute run of eight completed turns, one aborted and
// one error; TTFTs 0.125, 0.2, 0.375, 132, 155 s among those with both
// times (times a double holds exactly where a bound is met exactly).
func latencyRun() *schema.RunData {
	nan := math.NaN()
	rd := &schema.RunData{Run: schema.Run{Run: "r", DurationS: 1800}}
	rd.Turns = []schema.Turn{
		// ready, sent, first token, done, output tokens
		latTurn("a", 0, 10, 11, 11.125, 21.125, 101, "ok"),    // queue 1, TTFT 0.125, TPOT 0.1, e2e 10.125
		latTurn("a", 1, 100, 100, 100.2, 100.2, 1, "ok"),      // queue 0, TTFT 0.2, no TPOT (1 token), e2e 0.2
		latTurn("b", 0, 600, 602, 602.375, 632.375, 301, ""),  // empty status is ok: queue 2, TTFT 0.375, TPOT 0.1, e2e 30.375
		latTurn("c", 0, 1200, 1250, 1382, 1412, 11, "ok"),     // queue 50, TTFT 132 (end window), TPOT 3, e2e 162
		latTurn("c", 1, 1500, 1600, 1755, 1765, 3, "ok"),      // queue 100, TTFT 155 (end window), TPOT 5, e2e 165
		latTurn("d", 0, nan, 1700, nan, 1710, 50, "ok"),       // no ready, no first token: e2e 10 only
		latTurn("d", 1, nan, nan, nan, 1720, 50, "ok"),        // no times at all: nothing measured
		latTurn("e", 0, 5, nan, 7, 9, 5, "ok"),                // no sent: TPOT 0.5 only
		latTurn("f", 0, 20, 21, 22, 30, 10, "aborted"),        // counted apart
		latTurn("f", 1, 40, 41, 42, 50, 10, schema.TurnError), // counted apart
	}
	return rd
}

func TestLatencyPercentilesDirect(t *testing.T) {
	for _, rd := range []*schema.RunData{latencyRun(), shuffled(latencyRun(), 3)} {
		l, s := NewRunIndex(rd).Latency(DefaultSLO)
		if l.Completed != 8 || l.Aborted != 1 || l.Errored != 1 || l.WithSent != 6 || l.WithFirstToken != 5 {
			t.Fatalf("counts %+v", l)
		}
		// np.percentile([0.125, 0.2, 0.375, 132, 155], [50, 90, 99]) =
		// 0.375, 145.8, 154.08 (h = 2, 3.6, 3.96).
		checkP(t, "TTFT", l.TTFT, 5, 0.375, 145.8, 154.08)
		// Queue 0, 1, 2, 50, 100: 2, 80, 98.
		checkP(t, "queue", l.Queue, 5, 2, 80, 98)
		// TPOT 0.1, 0.1, 3, 5, 0.5 → 0.1, 0.1, 0.5, 3, 5: 0.5, 4.2, 4.92.
		checkP(t, "TPOT", l.TPOT, 5, 0.5, 4.2, 4.92)
		// E2E 0.2, 10, 10.125, 30.375, 162, 165: h = 2.5, 4.5, 4.95:
		// 20.25, 163.5, 164.85.
		checkP(t, "E2E", l.E2E, 6, 20.25, 163.5, 164.85)
		// Sent in [1200, 1800): TTFT 132 and 155 (and d's turn 0, which has
		// no first token). p90 = 132 + 0.9·23.
		checkP(t, "end TTFT", l.EndTTFT, 2, 143.5, 152.7, 154.77)
		if len(s.TTFT) != 5 || s.TTFT[0] != 0.125 || s.TTFT[4] != 155 {
			t.Errorf("TTFT samples %v", s.TTFT)
		}
		// Goodput, TTFT ≤ 2 and TPOT ≤ 0.1: judged are the turns with a TTFT
		// (5); a (0.125, 0.1), a/1 (0.2, one token), b (0.375, 0.1) meet it.
		if g := l.Goodput; g.K != 3 || g.N != 5 {
			t.Errorf("goodput %+v", g)
		}
	}
}

// checkP compares percentiles with values computed by hand (numpy's
// default, linear).
func checkP(t *testing.T, name string, p Percentiles, n int, p50, p90, p99 float64) {
	t.Helper()
	if p.N != n {
		t.Errorf("%s: N = %d, want %d", name, p.N, n)
	}
	checkNear(t, name+" p50", p.P50, p50, 1e-9)
	checkNear(t, name+" p90", p.P90, p90, 1e-9)
	checkNear(t, name+" p99", p.P99, p99, 1e-9)
}

func TestLatencyEmptyIsUnknown(t *testing.T) {
	rd := &schema.RunData{Run: schema.Run{DurationS: 600}}
	rd.Turns = []schema.Turn{latTurn("a", 0, 1, 2, math.NaN(), 5, 10, "ok"), latTurn("b", 0, 1, 2, 3, 5, 10, "aborted")}
	l, _ := NewRunIndex(rd).Latency(DefaultSLO)
	// No first-token time: TTFT, TPOT and goodput are unknown, not 0.
	for name, v := range map[string]float64{"ttft": l.TTFT.P90, "tpot": l.TPOT.P50, "end": l.EndTTFT.P90, "goodput": l.Goodput.Fraction} {
		if !math.IsNaN(v) {
			t.Errorf("%s = %v, want NaN", name, v)
		}
	}
	checkNear(t, "e2e p50", l.E2E.P50, 3, 0)
	if l.Goodput.N != 0 || l.WithFirstToken != 0 || l.Completed != 1 || l.Aborted != 1 {
		t.Errorf("%+v", l)
	}
	// An SLO on end-to-end latency alone judges the turns with a sent time.
	l, _ = NewRunIndex(rd).Latency(SLO{E2ES: 2})
	if l.Goodput.N != 1 || l.Goodput.K != 0 {
		t.Errorf("e2e SLO %+v", l.Goodput)
	}
}

func TestSLOMeets(t *testing.T) {
	tr := latTurn("a", 0, 0, 1, 3, 13, 101, "ok") // TTFT 2, TPOT 0.1, e2e 12
	for _, c := range []struct {
		slo         SLO
		met, judged bool
	}{
		{DefaultSLO, true, true}, // bounds are inclusive
		{SLO{TTFTS: 1.9}, false, true},
		{SLO{TPOTS: 0.09}, false, true},
		{SLO{E2ES: 12}, true, true},
		{SLO{E2ES: 11}, false, true},
		{SLO{}, true, true},
	} {
		if met, judged := c.slo.Meets(&tr); met != c.met || judged != c.judged {
			t.Errorf("%+v: met %v judged %v", c.slo, met, judged)
		}
	}
	one := latTurn("a", 0, 0, 1, 3, 100, 1, "ok")
	if met, judged := (SLO{TPOTS: 0.1}).Meets(&one); !met || !judged {
		t.Error("a one-token turn has no TPOT to miss")
	}
	noFirst := latTurn("a", 0, 0, 1, math.NaN(), 100, 10, "ok")
	if _, judged := DefaultSLO.Meets(&noFirst); judged {
		t.Error("a turn without a first token cannot be judged on TTFT")
	}
}

func TestTTFTWindows(t *testing.T) {
	x := NewRunIndex(latencyRun())
	ws := []Window{{0, 60}, {60, 600}, {600, 1200}, {1200, 1800}}
	got := x.TTFTWindows(ws)
	// By sent time: [0, 60): 0.125 (sent 11); [60, 600): 0.2; [600, 1200):
	// 0.375; [1200, 1800): 132, 155. The aborted turn (sent 21) is left out.
	checkP(t, "w0", got[0], 1, 0.125, 0.125, 0.125)
	checkP(t, "w2", got[2], 1, 0.375, 0.375, 0.375)
	checkP(t, "w3", got[3], 2, 143.5, 152.7, 154.77)
	if empty := x.TTFTWindows([]Window{{1800, 1860}})[0]; empty.N != 0 || !math.IsNaN(empty.P50) {
		t.Errorf("empty window %+v", empty)
	}
}

// TestLatencyAgainstDuckDB computes the percentiles of a random run's
// turns with DuckDB's quantile_cont from the raw times, in SQL, and
// compares them with ours.
func TestLatencyAgainstDuckDB(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	rd := &schema.RunData{Run: schema.Run{Run: "r", DurationS: 3600}}
	var rows []string
	sql := func(v *float64) string {
		if v == nil {
			return "NULL"
		}
		return fmt.Sprintf("%.17g", *v)
	}
	for i := range 1500 {
		sent := rng.Float64() * 3500
		ready := sent - rng.ExpFloat64()*3
		first := sent + math.Exp(rng.NormFloat64()*2)
		out := int64(rng.IntN(400))
		done := first + float64(out)*0.02*rng.Float64()
		status := "ok"
		switch rng.IntN(20) {
		case 0:
			status = "aborted"
		case 1:
			status = "error"
		}
		tr := latTurn(fmt.Sprintf("s%d", i), 0, ready, sent, first, done, out, status)
		switch rng.IntN(10) {
		case 0:
			tr.ReadyS = nil
		case 1:
			tr.FirstTokenS = nil
		}
		rd.Turns = append(rd.Turns, tr)
		rows = append(rows, fmt.Sprintf("(%s,%s,%s,%.17g,%d,'%s')", sql(tr.ReadyS), sql(tr.SentS), sql(tr.FirstTokenS), tr.DoneS, out, status))
	}
	q := `WITH t(ready, sent, first, done, output_tokens, status) AS (VALUES ` + strings.Join(rows, ",") + `)
SELECT quantile_cont(first - sent, [0.5, 0.9, 0.99]) FILTER (WHERE status = 'ok') AS ttft,
  quantile_cont(sent - ready, [0.5, 0.9, 0.99]) FILTER (WHERE status = 'ok') AS queue,
  quantile_cont((done - first) / (output_tokens - 1), [0.5, 0.9, 0.99]) FILTER (WHERE status = 'ok' AND output_tokens >= 2) AS tpot,
  quantile_cont(done - sent, [0.5, 0.9, 0.99]) FILTER (WHERE status = 'ok') AS e2e,
  quantile_cont(first - sent, 0.9) FILTER (WHERE status = 'ok' AND sent >= 3000 AND sent < 3600) AS end_ttft,
  count(*) FILTER (WHERE status = 'ok' AND first IS NOT NULL) AS judged,
  count(*) FILTER (WHERE status = 'ok' AND first - sent <= 2 AND (output_tokens < 2 OR (done - first) / (output_tokens - 1) <= 0.1)) AS good
FROM t`
	var got struct {
		TTFT, Queue, TPOT, E2E []float64
		EndTTFT                float64 `json:"end_ttft"`
		Judged, Good           int
	}
	if err := json.Unmarshal([]byte(duckdbtest.Query(t, q)), &got); err != nil {
		t.Fatal(err)
	}
	l, _ := NewRunIndex(rd).Latency(DefaultSLO)
	for _, c := range []struct {
		name string
		p    Percentiles
		want []float64
	}{{"TTFT", l.TTFT, got.TTFT}, {"queue", l.Queue, got.Queue}, {"TPOT", l.TPOT, got.TPOT}, {"E2E", l.E2E, got.E2E}} {
		for i, v := range []float64{c.p.P50, c.p.P90, c.p.P99} {
			// The same subtractions in the same double precision: equal
			// to the last bits but for the interpolation's rounding.
			if !near(v, c.want[i], 1e-12*math.Max(1, math.Abs(v))) {
				t.Errorf("%s percentile %d: ours %.17g, DuckDB %.17g", c.name, i, v, c.want[i])
			}
		}
	}
	if !near(l.EndTTFT.P90, got.EndTTFT, 1e-12*math.Max(1, got.EndTTFT)) {
		t.Errorf("end TTFT p90: ours %.17g, DuckDB %.17g", l.EndTTFT.P90, got.EndTTFT)
	}
	if l.Goodput.N != got.Judged || l.Goodput.K != got.Good {
		t.Errorf("goodput: ours %d of %d, DuckDB %d of %d", l.Goodput.K, l.Goodput.N, got.Good, got.Judged)
	}
}

// TestSortFloats checks the radix sort against the standard library's on
// samples of every kind a latency takes: long and short, negative (a clock
// that put the first token before the send), zeros of both signs,
// duplicates, tiny and huge values.
func TestSortFloats(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 255, 256, 257, 1000, 5000} {
		for kind := range 5 {
			v := make([]float64, n)
			for i := range v {
				switch kind {
				case 0:
					v[i] = math.Exp(rng.NormFloat64() * 3)
				case 1:
					v[i] = rng.NormFloat64()
				case 2:
					v[i] = float64(rng.IntN(5)) * 0.1
				case 3:
					v[i] = []float64{0, math.Copysign(0, -1), 1e-300, -1e300, math.Inf(1), math.Inf(-1), 0.25}[rng.IntN(7)]
				case 4:
					v[i] = 1 // all equal: every byte shared
				}
			}
			want := slices.Clone(v)
			slices.Sort(want)
			sortFloats(v)
			for i := range v {
				if v[i] != want[i] {
					t.Fatalf("n %d kind %d: at %d got %v, want %v", n, kind, i, v[i], want[i])
				}
			}
		}
	}
}

func BenchmarkLatency(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	rd := &schema.RunData{Run: schema.Run{Run: "r", DurationS: 3600}}
	for i := range 5000 {
		sent := rng.Float64() * 3600
		first := sent + math.Exp(rng.NormFloat64())
		rd.Turns = append(rd.Turns, latTurn(fmt.Sprintf("s%d", i), 0, sent-rng.Float64(), sent, first, first+rng.Float64()*10, 300, "ok"))
	}
	x := NewRunIndex(rd)
	ws := MinuteWindows(rd)
	b.ResetTimer()
	for range b.N {
		x.Latency(DefaultSLO)
		x.TTFTWindows(ws)
	}
}
