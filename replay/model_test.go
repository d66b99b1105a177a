package replay

import (
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// TestModelTriggers checks that each trigger of the simulator's designs
// comes back from its manifest into the replay's arm and arrival process:
// a rate change with the burst that preceded it (drain), a flush, a mix
// shift (whose resampled sessions come from their own side of it), and a
// twin's trigger slot.
func TestModelTriggers(t *testing.T) {
	drain := mustDefaults(t, schema.DesignDrain)
	drain.Arms, drain.DurationS = drain.Arms[:1], 1500
	m := mustFit(t, simulated(t, drain)[0])
	a := m.Arrivals
	if rc := a.RateChange; rc == nil || rc.AtS != 1200 || rc.After != 0.006 || a.Burst == nil || a.Burst.StartS != 600 || a.Burst.Rate != 0.06 || a.BaseRate != 0.04 {
		t.Errorf("drain: rate change %+v, burst %+v, base %g", a.RateChange, a.Burst, a.BaseRate)
	}
	if cfg := m.Config(ScaleVariant(2), 1); cfg.Lambda != 0.08 || cfg.Arms[0].RateChange.After != 0.012 || cfg.Arms[0].Burst.Rate != 0.06 {
		t.Errorf("drain ×2: λ %g, after %g, burst %g: want the base rates doubled, the burst kept", cfg.Lambda, cfg.Arms[0].RateChange.After, cfg.Arms[0].Burst.Rate)
	}

	flush := mustDefaults(t, schema.DesignFlush)
	flush.Arms, flush.DurationS = flush.Arms[:1], 900
	if m := mustFit(t, simulated(t, flush)[0]); m.Arm.FlushS != 600 || m.Arrivals.FlushS != 600 {
		t.Errorf("flush at %g, want 600", m.Arm.FlushS)
	}

	shift := mustDefaults(t, schema.DesignMixShift)
	shift.Arms, shift.DurationS = shift.Arms[:1], 2700
	m = mustFit(t, simulated(t, shift)[0])
	if m.Arrivals.ShiftS != 1800 {
		t.Fatalf("mix shift at %g, want 1800", m.Arrivals.ShiftS)
	}
	cfg := m.Config(Variant{Name: AsIs}, 2)
	for _, p := range cfg.Workload.Plan(&cfg, &cfg.Arms[0], 2) {
		if long := p.ContextTokens > 20000; long != (p.ArriveS >= 1800) {
			t.Fatalf("resampled session %s at %.0f s has a %d-token context: the wrong side of the shift", p.Name, p.ArriveS, p.ContextTokens)
		}
	}

	twin := mustDefaults(t, schema.DesignPaired)
	twin.Arms, twin.DurationS = twin.Arms[1:], 1500
	if m := mustFit(t, simulated(t, twin)[0]); m.Arm.Burst != nil || m.Arm.SlotS != [2]float64{900, 1200} {
		t.Errorf("twin: burst %+v, slot %v", m.Arm.Burst, m.Arm.SlotS)
	}
}
