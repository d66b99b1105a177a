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
			res := replayed(t, m, 2, Variant{Name: AsIs}, ControlVariant(ctl))
			mt := m.NewMatch(&res[0])
			if mt.Trace.Verdict == "" || len(res[1].Runs) != 2 {
				t.Fatalf("no replay: %+v", mt)
			}
			t.Logf("%s: engine %s by %s, prefill ×%.2f decode ×%.2f; observed %s %.2f, trace %s %.2f; warnings %q", name, m.Engine.Name,
				m.Engine.Method, m.Engine.Prefill.Value, m.Engine.Decode.Value, mt.Observed.Verdict, mt.Observed.EndHit, mt.Trace.Verdict, mt.Trace.EndHit, m.Warnings)
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

// TestFindPool checks the pool search on a collapsed run: the answer
// keeps 90% of the seeds healthy, the largest pool that falls short is
// within 5% below it, and the steps are those tried.
func TestFindPool(t *testing.T) {
	slowtest.SkipUnderRace(t, "simulates whole runs")
	cfg := mustDefaults(t, schema.DesignRecovery)
	cfg.Arms = cfg.Arms[:1]
	cfg.FirstSeed, cfg.DurationS = 503, 1800
	m := mustFit(t, simulated(t, cfg)[0])
	seeds := 1
	ps, err := FindPool(m, Variant{Name: AsIs}, Options{Seeds: seeds, Out: t.TempDir(), Read: readBack})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	PrintPoolSearch(&buf, ps, seeds)
	t.Log("\n" + buf.String())
	if ps.Pool == 0 || ps.Below == 0 || float64(ps.Pool) > float64(ps.Below)*PoolPrecision*1.01 {
		t.Fatalf("search ended at (%d, %d]", ps.Below, ps.Pool)
	}
	for _, s := range ps.Steps {
		if s.Pool == ps.Pool && !s.OK || s.Pool == ps.Below && s.OK {
			t.Errorf("step %d: ok %v, but the answer is (%d, %d]", s.Pool, s.OK, ps.Below, ps.Pool)
		}
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

// TestPoolSearchBacklogNote prints a search whose answer is healthy by the
// hit ratio with 15 times the sessions in the system at the run's own pool
// (a controller holding them back): the table shows END SESSIONS and a
// note says so; an answer without such a backlog gets no note.
func TestPoolSearchBacklogNote(t *testing.T) {
	step := func(pool int, ok bool, endSessions float64) PoolStep {
		return PoolStep{Pool: pool, OK: ok, Outcome: Outcome{Runs: 4, Verdicts: map[stats.Verdict]int{stats.VerdictNeverDegraded: 4},
			EndHit: NewSpread([]float64{0.95}), EndSessions: NewSpread([]float64{endSessions})}}
	}
	ps := PoolSearch{Steps: []PoolStep{step(400000, true, 7.8), step(40900, true, 118.5), step(38960, false, 130)}, Pool: 40900, Below: 38960}
	var buf bytes.Buffer
	PrintPoolSearch(&buf, ps, 4)
	out := buf.String()
	if !strings.Contains(out, "END SESSIONS") || !strings.Contains(out, "note: at 40,900 tokens the runs end with 118.5 sessions in the system against 7.8 at the run's own pool (400,000)") {
		t.Errorf("search with a backlog:\n%s", out)
	}
	ps.Steps[1] = step(40900, true, 9)
	buf.Reset()
	PrintPoolSearch(&buf, ps, 4)
	if strings.Contains(buf.String(), "note:") {
		t.Errorf("search without a backlog:\n%s", buf.String())
	}
}
