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
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/ingest/lineio"
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

// lookup returns the number of a known metric name, or -1.
func lookup(name []byte) int {
	if len(name) < 5 || (name[0] != 'v' && name[0] != 's') {
		return -1
	}
	switch string(name) {
	case "vllm:num_requests_running":
		return mVRunning
	case "sglang:num_running_reqs":
		return mSRunning
	case "vllm:num_requests_waiting":
		return mVWaiting
	case "sglang:num_queue_reqs":
		return mSWaiting
	case "vllm:kv_cache_usage_perc":
		return mVKV
	case "vllm:gpu_cache_usage_perc":
		return mVKVOld
	case "sglang:token_usage":
		return mSKV
	case "vllm:prefix_cache_queries_total":
		return mVQueries
	case "vllm:gpu_prefix_cache_queries_total":
		return mVQueriesOld
	case "vllm:prefix_cache_hits_total":
		return mVHits
	case "vllm:gpu_prefix_cache_hits_total":
		return mVHitsOld
	case "sglang:cached_tokens_total":
		return mSHits
	case "vllm:prompt_tokens_total":
		return mVPrompt
	case "sglang:prompt_tokens_total":
		return mSPrompt
	case "vllm:generation_tokens_total":
		return mVGen
	case "sglang:generation_tokens_total":
		return mSGen
	case "vllm:num_preemptions_total":
		return mVPreempt
	case "sglang:num_retracted_requests_total":
		return mSPreempt
	case "vllm:cache_config_info":
		return mVCacheConfig
	case "sglang:max_total_num_tokens":
		return mSMaxTokens
	}
	return -1
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

// rawLine is an owned copy of an input line.
type rawLine struct {
	no int
	b  []byte
}

// nameState records the HELP and TYPE lines of a metric name by chunk
// generation, so names repeated in every scrape are not reallocated.
type nameState struct {
	helpGen, typeGen uint64
	typ              int
}

// chunk is the scrape being read.
type chunk struct {
	first     int  // line number of the first line; 0: nothing read yet
	header    bool // started by a "# scrape" line
	sec, nsec int64
	groupMS   int64 // sample timestamp of a chunk without header
	hasGroup  bool
	pend      []rawLine // chunk without header: HELP/TYPE since the last sample
	obs       []obs
	err       *lineio.ParseError
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
	s     sample
	cm    comment
	tmp   []label

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
// *lineio.ParseError for a scrape that does not parse; the reader then goes
// on with the next scrape.
func (r *Reader) Next() (schema.EngineSample, error) {
	for !r.done {
		r.reset()
		r.fill()
		if r.c.first == 0 {
			if r.ended {
				r.done = true
			}
			continue
		}
		return r.finish()
	}
	if err := r.lr.Err(); err != nil {
		return schema.EngineSample{}, err
	}
	return schema.EngineSample{}, io.EOF
}

func (r *Reader) reset() {
	c := &r.c
	c.first, c.header, c.hasGroup, c.err = 0, false, false, nil
	r.gen++
	if len(r.names) > 1<<16 { // bound memory on inputs with ever-new names
		clear(r.names)
	}
	c.pend = c.pend[:0]
	c.obs = c.obs[:0]
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

// split ends the current chunk: moved and then line no begin the next one.
func (r *Reader) split(moved []rawLine, no int, b []byte) bool {
	next := make([]rawLine, 0, len(moved)+1+len(r.carry))
	next = append(next, moved...)
	next = append(next, rawLine{no, append([]byte(nil), b...)})
	r.carry = append(next, r.carry...)
	return true
}

func (r *Reader) fail(no, col int, b []byte, err error) {
	if r.c.first == 0 {
		r.c.first = no
	}
	if r.c.err == nil {
		r.c.err = &lineio.ParseError{Pos: lineio.Pos{File: r.lr.Name(), Line: no}, Column: col, Raw: append([]byte(nil), b...), Err: err}
	}
}

// line adds one line to the chunk, reporting whether it begins the next.
func (r *Reader) line(no int, b []byte) bool {
	c := &r.c
	i := skipBlank(b, 0)
	if i == len(b) {
		return false
	}
	if b[i] == '#' {
		cm := &r.cm
		if col, err := parseComment(b, i, cm); err != nil {
			if cm.kind == commentScrape && c.first != 0 {
				return r.split(nil, no, b) // a bad scrape line still starts a scrape
			}
			r.fail(no, col, b, err)
			return false
		}
		switch cm.kind {
		case commentScrape:
			if c.first != 0 {
				return r.split(nil, no, b)
			}
			c.first, c.header, c.sec, c.nsec = no, true, cm.sec, cm.nsec
		case commentHelp, commentType:
			st := r.names[str(cm.name)]
			if st == nil {
				st = &nameState{}
				r.names[string(cm.name)] = st
			}
			if cm.kind == commentHelp {
				if st.helpGen == r.gen {
					return r.split(nil, no, b)
				}
				st.helpGen = r.gen
			} else {
				if st.typeGen == r.gen {
					return r.split(nil, no, b)
				}
				st.typeGen, st.typ = r.gen, cm.typ
			}
			if c.first == 0 {
				c.first = no
			}
			if !c.header {
				c.pend = append(c.pend, rawLine{no, append([]byte(nil), b...)})
			}
		}
		return false
	}
	s := &r.s
	if col, err := parseSample(b, s); err != nil {
		r.fail(no, col, b, err)
		return false
	}
	if !c.header {
		if s.hasTS {
			if !c.hasGroup {
				c.groupMS, c.hasGroup = s.ts, true
			} else if s.ts != c.groupMS {
				return r.split(c.pend, no, b)
			}
		}
		c.pend = c.pend[:0]
	}
	if c.first == 0 {
		c.first = no
	}
	if n := len(s.name); n > 7 && string(s.name[n-7:]) == "_bucket" {
		if st := r.names[str(s.name[:n-7])]; st != nil && st.typeGen == r.gen && st.typ == typeHistogram && !hasLE(s.labels) {
			r.fail(no, 0, b, fmt.Errorf("histogram bucket %s has no valid le label", s.name))
			return false
		}
	}
	if m := lookup(s.name); m >= 0 {
		if col, err := r.observe(m, s); err != nil {
			r.fail(no, col, b, err)
		}
	}
	return false
}

func hasLE(ls []label) bool {
	for _, l := range ls {
		if string(l.name) == "le" {
			_, err := strconv.ParseFloat(str(l.value), 64)
			return err == nil
		}
	}
	return false
}

// observe records a series of a known metric.
func (r *Reader) observe(m int, s *sample) (int, error) {
	o := obs{metric: m, value: s.value, kvPool: -1}
	for _, l := range s.labels {
		switch string(l.name) {
		case "tp_rank", "pp_rank", "moe_ep_rank":
			if string(l.value) != "0" {
				return 0, nil // a repeat of rank 0's view (package doc)
			}
		case "engine", "dp_rank":
			o.replica = l.String()
		case "cache_source":
			if m == mSHits {
				o.tier, o.hasTier = l.String(), true
			}
		}
	}
	if m >= mVQueries && m <= mSPreempt && (math.IsNaN(s.value) || math.IsInf(s.value, 0) || s.value < 0) {
		return 0, fmt.Errorf("counter %s has value %v", s.name, s.value)
	}
	if m < mVQueries && (math.IsNaN(s.value) || math.IsInf(s.value, 0)) {
		return 0, fmt.Errorf("gauge %s has value %v", s.name, s.value)
	}
	if m >= mVQueries && m <= mSPreempt {
		o.key = seriesKey(s, &r.tmp)
	}
	if m == mVCacheConfig && !r.kvFound {
		n, err := cacheConfigPool(s.labels)
		if err != nil {
			return 0, err
		}
		o.kvPool = n
	}
	r.c.obs = append(r.c.obs, o)
	return 0, nil
}

// cacheConfigPool reads the KV pool size from vllm:cache_config_info labels:
// kv_cache_size_tokens (newest), else num_gpu_blocks*block_size; -1 if
// neither is given (num_gpu_blocks was "None" before vLLM 0.8.5).
func cacheConfigPool(ls []label) (int64, error) {
	var tokens, blocks, size string
	for _, l := range ls {
		switch string(l.name) {
		case "kv_cache_size_tokens":
			tokens = l.String()
		case "num_gpu_blocks":
			blocks = l.String()
		case "block_size":
			size = l.String()
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

// seriesKey is name{labels sorted by name}, the identity of a series.
func seriesKey(s *sample, tmp *[]label) string {
	ls := append((*tmp)[:0], s.labels...)
	*tmp = ls
	sort.Slice(ls, func(i, j int) bool { return string(ls[i].name) < string(ls[j].name) })
	var sb strings.Builder
	sb.Write(s.name)
	sb.WriteByte('{')
	for i, l := range ls {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.Write(l.name)
		sb.WriteString(`="`)
		sb.Write(l.value)
		sb.WriteByte('"')
	}
	sb.WriteByte('}')
	return sb.String()
}

// finish turns the complete chunk into a sample or an error.
func (r *Reader) finish() (schema.EngineSample, error) {
	c := &r.c
	if r.truncLine != 0 && r.truncLine >= c.first && c.err == nil {
		c.err = &lineio.ParseError{Pos: lineio.Pos{File: r.lr.Name(), Line: r.truncLine},
			Err: errors.New("last line has no newline: the scrape is incomplete")}
	}
	if c.err != nil {
		return schema.EngineSample{}, c.err
	}
	pos := lineio.Pos{File: r.lr.Name(), Line: c.first}
	sec, nsec := c.sec, c.nsec
	switch {
	case c.header:
	case c.hasGroup:
		sec, nsec = floorDiv(c.groupMS, 1000), floorMod(c.groupMS, 1000)*1e6
	default:
		return schema.EngineSample{}, &lineio.ParseError{Pos: pos,
			Err: errors.New(`scrape has no time: no "# scrape <unix seconds>" line starts it and its samples carry no timestamps`)}
	}
	ts := float64(sec-r.t0s) + float64(nsec-r.t0ns)/1e9
	if r.haveLast && ts <= r.lastTS {
		return schema.EngineSample{}, &lineio.ParseError{Pos: pos,
			Err: fmt.Errorf("scrape time %.3f s is not after the previous scrape's %.3f s", ts, r.lastTS)}
	}
	r.haveLast, r.lastTS = true, ts

	es := schema.EngineSample{TS: ts, Source: schema.SourceMetrics, Kind: schema.LineScrape, Line: int64(c.first)}
	r.info.Scrapes++
	if r.info.Scrapes == 1 {
		r.info.FirstS = ts
	}
	r.info.LastS = ts
	if len(c.obs) == 0 {
		r.info.Unrecognised++
		return es, nil
	}
	if r.info.Engine == "" {
		r.info.Engine = "sglang"
		if strings.HasPrefix(metricNames[c.obs[0].metric], "vllm:") {
			r.info.Engine = "vllm"
		}
	}
	var present [nMetrics]bool
	for i := range c.obs {
		present[c.obs[i].metric] = true
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
	for _, o := range r.c.obs {
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
		for _, o := range r.c.obs {
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
			for _, o := range r.c.obs {
				if o.metric == m && o.hasTier && o.tier != "total" {
					useTotal = false
				}
			}
		}
		cur[f] = make(map[string]float64)
		for _, o := range r.c.obs {
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
