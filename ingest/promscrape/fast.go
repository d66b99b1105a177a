package promscrape

import (
	"bytes"

	"github.com/outlast-dev/outlast/ingest/internal/promseries"
)

// This file is the fast path of parse: a scrape whose kept lines all have
// the plain shapes of fastline.go is read in one pass, without expfmt's
// allocations per label and per sample. It gives the observations expfmt's
// path would; anything else — a line of another shape, a second HELP or
// TYPE, a TYPE after samples, a value outlast refuses, a bad
// cache_config_info — sends the whole scrape to expfmt, which alone
// decides errors and their lines (TestFastSameAsExpfmt, FuzzFast).

// fastState is the fast path's reusable state, one per parser.
type fastState struct {
	fams    [promseries.NumMetrics]fastFamily
	samples []fastSampleAt
	spans   []labelSpan
	series  describedCache
}

// fastFamily is what a scrape has said of one known metric so far.
type fastFamily struct {
	help, typed bool
	head, tail  int // its samples in input order, through next; -1: none
}

// fastSampleAt is one sample line: its series and value.
type fastSampleAt struct {
	d    *described
	v    float64
	next int
}

// fast reads scrape j's kept lines if they all have the plain shapes,
// filling j.obs as parse would; false leaves j untouched for expfmt.
func (ps *parser) fast(j *scrape) bool {
	f := &ps.fs
	for m := range f.fams {
		f.fams[m] = fastFamily{head: -1, tail: -1}
	}
	f.samples = f.samples[:0]
	f.series.pos = 0
	rest := j.c.text
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return false // the splitter ends every line; be safe anyway
		}
		if !f.line(rest[:i]) {
			return false
		}
		rest = rest[i+1:]
	}
	return ps.fastObs(j)
}

// line takes one kept line, reporting whether it has a plain shape and
// expfmt would take it without error where it stands.
func (f *fastState) line(b []byte) bool {
	if len(b) > 0 && b[0] == '#' {
		kind, m := fastComment(b)
		fam := &f.fams[m]
		switch {
		case kind == fastHelp && !fam.help:
			fam.help = true
		case kind == fastType && !fam.typed && fam.head < 0:
			fam.typed = true
		default:
			return false // another line, or an expfmt error: a second HELP or TYPE, a TYPE after samples
		}
		return true
	}
	d, end := f.series.next(b)
	var v float64
	var ok bool
	if d != nil {
		v, ok = fastValue(b, end)
	} else {
		var nameEnd int
		var spans []labelSpan
		nameEnd, end, spans, v, ok = fastSample(b, f.spans[:0])
		f.spans = spans
		if ok {
			d = f.series.get(b[:end], b, nameEnd, spans)
			f.series.place(b[:end], d)
		}
	}
	if !ok {
		return false
	}
	if d.m < 0 {
		// Lookup rejects the names outlast does not read; none of the
		// names it knows ends in _sum, _count or _bucket, so expfmt never
		// files one under a summary or histogram (TestFastKnownNames).
		return false
	}
	fam := &f.fams[d.m]
	k := len(f.samples)
	f.samples = append(f.samples, fastSampleAt{d: d, v: v, next: -1})
	if fam.head < 0 {
		fam.head = k
	} else {
		f.samples[fam.tail].next = k
	}
	fam.tail = k
	return true
}

// fastObs turns the samples into j.obs as parse does: the known metrics in
// table order, each family's samples in input order. A series with an
// error sends the scrape to expfmt, which locates it.
func (ps *parser) fastObs(j *scrape) bool {
	f := &ps.fs
	obs := j.obs[:0]
	for m := range promseries.NumMetrics {
		for k := f.fams[m].head; k >= 0; k = f.samples[k].next {
			sa := &f.samples[k]
			if !sa.d.keep {
				continue
			}
			o, err := sa.d.s.At(sa.v)
			if err != nil || sa.d.kvErr != nil {
				return false
			}
			if obs == nil { // room for them all at once, not by doubling
				obs = make([]promseries.Obs, 0, len(f.samples))
			}
			obs = append(obs, o)
		}
	}
	j.obs = obs
	return true
}
