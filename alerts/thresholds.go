package alerts

import (
	"errors"
	"fmt"
	"math"

	"github.com/outlast-dev/outlast/stats"
)

// Threshold is one number of the rules and where it came from.
type Threshold struct {
	Value float64
	// Source says where Value came from, in a sentence the rule file and
	// the dashboard carry.
	Source string
}

// Thresholds are the numbers the alerts compare against.
type Thresholds struct {
	// DegradedHit: a 5-minute hit ratio below it is degraded.
	DegradedHit Threshold
	// HealthyHit: a hit ratio at or above it is healthy. The alerts judge
	// only an engine whose 5-minute ratio reached it within
	// HealthyLookbackS; the dashboard draws it.
	HealthyHit Threshold
	// MinLoad is the mean number of requests running and waiting, over 5
	// minutes, below which the engine is not judged: an engine that
	// seldom holds a request has no contention for its cache, and its
	// low hit ratio is its workload's reuse, not a collapse.
	MinLoad Threshold
}

// The windows are the paper's and are not taken from data: the hit ratio
// over its 5-minute analysis window (§3), and the hold, a further 5
// minutes, so that the alert fires when the two latest 5-minute windows
// are both degraded: the batch rule ("every window from the first degraded
// one to the end is degraded") as far as a live rule can see.
const (
	WindowS = stats.AnalysisWindowS
	HoldS   = stats.AnalysisWindowS
)

// HealthyLookbackS is how far back the alerts look for a healthy 5-minute
// hit ratio. The regime is a fall from a healthy state that does not come
// back; a server whose ratio stays low without ever having been healthy
// serves a workload that reuses little (a fresh document in every
// request, single-turn sessions), which the paper's thresholds do not
// judge (the report's low-peak-hit finding), and it is not alerted. A
// day: longer than any collapse the paper saw, short enough that a
// server whose workload changed to one that reuses little stops firing
// within it.
const HealthyLookbackS = 24 * 3600

// Paper returns the paper's thresholds.
func Paper() Thresholds {
	return Thresholds{
		DegradedHit: Threshold{stats.DegradedHit, "the paper's (§3: a 5-minute window whose token-weighted hit ratio is below 0.5 is degraded)"},
		HealthyHit:  Threshold{stats.RecoveredHit, "the paper's (§6: a window at or above 0.8 counts as recovered)"},
		MinLoad:     Threshold{1, "outlast's (below one request in the engine on average there is no contention for the cache, and a low hit ratio is the workload's own reuse)"},
	}
}

// Run classes FromRuns takes.
const (
	ClassPersistent    = "persistent"
	ClassNeverDegraded = "never-degraded"
)

// RunWindows is one judged run's 5-minute engine hit ratios, as the batch
// verdict judged them: for a persistent run, its windows from the first
// degraded one to the end; for a never-degraded run, its windows from the
// reference time (the trigger's end) on. A window without a ratio is NaN.
type RunWindows struct {
	Run   string
	Class string // ClassPersistent or ClassNeverDegraded
	Hits  []float64
}

// ErrNoSeparation is wrapped by FromRuns' errors when the runs cannot give
// a threshold: no run of a class, or ratios of the two classes that
// overlap.
var ErrNoSeparation = errors.New("no separation between healthy and persistent runs")

// FromRuns takes the degraded threshold from the separation between the
// runs' classes: midway between the highest 5-minute engine hit ratio of
// the persistent runs (from their first degraded window on) and the lowest
// of the never-degraded runs (from their reference time on), rounded to
// two decimals inside that gap. dataset names where the runs came from,
// for the threshold's Source. The other thresholds stay the paper's.
func FromRuns(dataset string, runs []RunWindows) (Thresholds, error) {
	th := Paper()
	hiP, loH := extreme{v: math.Inf(-1)}, extreme{v: math.Inf(1)}
	var nP, nH int
	for _, r := range runs {
		var seen bool
		for _, h := range r.Hits {
			if math.IsNaN(h) {
				continue
			}
			seen = true
			switch r.Class {
			case ClassPersistent:
				hiP.keep(h, r.Run, h > hiP.v)
			case ClassNeverDegraded:
				loH.keep(h, r.Run, h < loH.v)
			}
		}
		if !seen {
			continue
		}
		switch r.Class {
		case ClassPersistent:
			nP++
		case ClassNeverDegraded:
			nH++
		}
	}
	if nP == 0 || nH == 0 {
		return th, fmt.Errorf("%w: %s has %d persistent and %d never-degraded runs with an engine hit ratio; both are needed", ErrNoSeparation, dataset, nP, nH)
	}
	if hiP.v >= loH.v {
		return th, fmt.Errorf("%w: in %s a persistent run's 5-minute engine hit ratio (%.3f, %s) reaches a never-degraded run's (%.3f, %s)",
			ErrNoSeparation, dataset, hiP.v, hiP.run, loH.v, loH.run)
	}
	v := math.Round((hiP.v+loH.v)/2*100) / 100
	if v <= hiP.v || v > loH.v {
		v = (hiP.v + loH.v) / 2 // a gap narrower than the rounding
	}
	th.DegradedHit = Threshold{v, fmt.Sprintf("from %s: midway between the highest 5-minute engine hit ratio of its %d persistent runs from their first degraded window on (%.3f, %s) and the lowest of its %d never-degraded runs from their reference time on (%.3f, %s)",
		dataset, nP, hiP.v, hiP.run, nH, loH.v, loH.run)}
	return th, nil
}

// extreme is the highest or lowest ratio seen and the run it came from.
type extreme struct {
	v   float64
	run string
}

func (x *extreme) keep(v float64, run string, better bool) {
	if better || (v == x.v && run < x.run) {
		x.v, x.run = v, run
	}
}
