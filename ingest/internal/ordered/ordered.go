// Package ordered works on a sequence of jobs on several goroutines and
// hands them back in input order. The readers of large inputs use it: one
// goroutine cuts the input into jobs (chunks of lines, scrapes), which must
// see every line in order; the workers parse the jobs; the consumer takes
// them in order, for positions and for what depends on the previous job.
package ordered

import "sync"

// Pipeline is a running pipeline of jobs of type J.
type Pipeline[J any] struct {
	order chan slot[J] // jobs in input order, worked on or not yet
	jobs  chan slot[J]
	quit  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
}

// slot is a job on its way through the pipeline.
type slot[J any] struct {
	job  J
	done chan struct{} // closed once worked on
}

// Start runs next on one goroutine, which makes the jobs in input order
// until it reports false, and workers goroutines that each get their own
// work function from newWorker (for state of their own, such as a parser)
// and call it on jobs as they come. Reading stays at most a few jobs ahead
// of the consumer, so memory does not grow with the input.
func Start[J any](workers int, next func() (J, bool), newWorker func() func(J)) *Pipeline[J] {
	p := &Pipeline[J]{
		order: make(chan slot[J], 2*workers),
		jobs:  make(chan slot[J], workers),
		quit:  make(chan struct{}),
	}
	p.wg.Add(1 + workers)
	go p.produce(next)
	for range workers {
		go func(work func(J)) {
			defer p.wg.Done()
			for s := range p.jobs {
				work(s.job)
				close(s.done)
			}
		}(newWorker())
	}
	return p
}

func (p *Pipeline[J]) produce(next func() (J, bool)) {
	defer p.wg.Done()
	defer close(p.order)
	defer close(p.jobs)
	for {
		j, ok := next()
		if !ok {
			return
		}
		s := slot[J]{j, make(chan struct{})}
		select {
		case p.order <- s:
		case <-p.quit:
			return
		}
		select {
		case p.jobs <- s:
		case <-p.quit:
			return
		}
	}
}

// Next returns the next job once worked on, and false after the last.
func (p *Pipeline[J]) Next() (J, bool) {
	s, ok := <-p.order
	if !ok {
		var zero J
		return zero, false
	}
	<-s.done
	return s.job, true
}

// Stop ends the goroutines early and waits for them; calling it again does
// nothing. Once it returns, next and the work functions are no longer
// called, and Next must not be.
func (p *Pipeline[J]) Stop() {
	p.once.Do(func() { close(p.quit) })
	// Drain what was already queued so that no goroutine blocks.
	go func() {
		for range p.order {
		}
	}()
	p.wg.Wait()
}
