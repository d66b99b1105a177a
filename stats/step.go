package stats

import (
	"math"
	"slices"
	"sort"
)

// StepEvent is a change of a step function: at time T its value changes by
// Delta. Deltas are integers (sessions, tokens), so sums are exact and do not
// depend on the order of events.
type StepEvent struct {
	T     float64
	Delta int64
}

// StepSeries is a right-continuous step function of time that is 0 before
// its first event: the value at t includes every event at or before t. It
// answers point values, time averages and minima over windows by binary
// search over precomputed prefix integrals.
type StepSeries struct {
	times    []float64 // distinct event times, ascending
	values   []float64 // value from times[k] until times[k+1]
	integral []float64 // ∫ from times[0] to times[k] of the function
}

// NewStepSeries builds a step function from events in any order.
func NewStepSeries(events []StepEvent) *StepSeries {
	ev := make([]StepEvent, len(events))
	copy(ev, events)
	byTime := func(a, b StepEvent) int {
		switch {
		case a.T < b.T:
			return -1
		case a.T > b.T:
			return 1
		}
		return 0
	}
	if !slices.IsSortedFunc(ev, byTime) {
		slices.SortFunc(ev, byTime)
	}
	return newStepSeriesSorted(ev)
}

// NewCountSeries builds the step function counting the intervals
// [starts[i], ends[i]) that contain t: +1 at each start, −1 at each end.
// Both slices are copied and sorted separately, which is faster than
// sorting the combined events.
func NewCountSeries(starts, ends []float64) *StepSeries {
	s := slices.Clone(starts)
	e := slices.Clone(ends)
	slices.Sort(s)
	slices.Sort(e)
	ev := make([]StepEvent, 0, len(s)+len(e))
	i, j := 0, 0
	for i < len(s) || j < len(e) {
		if j == len(e) || (i < len(s) && s[i] <= e[j]) {
			ev = append(ev, StepEvent{s[i], 1})
			i++
		} else {
			ev = append(ev, StepEvent{e[j], -1})
			j++
		}
	}
	return newStepSeriesSorted(ev)
}

// newStepSeriesSorted builds a step function from events sorted by time.
func newStepSeriesSorted(ev []StepEvent) *StepSeries {
	s := &StepSeries{times: make([]float64, 0, len(ev)), values: make([]float64, 0, len(ev))}
	var v int64
	for k := 0; k < len(ev); {
		t := ev[k].T
		for k < len(ev) && ev[k].T == t {
			v += ev[k].Delta
			k++
		}
		s.times = append(s.times, t)
		s.values = append(s.values, float64(v))
	}
	s.integral = make([]float64, len(s.times))
	for k := 1; k < len(s.times); k++ {
		s.integral[k] = s.integral[k-1] + s.values[k-1]*(s.times[k]-s.times[k-1])
	}
	return s
}

// last returns the index of the last event at or before t, or -1.
func (s *StepSeries) last(t float64) int {
	return sort.Search(len(s.times), func(k int) bool { return s.times[k] > t }) - 1
}

// At returns the value at time t.
func (s *StepSeries) At(t float64) float64 {
	k := s.last(t)
	if k < 0 {
		return 0
	}
	return s.values[k]
}

// cum returns ∫ from -∞ to t of the function.
func (s *StepSeries) cum(t float64) float64 {
	k := s.last(t)
	if k < 0 {
		return 0
	}
	return s.integral[k] + s.values[k]*(t-s.times[k])
}

// Mean returns the time average of the function over w; NaN for an empty
// window.
func (s *StepSeries) Mean(w Window) float64 {
	if !(w.Len() > 0) {
		return math.NaN()
	}
	return (s.cum(w.End) - s.cum(w.Start)) / w.Len()
}

// Min returns the smallest value the function takes in w; NaN for an empty
// window.
func (s *StepSeries) Min(w Window) float64 { return s.extreme(w, math.Min) }

// Max returns the largest value the function takes in w; NaN for an empty
// window.
func (s *StepSeries) Max(w Window) float64 { return s.extreme(w, math.Max) }

// extreme folds pick (math.Min or math.Max) over the values the function
// takes in w; NaN for an empty window.
func (s *StepSeries) extreme(w Window, pick func(a, b float64) float64) float64 {
	if !(w.Len() > 0) {
		return math.NaN()
	}
	m := s.At(w.Start)
	for k := s.last(w.Start) + 1; k < len(s.times) && s.times[k] < w.End; k++ {
		m = pick(m, s.values[k])
	}
	return m
}
