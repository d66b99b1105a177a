// Package promscrape reads metrics.prom, a file of concatenated Prometheus
// text-format scrapes of a vLLM or SGLang /metrics endpoint, and turns each
// scrape into one schema.EngineSample: the load gauges as scraped and the
// cumulative counters as deltas since the previous scrape.
//
// Splitting. A scrape starts at a "# scrape <unix seconds>" comment, which
// gives its time. Input without such lines may carry millisecond sample
// timestamps instead: consecutive samples with one timestamp form a scrape
// (the HELP/TYPE lines just before a sample move with it). As a fallback, a
// HELP or TYPE line for a name already seen in the current scrape starts a
// new one; such a scrape needs sample timestamps to have a time.
//
// Parsing. The lines of one scrape go to expfmt's text parser in one call:
// splitting first is what lets it parse concatenated scrapes, since it
// rejects a second HELP or TYPE for a name and would merge the histograms
// of different scrapes. Its errors, numbered from the scrape's first line,
// are moved to the file's line. Metric names may be UTF-8.
//
// Filtering. expfmt allocates for every line it parses, and most of a
// scrape is families outlast does not read (Python, process and HTTP
// metrics, histograms). In a scrape started by a "# scrape" line only the
// HELP, TYPE and sample lines of the known metrics go to expfmt, so
// everything stored is still parsed by expfmt, but lines of other families
// are not syntax-checked: a malformed line there is not an error. The
// splitter still sees every line, so scrapes split as before, and errors
// keep their file lines. Scrapes without a "# scrape" line are parsed
// whole, since their lines may move to the next scrape.
//
// Several engines and ranks. Series are summed (counts, counters) or
// averaged (KV usage) over data-parallel replicas (vLLM label engine, SGLang
// dp_rank). SGLang repeats scheduler metrics once per tensor/pipeline/expert
// rank, all describing the same batch, so only series whose tp_rank, pp_rank
// and moe_ep_rank labels are absent or "0" are used; summing them would count
// each request once per rank.
//
// Counters. A delta needs the counter in this scrape and in the previous
// recognised one; a series new since then counts from zero (SGLang creates
// labelled series on first use). A series that went down or disappeared
// means the engine restarted: the scrape gets CounterReset and no deltas.
// SGLang's cached_tokens_total{cache_source} is summed over the device, host
// and storage_* tiers (any value but "total") when any of them is present,
// else its "total" series is used, so no token is counted twice.
package promscrape

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/textpos"

	"github.com/prometheus/common/expfmt"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/schema"
)

// Options configures a Reader.
type Options struct {
	T0 time.Time // the run's t=0: sample time - T0 = run seconds
}

// Info summarises what a Reader has read so far.
type Info struct {
	Engine        string  // "vllm" | "sglang" | "" (no known metric seen)
	KVPoolTokens  int64   // KV pool size from the first scrape that gave it, 0 if none did
	Scrapes       int     // scrapes returned as samples
	CounterResets int     // scrapes where a counter went down (engine restart)
	FirstS, LastS float64 // run seconds of the first and last scrape returned; NaN if none
	Unrecognised  int     // scrapes with none of the known metrics
}

// Fields of an EngineSample that a metric feeds.
const (
	fRunning = iota
	fWaiting
	fKV
	fQueries
	fHits
	fPrompt
	fGen
	fPreempt
	nFields
	nGauges = fQueries // fields before it are gauges, the rest counters
)

// Known metric names, numbered.
const (
	mVRunning = iota
	mSRunning
	mVWaiting
	mSWaiting
	mVKV
	mVKVOld
	mSKV
	mVQueries
	mVQueriesOld
	mVHits
	mVHitsOld
	mSHits
	mVPrompt
	mSPrompt
	mVGen
	mSGen
	mVPreempt
	mSPreempt
	mVCacheConfig
	mSMaxTokens
	nMetrics
)

// metricNames are the sample names of the known metrics.
var metricNames = [nMetrics]string{
	mVRunning:     "vllm:num_requests_running",
	mSRunning:     "sglang:num_running_reqs",
	mVWaiting:     "vllm:num_requests_waiting",
	mSWaiting:     "sglang:num_queue_reqs",
	mVKV:          "vllm:kv_cache_usage_perc",
	mVKVOld:       "vllm:gpu_cache_usage_perc", // before ≈v0.10; a fraction too
	mSKV:          "sglang:token_usage",
	mVQueries:     "vllm:prefix_cache_queries_total",
	mVQueriesOld:  "vllm:gpu_prefix_cache_queries_total",
	mVHits:        "vllm:prefix_cache_hits_total",
	mVHitsOld:     "vllm:gpu_prefix_cache_hits_total",
	mSHits:        "sglang:cached_tokens_total",
	mVPrompt:      "vllm:prompt_tokens_total",
	mSPrompt:      "sglang:prompt_tokens_total",
	mVGen:         "vllm:generation_tokens_total",
	mSGen:         "sglang:generation_tokens_total",
	mVPreempt:     "vllm:num_preemptions_total",
	mSPreempt:     "sglang:num_retracted_requests_total",
	mVCacheConfig: "vllm:cache_config_info",
	mSMaxTokens:   "sglang:max_total_num_tokens",
}

// sources lists, per field, the metrics that feed it in order of
// preference: the first present in a scrape is used, never a sum of two.
// SGLang has no prefix-cache query counter: every prompt token is looked up
// in the radix cache, so prompt_tokens_total serves as queries.
var sources = [nFields][]int{
	fRunning: {mVRunning, mSRunning},
	fWaiting: {mVWaiting, mSWaiting},
	fKV:      {mVKV, mVKVOld, mSKV},
	fQueries: {mVQueries, mVQueriesOld, mSPrompt},
	fHits:    {mVHits, mVHitsOld, mSHits},
	fPrompt:  {mVPrompt, mSPrompt},
	fGen:     {mVGen, mSGen},
	fPreempt: {mVPreempt, mSPreempt},
}

// obs is one series of a known metric in the current scrape, kept after the
// rank rule.
type obs struct {
	metric  int
	value   float64
	key     string // series identity: name and sorted labels
	replica string // engine or dp_rank label
	tier    string // cache_source label
	hasTier bool
	kvPool  int64 // vllm:cache_config_info: pool tokens, -1 if not given
}

// label is one label pair of a series.
type label struct{ name, value string }

// lineErr is an error of this package's own rules about a series, located;
// kv marks a bad cache_config_info (see observe).
type lineErr struct {
	err *textpos.ParseError
	kv  bool
}

// rawLine is an owned copy of an input line.
type rawLine struct {
	no int
	b  []byte
}

// nameState records the HELP and TYPE lines of a metric name by chunk
// generation, so names repeated in every scrape are not reallocated.
type nameState struct {
	helpGen, typeGen uint64
}

// chunk is the scrape being read: a run of consecutive input lines.
type chunk struct {
	first     int  // line number of the first line; 0: nothing read yet
	header    bool // started by a "# scrape" line
	sec, nsec int64
	groupMS   int64 // sample timestamp of a chunk without header
	hasGroup  bool
	pendOff   int // chunk without header: offset in text of the lines since the last sample
	pendLine  int // and the first of them, 0 if none
	text      []byte
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

// Reader turns a metrics.prom into engine samples, one scrape at a time.
type Reader struct {
	lr        *lineio.Reader
	opt       Options
	t0s, t0ns int64
	carry     []rawLine // lines that begin the next chunk
	ended     bool      // lr is exhausted
	done      bool
	truncLine int // the last line had no newline: its scrape is incomplete

	c     chunk
	gen   uint64 // the current chunk's generation
	names map[string]*nameState
	cm    comment
	obs   []obs // the current scrape's
	pipe  *pipeline

	// Delta base: the previous recognised scrape.
	havePrev        bool
	prevSec, prevNs int64                       // its time, exact, so intervals carry no float noise
	prev            [nFields]map[string]float64 // counter fields: series key -> value
	prevHas         [nFields]bool
	lastTS          float64 // the previous returned scrape, any kind
	haveLast        bool

	info    Info
	kvFound bool
}

// NewReader returns a Reader of the scrapes in lr.
func NewReader(lr *lineio.Reader, opt Options) *Reader {
	r := &Reader{lr: lr, opt: opt, t0s: opt.T0.Unix(), t0ns: int64(opt.T0.Nanosecond())}
	r.info.FirstS, r.info.LastS = math.NaN(), math.NaN()
	r.names = map[string]*nameState{}
	return r
}

// Info returns the summary of the scrapes read so far.
func (r *Reader) Info() Info { return r.info }

// Next returns one sample per scrape, io.EOF at the end, or a
// *textpos.ParseError for a scrape that does not parse; the reader then goes
// on with the next scrape.
func (r *Reader) Next() (schema.EngineSample, error) {
	if r.pipe == nil {
		r.pipe = r.start()
	}
	if j := r.pipe.next(); j != nil {
		return r.finish(j)
	}
	if err := r.lr.Err(); err != nil {
		return schema.EngineSample{}, err
	}
	return schema.EngineSample{}, io.EOF
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
		// A copy: r.c's buffers are reused for the next scrape.
		c := r.c
		c.text = append([]byte(nil), r.c.text...)
		c.nos = append([]int(nil), r.c.nos...)
		return &scrape{c: c, truncLine: r.truncLine, name: r.lr.Name(), done: make(chan struct{})}
	}
	return nil
}

func (r *Reader) reset() {
	c := &r.c
	c.first, c.header, c.hasGroup, c.pendLine, c.err = 0, false, false, 0, nil
	c.text = c.text[:0]
	c.nos = c.nos[:0]
	r.gen++
	if len(r.names) > 1<<16 { // bound memory on inputs with ever-new names
		clear(r.names)
	}
}

// fill reads lines into the current chunk until the next one begins.
func (r *Reader) fill() {
	for {
		var no int
		var b []byte
		if len(r.carry) > 0 {
			no, b = r.carry[0].no, r.carry[0].b
			r.carry = r.carry[1:]
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

// split ends the current chunk: the lines of its text from offset off on,
// numbered from first, and then line no begin the next one.
func (r *Reader) split(off, first, no int, b []byte) bool {
	var next []rawLine
	for rest := r.c.text[off:]; len(rest) > 0; first++ {
		i := bytes.IndexByte(rest, '\n')
		next = append(next, rawLine{first, append([]byte(nil), rest[:i]...)})
		rest = rest[i+1:]
	}
	r.c.text = r.c.text[:off]
	next = append(next, rawLine{no, append([]byte(nil), b...)})
	r.carry = append(next, r.carry...)
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
	i := skipBlank(b, 0)
	if i == len(b) || b[i] == '#' {
		kind := commentPlain
		if i < len(b) {
			cm := &r.cm
			col, err := scanComment(b, i, cm)
			kind = cm.kind
			switch {
			case kind == commentScrape && c.first != 0:
				return r.split(len(c.text), 0, no, b) // a bad scrape line still starts a scrape
			case err != nil:
				c.first = no
				r.fail(no, col, b, err)
			case kind == commentScrape:
				c.first, c.header, c.sec, c.nsec = no, true, cm.sec, cm.nsec
			case kind == commentHelp || kind == commentType:
				st := r.names[string(cm.name)]
				if st == nil {
					st = &nameState{}
					r.names[string(cm.name)] = st
				}
				gen := &st.helpGen
				if kind == commentType {
					gen = &st.typeGen
				}
				if *gen == r.gen {
					return r.split(len(c.text), 0, no, b) // expfmt allows one per chunk
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
		if !c.header && c.pendLine == 0 {
			c.pendOff, c.pendLine = len(c.text), no
		}
	} else {
		if !c.header {
			if ts, ok := trailingTS(b[i:]); ok {
				if !c.hasGroup {
					c.groupMS, c.hasGroup = ts, true
				} else if ts != c.groupMS {
					if c.pendLine == 0 {
						return r.split(len(c.text), 0, no, b)
					}
					return r.split(c.pendOff, c.pendLine, no, b)
				}
			}
			c.pendLine = 0
		}
		if c.first == 0 {
			c.first = no
		}
	}
	if c.header {
		// Only the families read are parsed (see Filtering above).
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
		return (k == commentHelp || k == commentType) && known(r.cm.name)
	}
	if b[i] == '{' {
		return true
	}
	j := i
	for j < len(b) && isNameChar(b[j]) {
		j++
	}
	return known(b[i:j])
}

// known reports whether name is one of metricNames. The known names all
// begin with "vllm:" or "sglang:", which rejects most others at once.
func known(name []byte) bool {
	if len(name) < 5 || name[0] != 'v' && name[0] != 's' || bytes.IndexByte(name, ':') < 0 {
		return false
	}
	_, ok := knownNames[string(name)]
	return ok
}

// knownNames indexes metricNames.
var knownNames = func() map[string]int {
	m := make(map[string]int, nMetrics)
	for i, n := range metricNames {
		m[n] = i
	}
	return m
}()

// parse runs expfmt over the scrape and collects the series of the known
// metrics, and the errors: expfmt's, or this package's located by line.
func (ps *parser) parse(j *scrape) {
	c := &j.c
	ps.rd.Reset(c.text)
	fams, err := ps.p.TextToMetricFamilies(&ps.rd)
	if err != nil {
		var pe expfmt.ParseError
		if !errors.As(err, &pe) {
			j.synErr = &textpos.ParseError{Pos: textpos.Pos{File: j.name, Line: c.first}, Err: err}
			return
		}
		// expfmt counts lines from the start of the text it is given.
		no := c.lineNo(pe.Line - 1)
		j.synErr = &textpos.ParseError{Pos: textpos.Pos{File: j.name, Line: no}, Raw: c.rawLine(no), Err: errors.New(pe.Msg)}
		return
	}
	// The known metrics in table order, not map order, for determinism;
	// within a family expfmt keeps the input order.
	for m := range nMetrics {
		fam := fams[metricNames[m]]
		if fam == nil {
			continue
		}
		for k, met := range fam.GetMetric() {
			var v float64
			switch {
			case met.Counter != nil:
				v = met.Counter.GetValue()
			case met.Gauge != nil:
				v = met.Gauge.GetValue()
			case met.Untyped != nil:
				v = met.Untyped.GetValue()
			default:
				continue // TYPE summary or histogram: no single value to use
			}
			ps.ls = ps.ls[:0]
			for _, lp := range met.GetLabel() {
				ps.ls = append(ps.ls, label{lp.GetName(), lp.GetValue()})
			}
			o, keep, err, kvErr := observe(m, v, ps.ls)
			if err != nil {
				j.sem = append(j.sem, ps.semErr(j, metricNames[m], k, err, false))
				continue
			}
			if kvErr != nil {
				// An error only while the pool is unknown, which the
				// consumer knows (finish).
				j.sem = append(j.sem, ps.semErr(j, metricNames[m], k, kvErr, true))
			}
			if keep {
				j.obs = append(j.obs, o)
			}
		}
	}
}

// semErr locates an error of the index-th series of family name.
func (ps *parser) semErr(j *scrape, name string, index int, err error, kv bool) lineErr {
	no := ps.locate(&j.c, name, index)
	return lineErr{err: &textpos.ParseError{Pos: textpos.Pos{File: j.name, Line: no}, Raw: j.c.rawLine(no), Err: err}, kv: kv}
}

// firstErr returns the scrape's first error by line: expfmt's, else the
// first of this package's, counting cache_config_info errors only while
// the KV pool is not known (kvFound).
func (j *scrape) firstErr(kvFound bool) *textpos.ParseError {
	if j.synErr != nil {
		return j.synErr
	}
	var first *textpos.ParseError
	for _, e := range j.sem {
		if e.kv && kvFound {
			continue
		}
		if first == nil || e.err.Pos.Line < first.Pos.Line {
			first = e.err
		}
	}
	return first
}

// locate returns the line of the index-th series of family name in the
// chunk, or the chunk's first line. It parses candidate lines one at a time
// with expfmt, so a line counts exactly when expfmt put it in that family;
// it runs only for errors, so its cost does not matter.
func (ps *parser) locate(c *chunk, name string, index int) int {
	rest := c.text
	for k := 0; len(rest) > 0; k++ {
		no := c.lineNo(k)
		i := bytes.IndexByte(rest, '\n')
		b := rest[:i+1]
		rest = rest[i+1:]
		if j := skipBlank(b, 0); b[j] == '#' || !bytes.Contains(b, []byte(name)) {
			continue
		}
		ps.rd.Reset(b)
		if fams, err := ps.p.TextToMetricFamilies(&ps.rd); err == nil && fams[name] != nil {
			if index == 0 {
				return no
			}
			index--
		}
	}
	return c.first
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

// observe makes the observation of a series of a known metric. keep is
// false for a series to ignore; err is a bad value. kvErr is a bad
// cache_config_info, an error only while the pool size is not known yet;
// o.kvPool is then -1, as it is for a series that does not give the pool.
func observe(m int, v float64, ls []label) (o obs, keep bool, err, kvErr error) {
	o = obs{metric: m, value: v, kvPool: -1}
	for _, l := range ls {
		switch l.name {
		case "tp_rank", "pp_rank", "moe_ep_rank":
			if l.value != "0" {
				return o, false, nil, nil // a repeat of rank 0's view (package doc)
			}
		case "engine", "dp_rank":
			o.replica = l.value
		case "cache_source":
			if m == mSHits {
				o.tier, o.hasTier = l.value, true
			}
		}
	}
	name := metricNames[m]
	if m >= mVQueries && m <= mSPreempt && (math.IsNaN(v) || math.IsInf(v, 0) || v < 0) {
		return o, false, fmt.Errorf("counter %s has value %v", name, v), nil
	}
	if m < mVQueries && (math.IsNaN(v) || math.IsInf(v, 0)) {
		return o, false, fmt.Errorf("gauge %s has value %v", name, v), nil
	}
	if m >= mVQueries && m <= mSPreempt {
		o.key = seriesKey(name, ls)
	}
	if m == mVCacheConfig {
		n, err := cacheConfigPool(ls)
		if err != nil {
			return o, true, nil, err
		}
		o.kvPool = n
	}
	return o, true, nil, nil
}

// cacheConfigPool reads the KV pool size from vllm:cache_config_info labels:
// kv_cache_size_tokens (newest), else num_gpu_blocks*block_size; -1 if
// neither is given (num_gpu_blocks was "None" before vLLM 0.8.5).
func cacheConfigPool(ls []label) (int64, error) {
	var tokens, blocks, size string
	for _, l := range ls {
		switch l.name {
		case "kv_cache_size_tokens":
			tokens = l.value
		case "num_gpu_blocks":
			blocks = l.value
		case "block_size":
			size = l.value
		}
	}
	if tokens != "" && tokens != "None" {
		n, err := strconv.ParseInt(tokens, 10, 64)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("cache_config_info: invalid kv_cache_size_tokens %q", tokens)
		}
		return n, nil
	}
	if blocks == "" || blocks == "None" || size == "" || size == "None" {
		return -1, nil
	}
	nb, err1 := strconv.ParseInt(blocks, 10, 64)
	bs, err2 := strconv.ParseInt(size, 10, 64)
	if err1 != nil || err2 != nil || nb <= 0 || bs <= 0 {
		return 0, fmt.Errorf("cache_config_info: invalid num_gpu_blocks %q or block_size %q", blocks, size)
	}
	return nb * bs, nil
}

// seriesKey is the identity of a series: its name and its labels sorted by
// name. The separators are bytes that valid UTF-8, which expfmt requires of
// label values, never holds, so distinct series cannot share a key.
func seriesKey(name string, ls []label) string {
	slices.SortFunc(ls, func(a, b label) int { return strings.Compare(a.name, b.name) })
	var sb strings.Builder
	sb.WriteString(name)
	for _, l := range ls {
		sb.WriteByte(0xff)
		sb.WriteString(l.name)
		sb.WriteByte(0xfe)
		sb.WriteString(l.value)
	}
	return sb.String()
}

// finish turns the complete chunk into a sample or an error.
func (r *Reader) finish(j *scrape) (schema.EngineSample, error) {
	c := &j.c
	if c.err == nil {
		c.err = j.firstErr(r.kvFound)
	}
	r.obs = j.obs
	// An error on the cut line itself is a symptom of the cut.
	if j.truncLine != 0 && j.truncLine >= c.first && (c.err == nil || c.err.Pos.Line == j.truncLine) {
		c.err = &textpos.ParseError{Pos: textpos.Pos{File: j.name, Line: j.truncLine}, Raw: c.rawLine(j.truncLine),
			Err: errors.New("last line has no newline: the scrape is incomplete")}
	}
	if c.err != nil {
		return schema.EngineSample{}, c.err
	}
	pos := textpos.Pos{File: r.lr.Name(), Line: c.first}
	sec, nsec := c.sec, c.nsec
	switch {
	case c.header:
	case c.hasGroup:
		sec, nsec = floorDiv(c.groupMS, 1000), floorMod(c.groupMS, 1000)*1e6
	default:
		return schema.EngineSample{}, &textpos.ParseError{Pos: pos,
			Err: errors.New(`scrape has no time: no "# scrape <unix seconds>" line starts it and its samples carry no timestamps`)}
	}
	ts := float64(sec-r.t0s) + float64(nsec-r.t0ns)/1e9
	if r.haveLast && ts <= r.lastTS {
		return schema.EngineSample{}, &textpos.ParseError{Pos: pos,
			Err: fmt.Errorf("scrape time %.3f s is not after the previous scrape's %.3f s", ts, r.lastTS)}
	}
	r.haveLast, r.lastTS = true, ts

	es := schema.EngineSample{TS: ts, Source: schema.SourceMetrics, Kind: schema.LineScrape, Line: int64(c.first)}
	r.info.Scrapes++
	if r.info.Scrapes == 1 {
		r.info.FirstS = ts
	}
	r.info.LastS = ts
	if len(r.obs) == 0 {
		r.info.Unrecognised++
		return es, nil
	}
	var present [nMetrics]bool
	for i := range r.obs {
		present[r.obs[i].metric] = true
	}
	if r.info.Engine == "" {
		r.info.Engine = "sglang"
		for m, ok := range present {
			if ok && strings.HasPrefix(metricNames[m], "vllm:") {
				r.info.Engine = "vllm" // a scrape with both is taken for vLLM
			}
		}
	}
	var chosen [nFields]int
	for f := range chosen {
		chosen[f] = -1
		for _, m := range sources[f] {
			if present[m] {
				chosen[f] = m
				break
			}
		}
	}
	r.kvPool(present)
	r.gauges(&es, chosen)
	r.counters(&es, chosen, sec, nsec)
	return es, nil
}

// kvPool sets Info.KVPoolTokens from the first scrape that gives it, summed
// over data-parallel replicas (each has its own pool).
func (r *Reader) kvPool(present [nMetrics]bool) {
	if r.kvFound {
		return
	}
	m := mVCacheConfig
	if !present[m] {
		m = mSMaxTokens
	}
	var sum int64
	n := 0
	for _, o := range r.obs {
		if o.metric != m {
			continue
		}
		v := o.kvPool
		if m == mSMaxTokens {
			v = int64(o.value)
		}
		if v <= 0 {
			return // a replica without a size: try later scrapes
		}
		sum += v
		n++
	}
	if n > 0 {
		r.kvFound, r.info.KVPoolTokens = true, sum
	}
}

// gauges sets running, waiting (sums) and KV usage (mean) and the engine
// index: the replica's number, or -1 when several are aggregated.
func (r *Reader) gauges(es *schema.EngineSample, chosen [nFields]int) {
	var replicas []string
	for f := 0; f < nGauges; f++ {
		m := chosen[f]
		if m < 0 {
			continue
		}
		sum, n := 0.0, 0
		for _, o := range r.obs {
			if o.metric != m {
				continue
			}
			sum += o.value
			n++
			found := false
			for _, rep := range replicas {
				found = found || rep == o.replica
			}
			if !found {
				replicas = append(replicas, o.replica)
			}
		}
		v := sum
		if f == fKV {
			v = sum / float64(n)
		}
		switch f {
		case fRunning:
			es.Running = &v
		case fWaiting:
			es.Waiting = &v
		case fKV:
			es.KVUsage = &v
		}
	}
	switch len(replicas) {
	case 0:
	case 1:
		if n, err := strconv.ParseInt(replicas[0], 10, 32); err == nil {
			es.EngineIndex = int32(n)
		}
	default:
		es.EngineIndex = -1
	}
}

// counters sets the counter deltas against the previous recognised scrape
// and makes this scrape the next base.
func (r *Reader) counters(es *schema.EngineSample, chosen [nFields]int, sec, nsec int64) {
	var cur [nFields]map[string]float64
	var delta [nFields]float64
	var has [nFields]bool
	reset := false
	for f := nGauges; f < nFields; f++ {
		m := chosen[f]
		if m < 0 {
			continue
		}
		useTotal := true // SGLang cache tiers: "total" only when no tier series is present
		if m == mSHits {
			for _, o := range r.obs {
				if o.metric == m && o.hasTier && o.tier != "total" {
					useTotal = false
				}
			}
		}
		cur[f] = make(map[string]float64)
		for _, o := range r.obs {
			if o.metric != m || (!useTotal && o.hasTier && o.tier == "total") {
				continue
			}
			cur[f][o.key] += o.value
			if r.prevHas[f] {
				delta[f] += o.value - r.prev[f][o.key] // a new series counts from zero
			}
		}
		has[f] = r.havePrev && r.prevHas[f]
		if has[f] {
			for k, pv := range r.prev[f] {
				if cv, ok := cur[f][k]; !ok || cv < pv {
					reset = true
				}
			}
		}
	}
	if r.havePrev {
		iv := float64(sec-r.prevSec) + float64(nsec-r.prevNs)/1e9
		es.IntervalS = &iv
	}
	if reset {
		es.CounterReset = true
		r.info.CounterResets++
	} else {
		for f := nGauges; f < nFields; f++ {
			if !has[f] {
				continue
			}
			d := delta[f]
			switch f {
			case fQueries:
				es.PrefixQueries = &d
			case fHits:
				es.PrefixHits = &d
			case fPrompt:
				es.PromptTokens = &d
			case fGen:
				es.GenerationTokens = &d
			case fPreempt:
				es.Preemptions = &d
			}
		}
	}
	r.havePrev, r.prevSec, r.prevNs = true, sec, nsec
	for f := nGauges; f < nFields; f++ {
		r.prev[f], r.prevHas[f] = cur[f], cur[f] != nil
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
