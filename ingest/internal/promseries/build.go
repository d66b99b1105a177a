package promseries

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/schema"
)

// This file builds the sample of the series observed at one time, in
// input order: the gauges, the counter deltas against the previous
// recognised time (Counters in the package doc) and the KV pool size.

// Info summarises what a reader has read so far.
type Info struct {
	Engine        string  // "vllm" | "sglang" | "" (no known metric seen)
	KVPoolTokens  int64   // KV pool size from the first scrape that gave it, 0 if none did
	Scrapes       int     // scrapes returned as samples
	CounterResets int     // scrapes where a counter went down (engine restart)
	FirstS, LastS float64 // run seconds of the first and last scrape returned; NaN if none
	Unrecognised  int     // scrapes with none of the known metrics
	// RankRepeats counts series left out for repeating the rank of another
	// series of their group under another pid (Ranks in the package doc).
	RankRepeats int
	// Repeats counts points that the input gave twice, at one time with one
	// value (a /federate poll that saw the same scrape again), kept once.
	Repeats int
	// Notes are what the input itself warns of (Prometheus' warnings and
	// infos in a query_range answer), each prefixed with its file.
	Notes []string
}

// Builder turns the series observed at one time into an EngineSample,
// keeping what depends on earlier times: the counters' previous values,
// the KV pool once known, the time of the previous sample.
type Builder struct {
	t0s, t0ns int64
	info      Info
	kvFound   bool

	// Delta base: the previous recognised time.
	havePrev        bool
	prevSec, prevNs int64                       // its time, exact, so intervals carry no float noise
	prev, cur       [nFields]map[string]float64 // counter fields: series key -> value
	prevHas         [nFields]bool
	lastTS          float64 // the previous sample, any kind
	haveLast        bool

	obs    []Obs          // the current time's series after the rank rule
	lowest map[string]int // rank rule: group -> index of its lowest rank
}

// NewBuilder returns a Builder of samples whose times count from t0, the
// run's t=0.
func NewBuilder(t0 time.Time) *Builder {
	b := &Builder{t0s: t0.Unix(), t0ns: int64(t0.Nanosecond()), lowest: map[string]int{}}
	b.info.FirstS, b.info.LastS = math.NaN(), math.NaN()
	return b
}

// Info returns the summary of the samples built so far.
func (b *Builder) Info() Info { return b.info }

// KVFound reports whether the KV pool size is known.
func (b *Builder) KVFound() bool { return b.kvFound }

// Note records a warning of the input's own (Info.Notes).
func (b *Builder) Note(s string) { b.info.Notes = append(b.info.Notes, s) }

// Repeated counts n points given twice (Info.Repeats).
func (b *Builder) Repeated(n int) { b.info.Repeats += n }

// RunSeconds returns Unix time sec+nsec in run seconds.
func (b *Builder) RunSeconds(sec, nsec int64) float64 {
	return float64(sec-b.t0s) + float64(nsec-b.t0ns)/1e9
}

// Build returns the sample of the series obs observed at Unix time
// sec+nsec, starting at input line line. Its error, for a time that is
// not after the previous sample's, has no position: the caller adds it.
func (b *Builder) Build(sec, nsec int64, line int, obs []Obs) (schema.EngineSample, error) {
	ts := b.RunSeconds(sec, nsec)
	if b.haveLast && ts <= b.lastTS {
		return schema.EngineSample{}, fmt.Errorf("scrape time %.3f s is not after the previous scrape's %.3f s", ts, b.lastTS)
	}
	b.haveLast, b.lastTS = true, ts

	es := schema.EngineSample{TS: ts, Source: schema.SourceMetrics, Kind: schema.LineScrape, Line: int64(line)}
	b.info.Scrapes++
	if b.info.Scrapes == 1 {
		b.info.FirstS = ts
	}
	b.info.LastS = ts
	var repeats int
	b.obs, repeats = b.selectRanks(b.obs[:0], obs)
	b.info.RankRepeats += repeats
	if len(b.obs) == 0 {
		b.info.Unrecognised++
		return es, nil
	}
	var present [nMetrics]bool
	for i := range b.obs {
		present[b.obs[i].metric] = true
	}
	if b.info.Engine == "" {
		b.info.Engine = schema.EngineSGLang
		for m, ok := range present {
			if ok && strings.HasPrefix(metricNames[m], "vllm:") {
				b.info.Engine = schema.EngineVLLM // a scrape with both is taken for vLLM
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
	b.kvPool(present)
	b.gauges(&es, chosen)
	b.counters(&es, chosen, sec, nsec)
	return es, nil
}

// kvPool sets Info.KVPoolTokens from the first time that gives it, summed
// over data-parallel replicas (each has its own pool).
func (b *Builder) kvPool(present [nMetrics]bool) {
	if b.kvFound {
		return
	}
	m := mVCacheConfig
	if !present[m] {
		m = mSMaxTokens
	}
	var sum int64
	n := 0
	for _, o := range b.obs {
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
		b.kvFound, b.info.KVPoolTokens = true, sum
	}
}

// gauges sets running, waiting (sums) and KV usage (mean) and the engine
// index: the replica's number, or -1 when several are aggregated.
func (b *Builder) gauges(es *schema.EngineSample, chosen [nFields]int) {
	var replicas []string
	for f := 0; f < nGauges; f++ {
		m := chosen[f]
		if m < 0 {
			continue
		}
		sum, n := 0.0, 0
		for _, o := range b.obs {
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
		*sampleFields[f].Of(es) = &v
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

// counters sets the counter deltas against the previous recognised time
// and makes this time the next base.
func (b *Builder) counters(es *schema.EngineSample, chosen [nFields]int, sec, nsec int64) {
	var delta [nFields]float64
	var has, curHas [nFields]bool
	reset := false
	for f := nGauges; f < nFields; f++ {
		m := chosen[f]
		if m < 0 {
			continue
		}
		useTotal := true // SGLang cache tiers: "total" only when no tier series is present
		if m == mSHits {
			for _, o := range b.obs {
				if o.metric == m && o.hasTier && o.tier != "total" {
					useTotal = false
				}
			}
		}
		cur := b.cur[f]
		if cur == nil {
			cur = make(map[string]float64)
			b.cur[f] = cur
		}
		clear(cur)
		curHas[f] = true
		for _, o := range b.obs {
			if o.metric != m || (!useTotal && o.hasTier && o.tier == "total") {
				continue
			}
			cur[o.key] += o.value
			if b.prevHas[f] {
				delta[f] += o.value - b.prev[f][o.key] // a new series counts from zero
			}
		}
		has[f] = b.havePrev && b.prevHas[f]
		if has[f] {
			for k, pv := range b.prev[f] {
				if cv, ok := cur[k]; !ok || cv < pv {
					reset = true
				}
			}
		}
	}
	if b.havePrev {
		iv := float64(sec-b.prevSec) + float64(nsec-b.prevNs)/1e9
		es.IntervalS = &iv
	}
	if reset {
		es.CounterReset = true
		b.info.CounterResets++
	} else {
		for f := nGauges; f < nFields; f++ {
			if !has[f] {
				continue
			}
			d := delta[f]
			*sampleFields[f].Of(es) = &d
		}
	}
	b.havePrev, b.prevSec, b.prevNs = true, sec, nsec
	b.prev, b.cur = b.cur, b.prev
	b.prevHas = curHas
}
