package promscrape

import (
	"bytes"
	"runtime"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/outlast-dev/outlast/ingest/internal/ordered"
	"github.com/outlast-dev/outlast/ingest/internal/promseries"
	"github.com/outlast-dev/outlast/textpos"
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
	obs       []promseries.Obs
	synErr    *textpos.ParseError   // expfmt's error
	sem       []*textpos.ParseError // this package's errors, in series order
}

// parser is one goroutine's expfmt state.
type parser struct {
	p  expfmt.TextParser
	rd bytes.Reader
	ls []promseries.Label
	fs fastState
}

func (r *Reader) start() *ordered.Pipeline[*scrape] {
	split := func() (*scrape, bool) {
		j := r.splitNext()
		return j, j != nil
	}
	return ordered.Start(runtime.GOMAXPROCS(0), split, func() func(*scrape) {
		ps := &parser{p: expfmt.NewTextParser(model.UTF8Validation)}
		return func(j *scrape) {
			if j.c.err == nil {
				ps.parse(j)
			}
		}
	})
}

// Close stops reading: the goroutines end, and the line reader may be
// closed. It is needed only when Next has not returned io.EOF.
func (r *Reader) Close() {
	if r.pipe != nil {
		r.pipe.Stop()
	}
}
