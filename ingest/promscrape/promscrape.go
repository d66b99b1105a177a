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
	"io"
	"math"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/ordered"
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
	pipe  *ordered.Pipeline[*scrape]

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
	if j, ok := r.pipe.Next(); ok {
		return r.finish(j)
	}
	if err := r.lr.Err(); err != nil {
		return schema.EngineSample{}, err
	}
	return schema.EngineSample{}, io.EOF
}
