package promscrape

import (
	"bytes"
	"runtime"
	"sync"

	"github.com/outlast-dev/outlast/textpos"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scrapes are parsed in parallel: one goroutine splits the input into
// scrapes (Reader.splitNext, which must see every line in order),
// GOMAXPROCS goroutines run expfmt over them (parser.parse), and Next
// takes them in input order for what depends on the previous scrape
// (counter deltas, the KV pool, the scrape-time order).

// scrape is one scrape on its way through the pipeline.
type scrape struct {
	c         chunk
	name      string // the input's name, for positions
	truncLine int    // the input's cut last line, if known when split
	obs       []obs
	synErr    *textpos.ParseError // expfmt's error
	sem       []lineErr           // this package's errors, in series order
	done      chan struct{}       // closed once parsed
}

// parser is one goroutine's expfmt state.
type parser struct {
	p  expfmt.TextParser
	rd bytes.Reader
	ls []label
}

type pipeline struct {
	order chan *scrape
	jobs  chan *scrape
	quit  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
}

func (r *Reader) start() *pipeline {
	workers := runtime.GOMAXPROCS(0)
	p := &pipeline{
		// Bounded: splitting runs at most a few scrapes ahead.
		order: make(chan *scrape, 2*workers),
		jobs:  make(chan *scrape, workers),
		quit:  make(chan struct{}),
	}
	p.wg.Add(1 + workers)
	go func() {
		defer p.wg.Done()
		defer close(p.order)
		defer close(p.jobs)
		for {
			j := r.splitNext()
			if j == nil {
				return
			}
			select {
			case p.order <- j:
			case <-p.quit:
				return
			}
			select {
			case p.jobs <- j:
			case <-p.quit:
				return
			}
		}
	}()
	for range workers {
		go func() {
			defer p.wg.Done()
			ps := &parser{p: expfmt.NewTextParser(model.UTF8Validation)}
			for j := range p.jobs {
				if j.c.err == nil {
					ps.parse(j)
				}
				close(j.done)
			}
		}()
	}
	return p
}

// next returns the next scrape once parsed, nil after the last.
func (p *pipeline) next() *scrape {
	j, ok := <-p.order
	if !ok {
		return nil
	}
	<-j.done
	return j
}

// stop ends the goroutines early and waits for them.
func (p *pipeline) stop() {
	p.once.Do(func() { close(p.quit) })
	go func() {
		for range p.order {
		}
	}()
	p.wg.Wait()
}

// Close stops reading: the goroutines end, and the line reader may be
// closed. It is needed only when Next has not returned io.EOF.
func (r *Reader) Close() {
	if r.pipe != nil {
		r.pipe.stop()
	}
}
