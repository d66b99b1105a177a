package stats

import (
	"math"
	"testing"
)

// stepHit returns a hit function that is hits[k] on [k·300, (k+1)·300).
func stepHit(hits ...float64) func(float64) float64 {
	return func(t float64) float64 {
		k := int(t / 300)
		if k >= len(hits) {
			return hits[len(hits)-1]
		}
		return hits[k]
	}
}

func TestRegime(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name       string
		duration   float64
		trigger    *float64
		align      float64
		hits       []float64 // per 5-minute window from 0
		persistent bool
		partial    bool
		firstDeg   float64
		endHit     float64
	}{
		{"persistent after burst; the dip before the trigger end is ignored", 3600, new(float64(1200)), 1200,
			[]float64{0.95, 0.95, 0.3, 0.95, 0.9, 0.3, 0.2, 0.1, 0.1, 0.1, 0.1, 0.1}, true, false, 1500, 0.1},
		{"healthy", 3600, new(float64(1200)), 1200,
			[]float64{0.95}, false, false, nan, 0.95},
		{"degraded then healthy then degraded: not persistent, partial", 3600, new(float64(1200)), 1200,
			[]float64{0.95, 0.95, 0.95, 0.95, 0.3, 0.9, 0.9, 0.9, 0.9, 0.9, 0.6, 0.6}, false, true, 1200, 0.6},
		{"never degraded but ends below 0.8: partial", 3600, new(float64(1200)), 1200,
			[]float64{0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.7, 0.7}, false, true, nan, 0.7},
		{"hit exactly 0.5 is not degraded, exactly 0.8 not partial", 3600, new(float64(1200)), 1200,
			[]float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.8, 0.8}, false, false, nan, 0.8},
		{"twin without its own trigger uses the slot (trigger_end_s given)", 3600, new(float64(1200)), 1200,
			[]float64{0.95, 0.95, 0.95, 0.95, 0.95, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4}, true, false, 1500, 0.4},
		{"no trigger at all: from align_s = 0", 3600, nil, 0,
			[]float64{0.4, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95}, false, false, 0, 0.95},
		{"a window without turns does not break persistence", 3600, new(float64(1200)), 1200,
			[]float64{0.95, 0.95, 0.95, 0.95, 0.3, nan, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3}, true, false, 1200, 0.3},
		{"run ends mid-window: the partial window is dropped", 3450, new(float64(1200)), 1200,
			[]float64{0.95, 0.95, 0.95, 0.95, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.95}, true, false, 1200, 0.3*0.75 + 0.95*0.25},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rd := hitRun(tc.duration, tc.align, stepHit(tc.hits...))
			rd.Run.TriggerEndS = tc.trigger
			if tc.trigger != nil {
				rd.Run.TriggerKind = "none"
				rd.Run.TriggerStartS = new(*tc.trigger - 300)
			}
			r := NewRunIndex(rd).Regime()
			if r.Persistent != tc.persistent || r.Partial != tc.partial {
				t.Errorf("persistent %v partial %v, want %v %v", r.Persistent, r.Partial, tc.persistent, tc.partial)
			}
			checkNear(t, "FirstDegradedS", r.FirstDegradedS, tc.firstDeg, 0)
			checkNear(t, "EndHit", r.EndHit, tc.endHit, 1e-9)
		})
	}
}

func TestCollapsedAt(t *testing.T) {
	x := NewRunIndex(hitRun(3600, 0, stepHit(0.95, 0.95, 0.95, 0.2, 0.2, 0.95)))
	for _, c := range []struct {
		t             float64
		collapsed, ok bool
	}{{1200, true, true}, {900, false, true}, {1500, true, true}, {1800, false, true}, {0, false, false}} {
		got, ok := x.CollapsedAt(c.t)
		if got != c.collapsed || ok != c.ok {
			t.Errorf("CollapsedAt(%v) = %v,%v want %v,%v", c.t, got, ok, c.collapsed, c.ok)
		}
	}
}

func TestRecovery(t *testing.T) {
	from := func(t0 float64) func(float64) float64 {
		return func(t float64) float64 {
			if t < t0 {
				return 0.1
			}
			return 0.95
		}
	}
	tests := []struct {
		name     string
		duration float64
		h        func(float64) float64
		status   RecoveryStatus
		minutes  float64
	}{
		{"first window", 3600, from(0), Recovered, 0},
		{"seven minutes", 3600, from(1620), Recovered, 7},
		{"window at 1620 has six bad turns of 30, hit 0.78: 8 minutes", 3600, from(1680), Recovered, 8},
		{"never", 3600, from(99999), NotRecovered, math.NaN()},
		{"recovers only 8 minutes before the end", 3600, from(3100), InsufficientFollowUp, math.NaN()},
		{"exactly 10 minutes of follow-up suffices", 3600, from(3000), Recovered, 30},
		{"run ends 9 minutes after control", 1740, from(0), InsufficientFollowUp, math.NaN()},
		{"relapse at the end", 3600, func(t float64) float64 {
			if t > 1500 && t < 3300 {
				return 0.95
			}
			return 0.1
		}, NotRecovered, math.NaN()},
		{"hit exactly 0.8 counts", 3600, func(float64) float64 { return 0.8 }, Recovered, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRunIndex(hitRun(tc.duration, 0, tc.h)).Recovery(1200)
			if r.Status != tc.status || !near(r.Minutes, tc.minutes, 0) {
				t.Errorf("got %+v, want %v %v", r, tc.status, tc.minutes)
			}
		})
	}
}

func TestNStar(t *testing.T) {
	// §4: C = 400K tokens, L̄ of the synthetic shape = (6144 + 37920)/2 =
	// 22032 tokens → N* ≈ 18.
	checkNear(t, "N*", NStar(400000, 22032), 18.155, 0.001)
	if !math.IsNaN(NStar(math.NaN(), 22032)) || !math.IsNaN(NStar(400000, 0)) {
		t.Error("N* with unknown C or L̄ should be NaN")
	}
}
