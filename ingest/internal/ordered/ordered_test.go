package ordered

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// TestOrder works on jobs that take random times on several workers and
// checks that they come back in input order, each worked on once.
func TestOrder(t *testing.T) {
	for _, workers := range []int{1, 2, 7} {
		const n = 500
		type job struct{ i, worked int }
		i := 0
		p := Start(workers, func() (*job, bool) {
			if i == n {
				return nil, false
			}
			i++
			return &job{i: i}, true
		}, func() func(*job) {
			rng := rand.New(rand.NewPCG(uint64(workers), 1))
			return func(j *job) {
				time.Sleep(time.Duration(rng.IntN(50)) * time.Microsecond)
				j.worked++
			}
		})
		for want := 1; want <= n; want++ {
			j, ok := p.Next()
			if !ok || j.i != want || j.worked != 1 {
				t.Fatalf("%d workers: job %+v, %v; want job %d worked on once", workers, j, ok, want)
			}
		}
		if _, ok := p.Next(); ok {
			t.Fatalf("%d workers: a job after the last", workers)
		}
		p.Stop()
	}
}

// TestStopEarly stops a pipeline whose input does not end after one job:
// Stop returns, nothing is called after it, and a second Stop is harmless.
func TestStopEarly(t *testing.T) {
	var calls atomic.Int64
	p := Start(3, func() (int, bool) { calls.Add(1); return 0, true },
		func() func(int) { return func(int) { calls.Add(1) } })
	if _, ok := p.Next(); !ok {
		t.Fatal("no first job")
	}
	p.Stop()
	after := calls.Load()
	time.Sleep(time.Millisecond)
	if calls.Load() != after {
		t.Error("next or work called after Stop returned")
	}
	p.Stop()
}
