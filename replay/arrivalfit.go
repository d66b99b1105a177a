package replay

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/sim"
)

// The resampled seeds draw their base arrivals from a Poisson process: the
// base rate and its rate change (and, where the export does not tag them,
// the burst's extra arrivals). That process must be the run's: a manifest
// that names the rate a load generator aimed at, while the arrivals fell
// away after a while (a rate change it does not declare), would replay a
// run whose load it never had. So the process is tested against the run's
// own base arrivals, and where it does not fit them it is replaced by the
// observed one: one rate, else one rate change at the likeliest time.

// ArrivalAlpha is the level at which an arrival process is rejected: its
// count test and its shape test each at half of it.
const ArrivalAlpha = 0.001

// ArrivalCheck is how well an arrival process fits the run's base
// arrivals (the sessions of every origin but burst, arriving within the
// run).
type ArrivalCheck struct {
	// Process describes the process tested ("0.035/s throughout").
	Process string
	// N is the number of base arrivals, Expected their expected number
	// under the process, PCount the two-sided exact Poisson p of N.
	N        int
	Expected float64
	PCount   float64
	// PShape is the chi-square p of the arrival times rescaled by the
	// process's cumulative rate (uniform under the process), in equally
	// likely bins; NaN with fewer than 10 arrivals.
	PShape float64
}

// Rejected reports whether the process does not fit the arrivals.
func (c ArrivalCheck) Rejected() bool {
	return c.PCount < ArrivalAlpha/2 || c.PShape < ArrivalAlpha/2
}

// String is the check as printed.
func (c ArrivalCheck) String() string {
	shape := "too few arrivals to test their times"
	if !math.IsNaN(c.PShape) {
		shape = "their times p " + pValue(c.PShape)
	}
	return fmt.Sprintf("%s: %d base sessions arrived, %s expected (p %s), %s", c.Process, c.N, num(c.Expected, 1), pValue(c.PCount), shape)
}

// round4 rounds to four significant digits.
func round4(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return v
}

// rateString describes a base rate and its change.
func rateString(r0 float64, rc *sim.RateChange) string {
	if rc == nil {
		return sig(r0) + "/s throughout"
	}
	return fmt.Sprintf("%s/s, then %s/s from %s s", sig(r0), sig(rc.After), num(rc.AtS, 0))
}

func pValue(p float64) string {
	if p < 0.001 {
		return "< 0.001"
	}
	return "= " + num(p, 3)
}

// intensity is a piecewise-constant arrival rate: rate[i] from at[i] on.
type intensity struct {
	at, rate []float64
}

func (f *intensity) add(from, to, rate float64) {
	for _, t := range []float64{from, to} {
		if _, ok := slices.BinarySearch(f.at, t); !ok {
			k, _ := slices.BinarySearch(f.at, t)
			prev := 0.0
			if k > 0 {
				prev = f.rate[k-1]
			}
			f.at, f.rate = slices.Insert(f.at, k, t), slices.Insert(f.rate, k, prev)
		}
	}
	for i := range f.at {
		if f.at[i] >= from && f.at[i] < to {
			f.rate[i] += rate
		}
	}
}

// cum is the integral of the rate from 0 to t.
func (f *intensity) cum(t float64) float64 {
	s := 0.0
	for i, a := range f.at {
		if a >= t {
			break
		}
		b := t
		if i+1 < len(f.at) && f.at[i+1] < t {
			b = f.at[i+1]
		}
		s += f.rate[i] * (b - a)
	}
	return s
}

// processOf is the intensity of the base arrivals under base rate r0, a
// rate change and, when its sessions are not told apart, the burst.
func processOf(r0 float64, rc *sim.RateChange, burst *sim.Burst, end float64) *intensity {
	f := &intensity{}
	if rc != nil && rc.AtS > 0 && rc.AtS < end {
		f.add(0, rc.AtS, r0)
		f.add(rc.AtS, end, rc.After)
	} else {
		f.add(0, end, r0)
	}
	if burst != nil && burst.EndS > burst.StartS {
		f.add(burst.StartS, math.Min(burst.EndS, end), burst.Rate)
	}
	return f
}

// checkArrivals tests the process f against the arrival times ts (sorted,
// within [0, end)).
func checkArrivals(process string, f *intensity, ts []float64, end float64) ArrivalCheck {
	c := ArrivalCheck{Process: process, N: len(ts), Expected: f.cum(end), PShape: math.NaN()}
	c.PCount = poissonTwoSided(c.N, c.Expected)
	if c.N < 10 || !(c.Expected > 0) {
		return c
	}
	bins := min(10, c.N/5)
	obs := make([]float64, bins)
	for _, t := range ts {
		k := int(float64(bins) * f.cum(t) / c.Expected)
		obs[min(max(k, 0), bins-1)]++
	}
	chi, e := 0.0, float64(c.N)/float64(bins)
	for _, o := range obs {
		chi += (o - e) * (o - e) / e
	}
	c.PShape = distuv.ChiSquared{K: float64(bins - 1)}.Survival(chi)
	return c
}

// poissonTwoSided is the two-sided exact p of n arrivals where mu were
// expected: twice the smaller tail, at most 1.
func poissonTwoSided(n int, mu float64) float64 {
	if !(mu > 0) {
		if n == 0 {
			return 1
		}
		return 0
	}
	p := distuv.Poisson{Lambda: mu}
	lo := p.CDF(float64(n))
	hi := 1.0
	if n > 0 {
		hi = 1 - p.CDF(float64(n-1))
	}
	return math.Min(1, 2*math.Min(lo, hi))
}

// changePoint fits one rate change to the arrival times ts: the split that
// maximises the likelihood of two Poisson rates, time within the window
// skip (the burst's, when its arrivals are not told apart) left out of
// both. ok is false when no split leaves arrivals on both sides.
func changePoint(ts []float64, end float64, skip *sim.Burst) (r0 float64, rc sim.RateChange, ok bool) {
	exposure := func(a, b float64) float64 {
		e := b - a
		if skip != nil {
			e -= math.Max(0, math.Min(b, skip.EndS)-math.Max(a, skip.StartS))
		}
		return e
	}
	var kept []float64
	for _, t := range ts {
		if skip == nil || t < skip.StartS || t >= skip.EndS {
			kept = append(kept, t)
		}
	}
	best := math.Inf(-1)
	for i := 1; i < len(kept); i++ {
		tau := kept[i]
		e1, e2 := exposure(0, tau), exposure(tau, end)
		if !(e1 > 0) || !(e2 > 0) {
			continue
		}
		n1, n2 := float64(i), float64(len(kept)-i)
		ll := n1*math.Log(n1/e1) + n2*math.Log(n2/e2)
		if ll > best {
			best, r0, rc, ok = ll, n1/e1, sim.RateChange{AtS: tau, After: n2 / e2}, true
		}
	}
	// Whole seconds and four significant digits: as precise as a few
	// dozen arrivals can place them.
	rc.AtS, r0, rc.After = math.Round(rc.AtS), round4(r0), round4(rc.After)
	return r0, rc, ok
}

// fitArrivals tests the arrival process a holds against the run's base
// arrivals and, when it does not fit them, replaces it by the observed
// one: a single rate if that fits, else the likeliest single rate change.
// It returns the warnings to print.
func (a *Arrivals) fitArrivals(w *Workload, end float64) []string {
	var ts []float64
	for _, s := range w.Sessions {
		if s.Origin != schema.OriginBurst && s.ArriveS >= 0 && s.ArriveS < end {
			ts = append(ts, s.ArriveS)
		}
	}
	slices.Sort(ts)
	// Burst sessions the export does not tag arrive among the base ones.
	var untagged *sim.Burst
	if a.BurstSessions == 0 && a.Burst != nil {
		untagged = a.Burst
	}
	src := "the " + a.BaseFrom + "'s"
	if a.BaseFrom == "observed" {
		src = "the observed"
	}
	check := checkArrivals(src+" "+rateString(a.BaseRate, a.RateChange), processOf(a.BaseRate, a.RateChange, untagged, end), ts, end)
	a.Check = &check
	if !check.Rejected() {
		return nil
	}
	// The observed rate, over the run less an untagged burst's window.
	n, e := 0, end
	if untagged != nil {
		e -= math.Max(0, math.Min(end, untagged.EndS)-untagged.StartS)
	}
	for _, t := range ts {
		if untagged == nil || t < untagged.StartS || t >= untagged.EndS {
			n++
		}
	}
	r, rc := round4(float64(n)/e), (*sim.RateChange)(nil)
	fit := checkArrivals("the observed "+rateString(r, nil), processOf(r, nil, untagged, end), ts, end)
	if fit.Rejected() {
		if r0, c, ok := changePoint(ts, end, untagged); ok {
			r, rc = r0, &c
			fit = checkArrivals("the observed "+rateString(r0, rc), processOf(r0, rc, untagged, end), ts, end)
		}
	}
	a.BaseRate, a.BaseFrom, a.RateChange, a.Refit = r, "observed", rc, &fit
	warnings := []string{fmt.Sprintf("the arrival process does not fit the run's arrivals (%s): the resampled seeds draw from %s instead", check, fit.Process)}
	if fit.Rejected() {
		warnings = append(warnings, fmt.Sprintf("the run's arrivals follow no single rate change either (%s): the resampled seeds draw from the closest, and may not replay the run as it was", fit))
	}
	return warnings
}
