package promseries

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// This file holds the points of inputs whose samples carry their own times
// (Timelines in the package doc) and replays them as one sample per time.

// Lookback is how long a point stands for its series when other series
// have points at later times: Prometheus' default lookback delta.
const Lookback = 5 * 60 * 1e9 // nanoseconds

// Timeline collects the points of the known series of an input, in any
// order, and replays them by time.
type Timeline struct {
	files    []string // the inputs, for positions
	series   []tseries
	ids      map[string]int // series key -> index in series
	poisoned map[int64]bool // times with a rejected point
	repeats  int
}

// tseries is one series and its points.
type tseries struct {
	s         Series
	key       string
	pts       []point
	unordered bool // a point came before an earlier one
	cur       int  // replay cursor
}

// point is one value of a series. A stale point ends the series (a
// Prometheus staleness marker) until its next point.
type point struct {
	t     int64 // Unix nanoseconds
	v     float64
	line  int32
	col   int32 // of the value, 0 if unknown
	file  int32
	stale bool
}

// NewTimeline returns an empty Timeline.
func NewTimeline() *Timeline {
	return &Timeline{ids: map[string]int{}, poisoned: map[int64]bool{}}
}

// File registers an input's name for positions and returns its number.
func (tl *Timeline) File(name string) int {
	tl.files = append(tl.files, name)
	return len(tl.files) - 1
}

// Series returns the number of the series of known metric m with labels ls
// (sorted by name in place), adding it when new. keep and kvErr are
// Describe's; a series not kept has no number (-1).
func (tl *Timeline) Series(m int, ls []Label) (id int, keep bool, kvErr error) {
	s, keep, kvErr := Describe(m, ls)
	if !keep {
		return -1, false, nil
	}
	key := seriesKey(Name(m), ls)
	if id, ok := tl.ids[key]; ok {
		return id, true, kvErr
	}
	s.obs.sid = int32(len(tl.series) + 1)
	tl.series = append(tl.series, tseries{s: s, key: key, pts: getPoints()})
	tl.ids[key] = len(tl.series) - 1
	return len(tl.series) - 1, true, kvErr
}

// Metric returns the number of the metric of series id.
func (tl *Timeline) Metric(id int) int { return tl.series[id].s.obs.metric }

// Len returns the number of points of series id, 0 for no series (-1).
func (tl *Timeline) Len(id int) int {
	if id < 0 {
		return 0
	}
	return len(tl.series[id].pts)
}

// Reserve makes room for n more points of series id.
func (tl *Timeline) Reserve(id, n int) {
	s := &tl.series[id]
	s.pts = slices.Grow(s.pts, n)
}

// Check returns why value v of series id cannot be used (Series.At), or
// nil.
func (tl *Timeline) Check(id int, v float64) error {
	return checkValue(tl.series[id].s.obs.metric, v)
}

// Add records value v of series id at Unix time t (nanoseconds), read at
// line and column col (1-based, 0 unknown) of file. A point at the time of the series' previous point is kept
// once when it has the same value (Info.Repeats) and is an error
// otherwise, without a position: the caller adds it.
func (tl *Timeline) Add(id int, t int64, v float64, stale bool, file, line, col int) error {
	s := &tl.series[id]
	if n := len(s.pts); n > 0 {
		last := &s.pts[n-1]
		switch {
		case t == last.t:
			return tl.same(s, last, v, stale)
		case t < last.t:
			s.unordered = true
		}
	}
	s.pts = append(s.pts, point{t: t, v: v, line: int32(line), col: int32(col), file: int32(file), stale: stale})
	return nil
}

// same handles a second point of series s at the time of point p.
func (tl *Timeline) same(s *tseries, p *point, v float64, stale bool) error {
	// Two NaNs are one value given twice: a NaN gauge is an unknown
	// figure, not an error (checkValue), and NaN != NaN.
	if p.stale == stale && (stale || p.v == v || math.IsNaN(p.v) && math.IsNaN(v)) {
		tl.repeats++
		return nil
	}
	return fmt.Errorf("%s has two values at one time: %s (%s) and %s",
		Name(s.s.obs.metric), showValue(p.v, p.stale), tl.pos(p), showValue(v, stale))
}

func showValue(v float64, stale bool) string {
	if stale {
		return "a staleness marker"
	}
	return fmt.Sprint(v)
}

func (tl *Timeline) pos(p *point) textpos.Pos {
	return textpos.Pos{File: tl.files[p.file], Line: int(p.line)}
}

// Poison leaves out every point at Unix time t (nanoseconds): a point
// there was rejected, and as a bad line rejects its whole scrape in a
// marked dump, the samples at its time are not used, so that the series
// that lost a point does not look as if it vanished.
func (tl *Timeline) Poison(t int64) { tl.poisoned[t] = true }

// Replay returns a reader of one sample per time through b: first errs
// (the errors found while reading, in input order), then those found on
// sorting the points, then the samples in time order.
func (tl *Timeline) Replay(b *Builder, errs []error) *Replay {
	errs = append(errs, tl.sort()...)
	b.Repeated(tl.repeats)
	b.fromExport = true
	var times, buf []int64
	for i := range tl.series {
		s := &tl.series[i]
		if len(tl.poisoned) > 0 {
			s.pts = slices.DeleteFunc(s.pts, func(p point) bool { return tl.poisoned[p.t] })
		}
		times, buf = union(times, s.pts, buf), times
	}
	return &Replay{errs: errs, tl: tl, b: b, times: times}
}

// union returns the sorted distinct times of a (sorted, distinct) and of
// the points pts other than staleness markers (sorted), in buf's memory.
// The series of an export mostly share their times, so merging each into
// the union costs less than sorting every point's time.
func union(a []int64, pts []point, buf []int64) []int64 {
	out := buf[:0]
	i := 0
	for _, p := range pts {
		if p.stale {
			continue
		}
		for i < len(a) && a[i] < p.t {
			out = append(out, a[i])
			i++
		}
		if i < len(a) && a[i] == p.t {
			i++
		}
		if n := len(out); n == 0 || out[n-1] != p.t {
			out = append(out, p.t)
		}
	}
	return append(out, a[i:]...)
}

// sort orders the points of every series by time, reporting two points at
// one time that disagree (and leaving out that time, as Add's caller does),
// and keeping one of those that agree.
func (tl *Timeline) sort() []error {
	var errs []error
	for i := range tl.series {
		s := &tl.series[i]
		if !s.unordered {
			continue
		}
		slices.SortStableFunc(s.pts, func(a, b point) int { return cmp.Compare(a.t, b.t) })
		out := s.pts[:1]
		for _, p := range s.pts[1:] {
			last := &out[len(out)-1]
			if p.t != last.t {
				out = append(out, p)
				continue
			}
			if err := tl.same(s, last, p.v, p.stale); err != nil {
				errs = append(errs, &textpos.ParseError{Pos: tl.pos(&p), Column: int(p.col), Err: err})
				tl.Poison(p.t)
			}
		}
		s.pts = out
	}
	return errs
}

// Replay reads a Timeline back as samples (Timeline.Replay).
type Replay struct {
	errs  []error
	tl    *Timeline
	b     *Builder
	times []int64
	next  int
	obs   []Obs
	ids   []int
}

// Next returns the next error, then the next sample, then io.EOF.
func (r *Replay) Next() (schema.EngineSample, error) {
	if len(r.errs) > 0 {
		err := r.errs[0]
		r.errs = r.errs[1:]
		return schema.EngineSample{}, err
	}
	if r.next == len(r.times) {
		r.tl.release()
		return schema.EngineSample{}, io.EOF
	}
	t := r.times[r.next]
	r.next++
	var line int
	r.obs, r.ids, line = r.tl.at(t, r.obs, r.ids)
	return r.b.Build(floorDiv(t, 1e9), floorMod(t, 1e9), line, r.obs)
}

// at sets obs to each series' observation at time t: its latest point at
// or before t, unless that is a staleness marker or older than Lookback.
// ids are the numbers of the series in obs, kept between calls: when the
// same series are there as at the previous time, only their values
// change. It returns them with the first input line of a point at t.
func (tl *Timeline) at(t int64, obs []Obs, ids []int) ([]Obs, []int, int) {
	line, file, n := 0, 0, 0
	for i := range tl.series {
		s := &tl.series[i]
		for s.cur+1 < len(s.pts) && s.pts[s.cur+1].t <= t {
			s.cur++
		}
		if len(s.pts) == 0 {
			continue
		}
		p := &s.pts[s.cur]
		if p.t > t || p.stale || t-p.t > Lookback {
			continue
		}
		if p.t == t && (line == 0 || int(p.file) < file || int(p.file) == file && int(p.line) < line) {
			line, file = int(p.line), int(p.file)
		}
		// The value was checked by the reader (Check).
		if n < len(ids) && ids[n] == i {
			obs[n].value = p.v
		} else {
			obs, ids = append(obs[:n], s.s.obs), append(ids[:n], i)
			obs[n].value = p.v
		}
		n++
	}
	return obs[:n], ids[:n], line
}

// pointBuffers holds the point slices of replayed timelines for the next
// timeline's series: a query_range answer of a few hours holds a megabyte
// of points, which allocating and clearing anew for every input was a
// tenth of reading it.
var pointBuffers sync.Pool // of *[]point

func getPoints() []point {
	if p, ok := pointBuffers.Get().(*[]point); ok {
		return (*p)[:0]
	}
	return nil
}

// release gives the series' points back once the replay is done with
// them; the timeline holds none after.
func (tl *Timeline) release() {
	for i := range tl.series {
		if pts := tl.series[i].pts; cap(pts) > 0 {
			pts = pts[:0]
			pointBuffers.Put(&pts)
		}
		tl.series[i].pts = nil
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}
