package stats

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

func TestAlignedWindows(t *testing.T) {
	tests := []struct {
		name                   string
		align, width, from, to float64
		n                      int
		first, last            Window
	}{
		{"aligned at trigger end 1200", 1200, 300, 0, 5400, 18, Window{0, 300}, Window{5100, 5400}},
		{"grid extends backwards from align", 1000, 300, 0, 5400, 17, Window{100, 400}, Window{4900, 5200}},
		{"run ends mid-window: partial dropped", 0, 300, 0, 1000, 3, Window{0, 300}, Window{600, 900}},
		{"align after the run", 6000, 300, 0, 1000, 3, Window{0, 300}, Window{600, 900}},
		{"shorter than one window", 0, 300, 0, 299, 0, Window{}, Window{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := AlignedWindows(tc.align, tc.width, tc.from, tc.to)
			if len(ws) != tc.n {
				t.Fatalf("got %d windows %v, want %d", len(ws), ws, tc.n)
			}
			if tc.n == 0 {
				return
			}
			if ws[0] != tc.first || ws[len(ws)-1] != tc.last {
				t.Errorf("first %v last %v, want %v %v", ws[0], ws[len(ws)-1], tc.first, tc.last)
			}
			for k := 1; k < len(ws); k++ {
				if ws[k].Start != ws[k-1].End {
					t.Errorf("windows %d and %d not contiguous", k-1, k)
				}
			}
		})
	}
}

func TestSlidingWindows(t *testing.T) {
	ws := SlidingWindows(1200, 2000, 300, 60)
	if len(ws) != 9 || ws[0] != (Window{1200, 1500}) || ws[8] != (Window{1680, 1980}) {
		t.Errorf("got %v", ws)
	}
	if SlidingWindows(0, 100, 300, 60) != nil {
		t.Error("window longer than the span should give none")
	}
}

func TestTurnWindow(t *testing.T) {
	turns := []schema.Turn{
		turn("a", 0, 10, 1000, 900),
		turn("b", 0, 299.999, 3000, 100),
		{Session: "c", DoneS: 100, PromptTokens: 500, Status: "error"},
		turn("a", 1, 300, 2000, 1000), // exactly at the edge: next window
	}
	s := NewTurnSeries(turns)
	w := s.Window(Window{0, 300})
	want := TurnWindow{Window: Window{0, 300}, Turns: 2, FailedTurns: 1, PromptTokens: 4000, CachedTokens: 1000,
		HitRatio: 0.25, TurnsPerS: 2.0 / 300, RecomputedTokensPerS: 10, LowCacheShare: 0.5}
	if !reflect.DeepEqual(w, want) {
		t.Errorf("got %+v\nwant %+v", w, want)
	}
	next := s.Window(Window{300, 600})
	// cached exactly half of the prompt is not "less than half".
	if next.Turns != 1 || next.HitRatio != 0.5 || next.LowCacheShare != 0 {
		t.Errorf("edge window %+v", next)
	}
	empty := s.Window(Window{600, 900})
	if !math.IsNaN(empty.HitRatio) || empty.TurnsPerS != 0 || empty.Turns != 0 || !math.IsNaN(empty.LowCacheShare) {
		t.Errorf("window without turns: %+v (want NaN hit, 0 throughput)", empty)
	}
	checkNear(t, "MeanContext", s.MeanContext(), 2000, 0)
	if !math.IsNaN(NewTurnSeries(nil).MeanContext()) {
		t.Error("MeanContext without turns should be NaN")
	}
}

func TestTurnWindowProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var turns []schema.Turn
	for i := 0; i < 2000; i++ {
		p := int64(1 + rng.IntN(40000))
		turns = append(turns, turn("s", int32(i), rng.Float64()*3600, p, rng.Int64N(p+1)))
	}
	a := NewTurnSeries(turns)
	rng.Shuffle(len(turns), func(i, j int) { turns[i], turns[j] = turns[j], turns[i] })
	b := NewTurnSeries(turns)
	for _, w := range SlidingWindows(0, 3600, 137, 31) {
		x, y := a.Window(w), b.Window(w)
		if !reflect.DeepEqual(x, y) && !(math.IsNaN(x.HitRatio) && math.IsNaN(y.HitRatio)) {
			t.Fatalf("row order changed %v: %+v vs %+v", w, x, y)
		}
		if x.Turns > 0 && !(x.HitRatio >= 0 && x.HitRatio <= 1) {
			t.Fatalf("hit ratio %v outside [0,1]", x.HitRatio)
		}
		if x.Turns > 0 && !(x.LowCacheShare >= 0 && x.LowCacheShare <= 1) {
			t.Fatalf("low-cache share %v outside [0,1]", x.LowCacheShare)
		}
	}
}
