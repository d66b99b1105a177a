package replay

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/internal/slowtest"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
	"github.com/outlast-dev/outlast/stats"
)

// TestFixturesReplay replays every real-format fixture (vLLM and SGLang,
// every version; AIPerf, GuideLLM and inference-perf logs): short runs with
// few sessions, some without a pool, without a manifest workload, without
// cached tokens or engine data to fit on. Each must fit, replay as-is and
// under the budgeter, and read back.
func TestFixturesReplay(t *testing.T) {
	for _, name := range fixtureRuns(t) {
		t.Run(name, func(t *testing.T) {
			rd := readRun(t, fixture(name))
			m := mustFit(t, rd)
			ctl, err := sim.NewControl(schema.ControlBudgeter, 60)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Correct(Options{Out: t.TempDir(), Read: readBack}); err != nil {
				t.Fatal(err)
			}
			res := replayed(t, m, 2, Variant{Name: AsIs}, ControlVariant(ctl))
			g := m.Ground(&res[0])
			if g.Trace.Verdict == "" || len(res[1].Runs) != 2 {
				t.Fatalf("no replay: %+v", g)
			}
			t.Logf("%s: engine %s by %s, prefill ×%.2f decode ×%.2f; observed %s %.2f, trace %s %.2f; %s; warnings %q", name, m.Engine.Name,
				m.Engine.Method, m.Engine.Prefill.Value, m.Engine.Decode.Value, g.Observed.Verdict, g.Observed.EndHit, g.Trace.Verdict, g.Trace.EndHit, g.Reason(), m.Warnings)
		})
	}
}

// TestBadInput checks the clear errors of an unknown run and of variants
// out of range.
func TestBadInput(t *testing.T) {
	m := mustFit(t, readRun(t, fixture("vllm-0.10")))
	ctl := func(start float64) *sim.Control {
		c, _ := sim.NewControl(schema.ControlBudgeter, start)
		return &c
	}
	for _, v := range []Variant{
		PoolVariant(1000), ControlVariant(*ctl(1e6)), ScaleVariant(-1), ScaleVariant(1000), DropVariant("nope"), DropVariant("a b"),
	} {
		if err := m.Check(v); !errors.Is(err, ErrVariant) {
			t.Errorf("%s: %v, want ErrVariant", v.Name, err)
		}
	}
	if _, err := Replay(m, []Variant{{Name: AsIs}}, Options{Seeds: 0, Out: t.TempDir(), Read: readBack}); !errors.Is(err, ErrVariant) {
		t.Errorf("zero seeds: %v", err)
	}
}

// TestSameAsIs checks that a variant changing nothing of the run is named
// as such, and one changing something is not.
func TestSameAsIs(t *testing.T) {
	m := mustFit(t, readRun(t, fixture("vllm-0.10")))
	none, _ := sim.NewControl(schema.ControlNone, 0)
	bud, _ := sim.NewControl(schema.ControlBudgeter, 60)
	for _, tc := range []struct {
		v    Variant
		want string
	}{
		{PoolVariant(m.Engine.Pool), "run's own KV pool"},
		{PoolVariant(m.Engine.Pool / 2), ""},
		{ScaleVariant(1), "keeps the run's arrivals"},
		{ScaleVariant(1.5), ""},
		{ControlVariant(bud), ""},
	} {
		if got := m.SameAsIs(tc.v); !strings.Contains(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("%s: %q, want %q", tc.v.Name, got, tc.want)
		}
	}
	if m.Arm.Control.Kind == schema.ControlNone {
		if got := m.SameAsIs(ControlVariant(none)); !strings.Contains(got, "no controller") {
			t.Errorf("control none on a run without one: %q", got)
		}
	}
}

// TestReplayReproducible checks that the same model and variants give
// byte-identical run directories, however many workers simulate them.
func TestReplayReproducible(t *testing.T) {
	cfg := mustDefaults(t, schema.DesignRecovery)
	cfg.Arms = cfg.Arms[:1]
	cfg.DurationS = 900
	m := mustFit(t, simulated(t, cfg)[0])
	vs := []Variant{ScaleVariant(1.5), DropVariant(schema.OriginBurst)}
	a, b := t.TempDir(), t.TempDir()
	if _, err := Replay(m, vs, Options{Seeds: 2, Out: a, Workers: 1, Read: readBack}); err != nil {
		t.Fatal(err)
	}
	if _, err := Replay(m, vs, Options{Seeds: 2, Out: b, Workers: 4, Read: readBack}); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		x, _ := os.ReadFile(p)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs", rel)
		}
		n++
		return nil
	})
	if err != nil || n != 2*2*4 {
		t.Errorf("%d files compared (%v), want 16", n, err)
	}
}

// TestFitWithCalibration checks that the calibration runs of the observed
// run's engine and model are the ones Calibration picks, and Fit uses them.
func TestFitWithCalibration(t *testing.T) {
	cfg := mustDefaults(t, schema.DesignPaired)
	cfg.DurationS = 1200
	cal := mustDefaults(t, schema.DesignCalibration)
	cal.Arms = cal.Arms[3:]
	cal.DurationS = 2400
	obs := simulated(t, cfg)[0]
	var calib []*schema.RunData
	for _, c := range append(simulated(t, cfg)[1:], simulated(t, cal)...) {
		if Calibration(&obs.Run, &c.Run) {
			calib = append(calib, c)
		}
	}
	m, err := Fit(obs, calib)
	if err != nil {
		t.Fatal(err)
	}
	if m.Run != "s501-burst" || len(m.Engine.Runs) != 2 || m.Engine.Runs[1] != "calibration-s501-lambda-0.02" {
		t.Errorf("model of %s fitted on %v", m.Run, m.Engine.Runs)
	}
}

// TestFindPool checks the pool search on a collapsed run: every pool is
// decided by the exact bounds of its seeds, seeds being doubled while the
// bounds straddle the target; the answer meets the target by its lower
// bound, and the largest pool that does not is within 5% below it.
func TestFindPool(t *testing.T) {
	slowtest.SkipUnderRace(t, "simulates whole runs")
	cfg := mustDefaults(t, schema.DesignRecovery)
	cfg.Arms = cfg.Arms[:1]
	cfg.FirstSeed, cfg.DurationS = 503, 1800
	m := mustFit(t, simulated(t, cfg)[0])
	const target, seeds, most = 0.5, 3, 6 // 5 of 5 meet 0.5 (0.5^5 < 0.05); 3 of 3 do not
	ps, err := FindPool(m, Variant{Name: AsIs}, Options{Seeds: seeds, Out: t.TempDir(), Read: readBack}, target, most)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	PrintPoolSearch(&buf, ps)
	t.Log("\n" + buf.String())
	if ps.Pool == 0 || ps.Below == 0 || float64(ps.Pool) > float64(ps.Below)*PoolPrecision*1.01 {
		t.Fatalf("search ended at (%d, %d]", ps.Below, ps.Pool)
	}
	for _, s := range ps.Steps {
		np := s.Outcome.NotPersistent
		if s.Decision != Decide(np, target) || s.Lower != np.Lower() {
			t.Errorf("step %d: %s with %d of %d, bound %.3f", s.Pool, s.Decision, np.K, np.N, s.Lower)
		}
		if s.Decision == Undecided && np.N != most || s.Decision != Undecided && np.N != seeds && np.N != most {
			t.Errorf("step %d: %s after %d seeds (start %d, most %d)", s.Pool, s.Decision, np.N, seeds, most)
		}
		if s.Pool == ps.Pool && !(s.Decision == Meets && s.Lower >= target) || s.Pool == ps.Below && s.Decision == Meets {
			t.Errorf("step %d: %s, lower bound %.3f, but the answer is (%d, %d]", s.Pool, s.Decision, s.Lower, ps.Below, ps.Pool)
		}
	}
	if !strings.Contains(buf.String(), "meets it with 95% confidence") {
		t.Errorf("the answer does not state its confidence:\n%s", buf.String())
	}
}

// BenchmarkReplay16Seeds60Min replays 16 seeds of a 60-minute run as-is:
// simulating, writing and reading back every run directory, on every core
// (make bench sets GOMAXPROCS=2).
func BenchmarkReplay16Seeds60Min(b *testing.B) {
	cfg := mustDefaults(b, schema.DesignRecovery)
	cfg.Arms = cfg.Arms[:1]
	cfg.FirstSeed = 503
	m := mustFit(b, simulated(b, cfg)[0])
	out := b.TempDir()
	b.ResetTimer()
	for range b.N {
		if _, err := Replay(m, []Variant{{Name: AsIs}}, Options{Seeds: 16, Out: out, Read: readBack}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPoolSearchBacklogNote prints a search whose answer is not
// persistently degraded with 15 times the sessions in the system at the
// run's own pool (a controller holding them back): the table shows END
// SESSIONS and a note says so; an answer without such a backlog gets no
// note.
func TestPoolSearchBacklogNote(t *testing.T) {
	step := func(pool int, d Decision, endSessions float64) PoolStep {
		out := Outcome{Runs: 32, Verdicts: map[stats.Verdict]int{stats.VerdictNeverDegraded: 32}, NotPersistent: stats.ClopperPearson(32, 32, Confidence),
			EndHit: NewSpread([]float64{0.95}), EndSessions: NewSpread([]float64{endSessions})}
		return PoolStep{Pool: pool, Decision: d, Outcome: out, Lower: out.NotPersistent.Lower(), Upper: 1}
	}
	ps := PoolSearch{Target: 0.9, MaxSeeds: 64, Steps: []PoolStep{step(400000, Meets, 7.8), step(40900, Meets, 118.5), step(38960, Short, 130)}, Pool: 40900, Below: 38960, BelowDecision: Short}
	var buf bytes.Buffer
	PrintPoolSearch(&buf, ps)
	out := buf.String()
	if !strings.Contains(out, "END SESSIONS") || !strings.Contains(out, "note: at 40,900 tokens the runs end with 118.5 sessions in the system against 7.8 at the run's own pool (400,000)") {
		t.Errorf("search with a backlog:\n%s", out)
	}
	ps.Steps[1] = step(40900, Meets, 9)
	buf.Reset()
	PrintPoolSearch(&buf, ps)
	if strings.Contains(buf.String(), "note:") {
		t.Errorf("search without a backlog:\n%s", buf.String())
	}
}
