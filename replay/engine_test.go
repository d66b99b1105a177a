package replay

import (
	"math"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// TestFitEngineRecoversCosts simulates runs on engines two times slower to
// prefill and faster to decode than the default, and the other way round,
// and checks that the fit finds those factors within 10% (its standard
// errors are smaller), from a healthy run and from a collapsed one.
func TestFitEngineRecoversCosts(t *testing.T) {
	for _, c := range []struct {
		name            string
		design          string
		prefill, decode float64
	}{
		{"paired, slow prefill", schema.DesignPaired, 2, 0.5},
		{"recovery, slow decode", schema.DesignRecovery, 0.6, 1.5},
	} {
		cfg := mustDefaults(t, c.design)
		cfg.Arms = cfg.Arms[:1]
		cfg.DurationS = 1800
		cfg.Cost = cfg.Cost.Scaled(c.prefill, c.decode)
		rd := simulated(t, cfg)[0]
		m := mustFit(t, rd)
		e := m.Engine
		t.Logf("%s (%s): prefill ×%.3f ± %.3f, decode ×%.3f ± %.3f over %d windows, R² %.4f", c.name, m.Observed.Verdict,
			e.Prefill.Value, e.Prefill.SE, e.Decode.Value, e.Decode.SE, e.Windows, e.R2)
		if e.Method != MethodBusy {
			t.Errorf("%s: fitted by %s, want %s", c.name, e.Method, MethodBusy)
		}
		if math.Abs(e.Prefill.Value/c.prefill-1) > 0.1 || math.Abs(e.Decode.Value/c.decode-1) > 0.1 {
			t.Errorf("%s: prefill ×%.3f decode ×%.3f, want ×%g and ×%g", c.name, e.Prefill.Value, e.Decode.Value, c.prefill, c.decode)
		}
	}
}

// TestFitEngineCalibrationRuns checks that calibration runs of the same
// engine and model join the fit (and give the paper's c(L)), and that the
// pool and engine come from the run.
func TestFitEngineCalibrationRuns(t *testing.T) {
	cfg := mustDefaults(t, schema.DesignPaired)
	cfg.Arms = cfg.Arms[1:]
	cfg.DurationS = 1800
	cfg.PoolTokens = 300000
	cfg.Engine = schema.EngineSGLang
	obs := simulated(t, cfg)[0]
	cal := mustDefaults(t, schema.DesignCalibration)
	cal.Engine = schema.EngineSGLang
	cal.Arms = cal.Arms[3:4]
	cal.DurationS = 2400
	calib := simulated(t, cal)[0]
	if !Calibration(&obs.Run, &calib.Run) || Calibration(&obs.Run, &obs.Run) {
		t.Fatal("Calibration does not pick the caching-off run of the same engine and model")
	}
	e := mustFit(t, obs, calib).Engine
	if len(e.Runs) != 2 || e.Runs[1] != calib.Run.Run || e.ColdCost == nil || e.ColdCostFrom != "windows of calibration runs" {
		t.Errorf("fitted on %v, c(L) %v from %q: want the run and the calibration run", e.Runs, e.ColdCost, e.ColdCostFrom)
	}
	if e.Pool != 300000 || e.PoolFrom != "manifest" || e.Name != schema.EngineSGLang || !e.PrefixCaching {
		t.Errorf("engine %s pool %d from %s caching %v", e.Name, e.Pool, e.PoolFrom, e.PrefixCaching)
	}
	if math.Abs(e.Prefill.Value-1) > 0.1 || math.Abs(e.Decode.Value-1) > 0.1 {
		t.Errorf("prefill ×%.3f decode ×%.3f on the default engine, want about 1", e.Prefill.Value, e.Decode.Value)
	}
}

// TestFitEngineWithoutTimings checks the fallbacks: a run whose turns have
// no first_token_s keeps the default costs, with a warning, and one
// without a pool the default pool.
func TestFitEngineWithoutTimings(t *testing.T) {
	var specs []sessionSpec
	for i := range 6 {
		specs = append(specs, sessionSpec{name: string(rune('a' + i)), origin: "base", arrive: float64(20 * i), gap: 2, prompts: []int64{1000, 1300}, ended: true})
	}
	rd := fakeRunData(specs...)
	for i := range rd.Turns {
		rd.Turns[i].FirstTokenS = nil
	}
	rd.Run.KVPoolTokens = nil
	e := mustFit(t, rd).Engine
	if e.Method != MethodDefaults || e.Prefill.Value != 1 || e.Decode.Value != 1 || e.Pool != DefaultPool || e.PoolFrom != "default" || len(e.Warnings) != 2 {
		t.Errorf("engine %+v, want the defaults with two warnings", e)
	}
}

// TestFitEngineCacheUnreported checks a run whose gateway recorded no
// cached tokens: the busy windows take each turn's cached tokens from the
// engine's own hit ratio in its window, not from a guess that every turn
// hit its previous one, and find the faster decode of a healthy run and
// the default prefill, within 10% once corrected. Without the engine's
// hit counters either, the windows are not fitted at all: only the decode
// speed of single turns, which does not depend on what hit.
func TestFitEngineCacheUnreported(t *testing.T) {
	cfg := mustDefaults(t, schema.DesignPaired)
	cfg.Arms = cfg.Arms[1:]
	cfg.DurationS = 1800
	cfg.Cost = cfg.Cost.Scaled(1, 0.7)
	rd := simulated(t, cfg)[0]
	no := false
	rd.Run.CacheReported = &no
	for i := range rd.Turns {
		rd.Turns[i].CachedTokens = 0
	}
	m := mustFit(t, rd)
	if err := m.Correct(Options{Out: t.TempDir(), Read: readBack}); err != nil {
		t.Fatal(err)
	}
	e := m.Engine
	t.Logf("prefill ×%.3f ± %.3f, decode ×%.3f ± %.3f", e.Prefill.Value, e.Prefill.SE, e.Decode.Value, e.Decode.SE)
	if e.Method != MethodBusy || e.Cached != CachedEngineShare || math.Abs(e.Prefill.Value-1) > 0.1 || math.Abs(e.Decode.Value/0.7-1) > 0.1 || len(e.Warnings) != 0 {
		t.Errorf("by %s (cached: %s): prefill ×%.3f decode ×%.3f, warnings %q; want prefill ×1 and decode ×0.7", e.Method, e.Cached, e.Prefill.Value, e.Decode.Value, e.Warnings)
	}
	for i := range rd.Engine {
		rd.Engine[i].PrefixHits, rd.Engine[i].PrefixQueries = nil, nil
	}
	e = mustFit(t, rd).Engine
	if e.Method == MethodBusy || e.Prefill.Value != 1 || !math.IsNaN(e.Prefill.SE) || math.Abs(e.Decode.Value/0.7-1) > 0.25 {
		t.Errorf("without hit counters: by %s, prefill ×%.3f ± %.3f decode ×%.3f; want no busy-window fit, the default prefill", e.Method, e.Prefill.Value, e.Prefill.SE, e.Decode.Value)
	}
	if !strings.Contains(strings.Join(e.Warnings, "\n"), "cannot tell prefill from hits") {
		t.Errorf("warnings %q", e.Warnings)
	}
}
