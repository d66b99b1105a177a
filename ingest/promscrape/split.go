package promscrape

import (
	"bytes"

	"github.com/outlast-dev/outlast/ingest/internal/promseries"
	"github.com/outlast-dev/outlast/textpos"
)

// This file splits the input into scrapes, one line at a time (Splitting in
// the package doc), and keeps of a scrape with a header only the lines of
// the known metrics (Filtering).

// rawLine is an owned copy of an input line.
type rawLine struct {
	no int
	b  []byte
}

// nameState records the HELP and TYPE lines of a metric name by chunk
// generation, so names repeated in every scrape are not reallocated.
type nameState struct {
	name  string
	known bool // promseries.Known(name)
	// header: its HELP and TYPE lines are kept, those of a known metric
	// other than a counter's _created series (whose samples alone are
	// read, typed or not: that saves a third of the kept lines of a vLLM
	// scrape).
	header           bool
	helpGen, typeGen uint64
	// declares is the known metric a TYPE line of this name declares, -1
	// for none: the sample name, or for an OpenMetrics counter family
	// (named without "_total") its counter's.
	declares int
}

// nameOrder remembers the order in which the HELP and TYPE lines of a
// scrape named their metrics. An exporter writes the same families in the
// same order in every scrape, so the next line's name is most often the
// one that came at its place in the scrape before, found by comparing
// instead of hashing: the lookup was a sixth of the splitter's time.
type nameOrder struct {
	seq []*nameState
	pos int // in seq, of the current scrape's next HELP or TYPE line
}

// maxNameOrder bounds nameOrder.seq: past it, names are looked up.
const maxNameOrder = 4096

// nameState returns the state of the metric named by a HELP or TYPE line.
func (r *Reader) nameState(name []byte) *nameState {
	o := &r.order
	if o.pos < len(o.seq) {
		if st := o.seq[o.pos]; st.name == string(name) {
			o.pos++
			return st
		}
		o.seq = o.seq[:o.pos] // the order changed: learn it again from here
	}
	st := r.names[string(name)]
	if st == nil {
		m := promseries.Lookup(name)
		st = &nameState{name: string(name), known: m >= 0, header: m >= 0 && !promseries.Created(m), declares: m}
		if m < 0 {
			st.declares = promseries.Lookup(append([]byte(st.name), "_total"...))
		}
		r.names[st.name] = st
	}
	if o.pos == len(o.seq) && len(o.seq) < maxNameOrder {
		o.seq = append(o.seq, st)
		o.pos++
	}
	return st
}

// chunk is the scrape being read: a run of consecutive input lines.
type chunk struct {
	first     int  // line number of the first line; 0: nothing read yet
	header    bool // started by a "# scrape" line
	sec, nsec int64
	timeCol   int // the column of the header's time
	// declared marks the known metrics whose TYPE line the chunk holds,
	// with or without samples (promseries.Builder.Declare), once a line
	// follows it: a TYPE line that ends the input may have lost its
	// samples to a cut (a paste, a killed scraper), so it declares
	// nothing. pending is the metric of such a last TYPE line, plus 1.
	declared [promseries.NumMetrics]bool
	pending  int
	text     []byte
	// nos numbers the lines of text when they are not consecutive: in a
	// chunk with a header only the lines of the known metrics are kept.
	nos []int
	err *textpos.ParseError
}

// lineNo returns the input line of the k-th (0-based) line of c.text.
func (c *chunk) lineNo(k int) int {
	if !c.header {
		return c.first + k
	}
	if k >= 0 && k < len(c.nos) {
		return c.nos[k]
	}
	return c.first
}

// splitNext returns the next scrape split off the input, nil at the end. It
// runs on the splitting goroutine (parallel.go).
func (r *Reader) splitNext() *scrape {
	for !r.done {
		r.reset()
		r.fill()
		if r.c.first == 0 {
			if r.ended {
				r.done = true
			}
			continue
		}
		// The scrape takes r.c's buffers, and r.c those the scrape had.
		j := r.newScrape()
		text, nos := j.c.text, j.c.nos
		j.c = r.c
		r.c.text, r.c.nos = text[:0], nos[:0]
		j.truncLine, j.name = r.truncLine, r.lr.Name()
		return j
	}
	return nil
}

// newScrape returns a scrape Next is done with, its buffers kept and the
// rest cleared, or a new one: a metrics file is thousands of scrapes of
// some 20 KB each, and copying each into new buffers was a quarter of
// the splitter's time.
func (r *Reader) newScrape() *scrape {
	select {
	case j := <-r.free:
		*j = scrape{c: chunk{text: j.c.text, nos: j.c.nos}, obs: j.obs[:0], sem: j.sem[:0]}
		return j
	default:
		return &scrape{}
	}
}

// recycle gives back a scrape Next is done with.
func (r *Reader) recycle(j *scrape) {
	clear(j.sem) // drop the errors' lines
	select {
	case r.free <- j:
	default:
	}
}

func (r *Reader) reset() {
	c := &r.c
	c.first, c.header, c.err = 0, false, nil
	c.declared, c.pending = [promseries.NumMetrics]bool{}, 0
	c.text = c.text[:0]
	c.nos = c.nos[:0]
	r.gen++
	r.order.pos = 0
	if len(r.names) > 1<<16 { // bound memory on inputs with ever-new names
		clear(r.names)
		r.order.seq = r.order.seq[:0]
	}
}

// fill reads lines into the current chunk until the next one begins.
func (r *Reader) fill() {
	for {
		var no int
		var b []byte
		if r.carry != nil {
			no, b = r.carry.no, r.carry.b
			r.carry = nil
		} else {
			if r.ended || !r.lr.Next() {
				if !r.ended && r.lr.Truncated() {
					r.truncLine = r.lr.Pos().Line
				}
				r.ended = true
				return
			}
			no, b = r.lr.Pos().Line, r.lr.Bytes()
		}
		if r.line(no, b) {
			return
		}
	}
}

// split ends the current chunk: line no begins the next one.
func (r *Reader) split(no int, b []byte) bool {
	// The line is copied into the chunk as it is read again, so one
	// buffer serves every chunk's first line.
	r.carried = rawLine{no, append(r.carried.b[:0], b...)}
	r.carry = &r.carried
	return true
}

func (r *Reader) fail(no, col int, b []byte, err error) {
	if r.c.err == nil {
		r.c.err = &textpos.ParseError{Pos: textpos.Pos{File: r.lr.Name(), Line: no}, Column: col, Raw: append([]byte(nil), b...), Err: err}
	}
}

// line adds one line to the chunk, reporting whether it begins the next.
func (r *Reader) line(no int, b []byte) bool {
	c := &r.c
	if c.pending > 0 { // a line follows the last TYPE line
		c.declared[c.pending-1], c.pending = true, 0
	}
	i := skipBlank(b, 0)
	if i == len(b) || b[i] == '#' {
		kind := commentPlain
		if i < len(b) {
			cm := &r.cm
			col, err := scanComment(b, i, cm)
			kind = cm.kind
			switch {
			case kind == commentScrape && c.first != 0:
				return r.split(no, b) // a bad scrape line still starts a scrape
			case err != nil:
				c.first = no
				r.fail(no, col, b, err)
				m := promseries.Lookup(cm.name) // as a line without error
				r.header = m >= 0 && !promseries.Created(m)
			case kind == commentScrape:
				c.first, c.header, c.sec, c.nsec, c.timeCol = no, true, cm.sec, cm.nsec, cm.col
			case kind == commentHelp || kind == commentType:
				st := r.nameState(cm.name)
				if kind == commentType && st.declares >= 0 {
					c.pending = st.declares + 1
				}
				r.header, r.last = st.header, st
				gen := &st.helpGen
				if kind == commentType {
					gen = &st.typeGen
				}
				if *gen == r.gen {
					return r.split(no, b) // expfmt allows one per chunk
				}
				*gen = r.gen
			}
		}
		if c.first == 0 {
			if kind == commentPlain {
				return false // a scrape begins with a line that is its own
			}
			c.first = no
		}
	} else if c.first == 0 {
		c.first = no
	}
	if c.header {
		// Only the families read are parsed (Filtering in the package doc).
		if !r.keep(b, i) {
			return false
		}
		c.nos = append(c.nos, no)
	}
	c.text = append(append(c.text, b...), '\n')
	return false
}

// keep reports whether line b of a chunk with a header goes to expfmt:
// the HELP and TYPE lines and samples of the known metrics, a sample whose
// name is quoted (a UTF-8 name inside the braces), and the input's cut
// last line, whose error the reader reports.
func (r *Reader) keep(b []byte, i int) bool {
	if r.lr.Truncated() {
		return true // only ever true for the last line read
	}
	if i == len(b) {
		return false
	}
	if b[i] == '#' {
		k := r.cm.kind
		return (k == commentHelp || k == commentType) && r.header
	}
	if b[i] == '{' {
		return true
	}
	// Samples follow their family's HELP and TYPE lines: if the line's
	// name is the last one those named, its answer is known.
	if st := r.last; st != nil {
		if n := len(st.name); len(b)-i > n && string(b[i:i+n]) == st.name && !isNameChar(b[i+n]) {
			return st.known
		}
	}
	j := i
	for j < len(b) && isNameChar(b[j]) {
		j++
	}
	return promseries.Known(b[i:j])
}

// rawLine returns a copy of line no of the chunk, nil if it has none.
func (c *chunk) rawLine(no int) []byte {
	rest := c.text
	for k := 0; len(rest) > 0; k++ {
		i := bytes.IndexByte(rest, '\n')
		if c.lineNo(k) == no {
			return append([]byte(nil), rest[:i]...)
		}
		rest = rest[i+1:]
	}
	return nil
}
