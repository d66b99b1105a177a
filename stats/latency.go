package stats

import (
	"slices"
	"sort"

	"github.com/outlast-dev/outlast/schema"
)

// Latency is what a user of the server feels, per completed turn (status
// ok), from the gateway's times:
//
//   - queue wait at the gateway: sent − ready;
//   - TTFT, time to first token: first token − sent;
//   - TPOT, time per output token after the first: (done − first token) /
//     (output tokens − 1), for turns with at least 2 output tokens;
//   - end-to-end: done − sent.
//
// A measure needs both of its times; a turn without one is left out of
// that measure (the counts say how many had it). Aborted and error turns
// are counted apart and measure nothing: they did not complete. Every
// percentile is Quantile's linear interpolation between order statistics
// (R type 7), as DuckDB's quantile_cont and numpy's default percentile.

// LatencyEndS is the end window of EndTTFT: turns sent in the last 10
// minutes, the window of the end hit ratio.
const LatencyEndS = EndHitS

// SLO is a service-level objective a completed turn meets or not (for
// goodput): each bound in seconds, 0 for no bound on that measure.
type SLO struct {
	TTFTS, TPOTS, E2ES float64
}

// DefaultSLO is TTFT ≤ 2 s and TPOT ≤ 0.1 s.
var DefaultSLO = SLO{TTFTS: 2, TPOTS: 0.1}

// Empty reports whether s bounds nothing.
func (s SLO) Empty() bool { return !(s.TTFTS > 0) && !(s.TPOTS > 0) && !(s.E2ES > 0) }

// Meets reports whether completed turn t meets s; judged is false when a
// time a bound needs is missing (so that t is left out of goodput). The
// TPOT bound applies to turns with at least 2 output tokens only: a
// single token has no time per token after the first.
func (s SLO) Meets(t *schema.Turn) (met, judged bool) {
	met = true
	if s.TTFTS > 0 {
		v, ok := TTFT(t)
		if !ok {
			return false, false
		}
		met = met && v <= s.TTFTS
	}
	if s.TPOTS > 0 && t.OutputTokens >= 2 {
		v, ok := TPOT(t)
		if !ok {
			return false, false
		}
		met = met && v <= s.TPOTS
	}
	if s.E2ES > 0 {
		v, ok := E2E(t)
		if !ok {
			return false, false
		}
		met = met && v <= s.E2ES
	}
	return met, true
}

// QueueWait is t's gateway wait, sent − ready; ok is false without both.
func QueueWait(t *schema.Turn) (float64, bool) {
	if t.ReadyS == nil || t.SentS == nil {
		return 0, false
	}
	return *t.SentS - *t.ReadyS, true
}

// TTFT is t's time to first token, first token − sent; ok is false
// without both.
func TTFT(t *schema.Turn) (float64, bool) {
	if t.SentS == nil || t.FirstTokenS == nil {
		return 0, false
	}
	return *t.FirstTokenS - *t.SentS, true
}

// TPOT is t's time per output token after the first, (done − first
// token) / (output tokens − 1); ok is false without a first-token time or
// with fewer than 2 output tokens.
func TPOT(t *schema.Turn) (float64, bool) {
	if t.FirstTokenS == nil || t.OutputTokens < 2 {
		return 0, false
	}
	return (t.DoneS - *t.FirstTokenS) / float64(t.OutputTokens-1), true
}

// E2E is t's end-to-end latency, done − sent; ok is false without sent.
func E2E(t *schema.Turn) (float64, bool) {
	if t.SentS == nil {
		return 0, false
	}
	return t.DoneS - *t.SentS, true
}

// Percentiles are a sample's size and its 50th, 90th and 99th
// percentiles (Quantile); NaN when N is 0.
type Percentiles struct {
	N             int
	P50, P90, P99 float64
}

// NewPercentiles returns the percentiles of sorted (ascending) data.
func NewPercentiles(sorted []float64) Percentiles {
	return Percentiles{N: len(sorted), P50: Quantile(sorted, 0.5), P90: Quantile(sorted, 0.9), P99: Quantile(sorted, 0.99)}
}

// TurnLatency is a run's latency over its completed turns.
type TurnLatency struct {
	// Completed, Aborted and Errored count the run's turns by status
	// (ok; aborted; error or any other); only completed turns are
	// measured.
	Completed, Aborted, Errored int
	// WithSent counts the completed turns with a sent time and
	// WithFirstToken those with a sent and a first-token time: a gateway
	// format without first-token times (requests not streamed) has no
	// TTFT or TPOT.
	WithSent, WithFirstToken int
	Queue, TTFT, TPOT, E2E   Percentiles
	// EndTTFT is the TTFT of the completed turns sent in the last 10
	// minutes (LatencyEndS; RunIndex.EndWindow).
	EndTTFT Percentiles
	// Goodput is the share of the completed turns the SLO could judge
	// (SLO.Meets) that met it; its N counts the judged turns.
	Goodput Proportion
	// SLO is the objective Goodput was judged by.
	SLO SLO
}

// LatencySamples are a run's per-turn latencies, each sorted ascending,
// for figures that draw their distribution.
type LatencySamples struct {
	Queue, TTFT, TPOT, E2E []float64
}

// Latency measures the run's completed turns; goodput is judged by slo.
// The samples are the values the percentiles were taken of.
func (x *RunIndex) Latency(slo SLO) (TurnLatency, LatencySamples) {
	l := TurnLatency{SLO: slo}
	n := len(x.Data.Turns)
	s := LatencySamples{Queue: make([]float64, 0, n), TTFT: make([]float64, 0, n), TPOT: make([]float64, 0, n), E2E: make([]float64, 0, n)}
	var end []float64
	endW := x.EndWindow(LatencyEndS)
	good := 0
	for i := range x.Data.Turns {
		t := &x.Data.Turns[i]
		if !turnOK(t) {
			if t.Status == schema.TurnAborted {
				l.Aborted++
			} else {
				l.Errored++
			}
			continue
		}
		l.Completed++
		if v, ok := QueueWait(t); ok {
			s.Queue = append(s.Queue, v)
		}
		if v, ok := E2E(t); ok {
			l.WithSent++
			s.E2E = append(s.E2E, v)
		}
		if v, ok := TTFT(t); ok {
			l.WithFirstToken++
			s.TTFT = append(s.TTFT, v)
			if endW.Contains(*t.SentS) {
				end = append(end, v)
			}
		}
		if v, ok := TPOT(t); ok {
			s.TPOT = append(s.TPOT, v)
		}
		if met, judged := slo.Meets(t); judged {
			l.Goodput.N++
			if met {
				good++
			}
		}
	}
	l.Goodput = NewProportion(good, l.Goodput.N)
	for _, v := range [][]float64{s.Queue, s.TTFT, s.TPOT, s.E2E, end} {
		sortFloats(v)
	}
	l.Queue, l.TTFT, l.TPOT, l.E2E = NewPercentiles(s.Queue), NewPercentiles(s.TTFT), NewPercentiles(s.TPOT), NewPercentiles(s.E2E)
	l.EndTTFT = NewPercentiles(end)
	return l, s
}

// TTFTWindows returns the TTFT percentiles of the completed turns sent in
// each window of ws (a turn belongs to the minute its user asked in, not
// the one it was answered in); N is 0 and the percentiles NaN in a window
// without one. ws must be in time order and not overlap, as
// MinuteWindows gives them.
func (x *RunIndex) TTFTWindows(ws []Window) []Percentiles {
	// Each turn goes to its window's bucket (a binary search), and each
	// bucket is sorted alone: cheaper than sorting the run's turns.
	at := make([]int32, len(x.Data.Turns))
	count := make([]int, len(ws)+1)
	for i := range x.Data.Turns {
		t := &x.Data.Turns[i]
		at[i] = -1
		if _, ok := TTFT(t); !ok || !turnOK(t) {
			continue
		}
		k := sort.Search(len(ws), func(k int) bool { return ws[k].End > *t.SentS })
		if k < len(ws) && ws[k].Contains(*t.SentS) {
			at[i] = int32(k)
			count[k+1]++
		}
	}
	for k := range ws {
		count[k+1] += count[k]
	}
	vals := make([]float64, count[len(ws)])
	next := slices.Clone(count[:len(ws)])
	for i, k := range at {
		if k >= 0 {
			v, _ := TTFT(&x.Data.Turns[i])
			vals[next[k]] = v
			next[k]++
		}
	}
	out := make([]Percentiles, len(ws))
	for k := range ws {
		b := vals[count[k]:count[k+1]]
		slices.Sort(b)
		out[k] = NewPercentiles(b)
	}
	return out
}
