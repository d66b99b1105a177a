package readertest

import (
	"math"
	"testing"

	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/schema"
)

// TestDiff checks that Diff sees a difference in any field, floats beyond
// 1e-9 only, and takes an empty Source and Kind as the engine's log kind.
func TestDiff(t *testing.T) {
	e := Engine{Kinds: []string{schema.LineStats}}
	base := schema.EngineSample{TS: 5, Source: schema.SourceLog, Kind: schema.LineStats, Line: 1, Running: F(3), NewSeqs: N(2)}
	want := base
	want.Source, want.Kind = "", ""
	if d := e.Diff(base, want); d != "" {
		t.Errorf("equal samples: %s", d)
	}
	near := base
	near.TS, near.Running = 5+1e-12, F(3+1e-12)
	if d := e.Diff(near, base); d != "" {
		t.Errorf("within 1e-9: %s", d)
	}
	for name, change := range map[string]func(s *schema.EngineSample){
		"TS":           func(s *schema.EngineSample) { s.TS = 5.1 },
		"Kind":         func(s *schema.EngineSample) { s.Kind = schema.LineDecode },
		"EngineIndex":  func(s *schema.EngineSample) { s.EngineIndex = -1 },
		"Running":      func(s *schema.EngineSample) { s.Running = F(4) },
		"Waiting":      func(s *schema.EngineSample) { s.Waiting = F(0) },
		"NewSeqs":      func(s *schema.EngineSample) { s.NewSeqs = nil },
		"IntervalS":    func(s *schema.EngineSample) { s.IntervalS = F(math.NaN()) },
		"CounterReset": func(s *schema.EngineSample) { s.CounterReset = true },
	} {
		got := base
		change(&got)
		if d := e.Diff(got, base); d == "" {
			t.Errorf("a different %s is not seen", name)
		}
	}
}

func TestRender(t *testing.T) {
	e := Engine{Columns: []string{"running", "tokens_used", "hit_rate"}}
	info := enginelog.Info{Format: "f", KVPoolTokens: 7, Lines: 3, SampleLines: 1, FirstS: 0.5, LastS: 2}
	got := string(e.Render(info, []schema.EngineSample{{Line: 2, TS: 1.25, Kind: "stats", Running: F(3), TokensUsed: N(40)}}))
	want := "# format=f kv_pool_tokens=7 lines=3 sample_lines=1 first_s=0.5 last_s=2\n" +
		"# line t_s kind engine running tokens_used hit_rate\n" +
		"2 1.25 stats 0 3 40 nil\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
