package replay

import (
	"math"
	"strings"
	"testing"
)

// arrivalRun is a run of 6000 s whose base sessions arrive every 30 s for
// the first 1200 s, then every 200 s: a rate change of 0.0333 to 0.005/s
// that its manifest, which names the rate aimed at, does not declare.
func arrivalRun() []sessionSpec {
	var specs []sessionSpec
	add := func(at float64) {
		specs = append(specs, sessionSpec{name: "s" + num(at, 0), origin: "base", arrive: at, gap: 1, prompts: []int64{1000, 1100}, ended: true})
	}
	for t := 0.0; t < 1200; t += 30 {
		add(t)
	}
	for t := 1200.0; t < 6000; t += 200 {
		add(t)
	}
	return specs
}

// TestArrivalsFitTheRun checks that an arrival process the run's arrivals
// reject (the manifest's 0.035/s throughout, where 64 sessions arrived and
// 210 were expected) is replaced by the observed one, with its rate
// change, and that the replacement is said.
func TestArrivalsFitTheRun(t *testing.T) {
	rd := fakeRunData(arrivalRun()...)
	rd.Run.DurationS = 6000
	rd.Run.ArrivalRate = new(0.035)
	m := mustFit(t, rd)
	a := m.Arrivals
	if a.Check == nil || !a.Check.Rejected() || a.Check.N != 64 || math.Abs(a.Check.Expected-210) > 1e-9 {
		t.Fatalf("check %+v, want the manifest's process rejected: 64 arrived, 210 expected", a.Check)
	}
	if a.BaseFrom != "observed" || a.RateChange == nil || a.RateChange.AtS != 1200 || a.BaseRate != 0.03333 || a.RateChange.After != 0.005 {
		t.Fatalf("arrivals %+v, rate change %+v: want the observed 0.03333/s, then 0.005/s from 1200 s", a, a.RateChange)
	}
	if a.Refit == nil || a.Refit.Rejected() {
		t.Errorf("refit %+v, want one that fits", a.Refit)
	}
	if m.Arm.RateChange == nil || *m.Arm.RateChange != *a.RateChange {
		t.Errorf("the as-is arm's rate change %+v, want the fitted one", m.Arm.RateChange)
	}
	if !strings.Contains(strings.Join(m.Warnings, "\n"), "the arrival process does not fit the run's arrivals (the manifest's 0.035/s throughout: 64 base sessions arrived, 210.0 expected (p < 0.001)") {
		t.Errorf("warnings %q lack the rejection", m.Warnings)
	}
}

// TestArrivalsThatFitStay checks that a process the arrivals do not
// reject is kept: a manifest rate near the observed one, and a burst whose
// sessions the export does not tag, which arrive among the base ones.
func TestArrivalsThatFitStay(t *testing.T) {
	var specs []sessionSpec
	for t := 0.0; t < 3000; t += 50 {
		specs = append(specs, sessionSpec{name: "b" + num(t, 0), origin: "base", arrive: t, gap: 1, prompts: []int64{1000, 1100}, ended: true})
	}
	for t := 605.0; t < 900; t += 10 { // the burst's, untagged
		specs = append(specs, sessionSpec{name: "x" + num(t, 0), origin: "base", arrive: t, gap: 1, prompts: []int64{1000, 1100}, ended: true})
	}
	rd := fakeRunData(specs...)
	r := &rd.Run
	r.DurationS, r.ArrivalRate = 3000, new(0.02)
	r.TriggerKind, r.TriggerStartS, r.TriggerEndS, r.TriggerExtraRate = "burst", new(600.0), new(900.0), new(0.1)
	m := mustFit(t, rd)
	a := m.Arrivals
	if a.Check == nil || a.Check.Rejected() || a.Refit != nil || a.BaseFrom != "manifest" || a.BaseRate != 0.02 || a.RateChange != nil {
		t.Errorf("arrivals %+v, check %+v: want the manifest's process kept", a, a.Check)
	}
	if math.Abs(a.Check.Expected-(0.02*3000+0.1*300)) > 1e-9 {
		t.Errorf("expected %g arrivals, want the base's 60 and the untagged burst's 30", a.Check.Expected)
	}
}

// TestPoissonTwoSided checks the count test against exact sums of the
// Poisson probabilities (Python, math.lgamma), and the chi-square shape
// test on arrivals that follow their process and on ones that do not.
func TestPoissonTwoSided(t *testing.T) {
	for _, c := range []struct {
		n    int
		mu   float64
		want float64
	}{{25, 14.4, 0.014014957475444602}, {140, 157.5, 0.17175567393250282}, {3, 3, 1}, {0, 2, 0.2706705664732254}} {
		if got := poissonTwoSided(c.n, c.mu); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("poissonTwoSided(%d, %g) = %.15g, want %.15g", c.n, c.mu, got, c.want)
		}
	}
	var even, early []float64
	for i := range 100 {
		even = append(even, float64(i)*60+30)
		early = append(early, float64(i)*20)
	}
	f := processOf(100.0/6000, nil, nil, 6000)
	if c := checkArrivals("even", f, even, 6000); c.Rejected() || c.PShape < 0.99 {
		t.Errorf("evenly spread arrivals: %+v, want them to fit", c)
	}
	if c := checkArrivals("early", f, early, 6000); !c.Rejected() || c.PCount != 1 {
		t.Errorf("arrivals all in the first third: %+v, want their times rejected, their count not", c)
	}
}
