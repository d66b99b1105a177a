package promseries

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/schema"
)

// This file builds the sample of the series observed at one time, in
// input order: the gauges, the counter deltas against the previous
// recognised time (Counters in the package doc) and the KV pool size.

// Options configures a reader of engine metrics (promscrape, promjson).
type Options struct {
	T0 time.Time // the run's t=0: sample time - T0 = run seconds
}

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
	// PidCopies counts series left out as another process's copy of a
	// gauge without ranks (the pid rule in the package doc).
	PidCopies int
	// Repeats counts points that the input gave twice, at one time with one
	// value (a /federate poll that saw the same scrape again), kept once.
	Repeats int
	// PrefixCaching is what vLLM's cache_config_info says of prefix
	// caching (its enable_prefix_caching label), from the first time that
	// says it; nil when none does.
	PrefixCaching *bool
	// CounterGaps counts recognised times without any series of a counter
	// the time before had: the counter's deltas there, and at the time
	// after, are unknown.
	CounterGaps int
	// Notes are what the input itself warns of (Prometheus' warnings and
	// infos in a query_range answer, VictoriaMetrics' isPartial), then the
	// Builder's own (two spellings of a metric, series of several scrape
	// targets summed), each prefixed with its file.
	Notes []string
}

// Builder turns the series observed at one time into an EngineSample,
// keeping what depends on earlier times: the counters' previous values,
// the KV pool once known, the time of the previous sample.
type Builder struct {
	t0s, t0ns int64
	info      Info
	kvFound   bool
	input     string // the input's name, for the Builder's own notes

	// What the notes of Info tell: per known metric, the samples where
	// both its spellings were given (one was left out), and per metric
	// name, the samples whose summed series came from several targets.
	twins   [nMetrics]int
	servers map[int]*spread

	// Delta base: the previous recognised time.
	havePrev        bool
	prevSec, prevNs int64                  // its time, exact, so intervals carry no float noise
	sets            [2][nFields]counterSet // the current and the previous time's, by turns
	curSet          int                    // which of sets is the current time's
	prevHas         [nFields]bool
	stamp           uint64
	lastTS          float64 // the previous sample, any kind
	haveLast        bool

	// Counter series by their index in the sets: a Timeline's by its
	// number (Obs.sid), others by their key.
	bySid  []int32
	byKey  map[string]int32
	nIndex int32

	// Creation times (the counters' _created series), by the index of
	// their counter series in the sets: the last seen (NaN: none yet),
	// and of the current time whether the counter is present (at ==
	// cstamp) and was in the previous time's set.
	created []creation
	cstamp  uint64

	// declared marks the counters whose family the current scrape
	// declares (Declare), with or without series.
	declared [NumMetrics]bool
	// fromExport: the times are a Timeline's (an export's points). A
	// series first seen there was not necessarily created then: an
	// export cut by time, or engines scraped at other moments, begin a
	// series mid-life, so its first point gives its counter no delta.
	fromExport bool

	obs      []Obs          // the current time's series after the rank rule
	sel      []Obs          // selectRanks' buffer
	lowest   map[string]int // rank rule: group -> index of its lowest rank
	largest  map[string]int // pid rule: group -> index of its largest copy
	replicas []string
	vals     []float64 // the current sample's values (Build), in slab
	slab     []float64 // values of samples to come, allocated in blocks
}

// NewBuilder returns a Builder of samples whose times count from t0, the
// run's t=0.
func NewBuilder(t0 time.Time) *Builder {
	b := &Builder{t0s: t0.Unix(), t0ns: int64(t0.Nanosecond()), lowest: map[string]int{}, largest: map[string]int{}, byKey: map[string]int32{}}
	b.info.FirstS, b.info.LastS = math.NaN(), math.NaN()
	return b
}

// Info returns the summary of the samples built so far, with the
// Builder's own warnings (two spellings of a metric, series of several
// scrape targets summed) after the input's notes.
func (b *Builder) Info() Info {
	info := b.info
	if notes := b.notes(); len(notes) > 0 {
		info.Notes = append(slices.Clip(info.Notes), notes...)
	}
	return info
}

// SetInput names the input in the Builder's own notes: the file, or the
// directory of query_range answers.
func (b *Builder) SetInput(name string) { b.input = name }

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

// Declare records that the scrape about to be built declares known
// metric m (a TYPE line) whether or not it gives a series of it: a counter
// declared without series stands at 0 there (prometheus_client declares a
// labelled counter before its first series, as SGLang's cached_tokens
// does), so its first series counts from 0, not from an unknown value.
func (b *Builder) Declare(m int) {
	if m >= 0 && m < NumMetrics {
		b.declared[m] = true
	}
}

// Build returns the sample of the series obs observed at Unix time
// sec+nsec, starting at input line line. Its error, for a time that is
// not after the previous sample's, has no position: the caller adds it.
func (b *Builder) Build(sec, nsec int64, line int, obs []Obs) (schema.EngineSample, error) {
	declared := b.declared // this scrape's, whatever becomes of it
	b.declared = [NumMetrics]bool{}
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
	kept, repeats, copies := b.selectRanks(b.sel[:0], obs)
	b.info.PidCopies += copies
	if len(kept) > 0 && &kept[0] != &obs[0] {
		b.sel = kept // the Builder's own buffer, reused
	}
	b.obs = kept
	b.info.RankRepeats += repeats
	if len(b.obs) == 0 {
		b.info.Unrecognised++
		return es, nil
	}
	var present [NumMetrics]bool
	for i := range b.obs {
		present[b.obs[i].metric] = true
	}
	if b.info.Engine == "" {
		b.info.Engine = schema.EngineSGLang
		for m, ok := range present {
			if ok && strings.HasPrefix(Name(m), "vllm") {
				b.info.Engine = schema.EngineVLLM // a scrape with both is taken for vLLM
			}
		}
	}
	// Of a metric given in both spellings, the engine's own (the colon)
	// is read and the other left out, never added: both are one series
	// seen through two paths (a Prometheus server scraping the engine and
	// a gateway that renames it), and their sum would count it twice.
	// Where a metric was renamed, the newer name wins in either spelling.
	for m := range nMetrics {
		if present[m] && present[m+nMetrics] {
			b.twins[m]++
		}
	}
	var chosen [nFields]int
	gap := false
	for f := range chosen {
		chosen[f] = -1
		for _, m := range sources[f] {
			if present[m] {
				chosen[f] = m
				break
			}
			if present[m+nMetrics] {
				chosen[f] = m + nMetrics
				break
			}
		}
		if f < nGauges || chosen[f] >= 0 {
			continue
		}
		// A counter declared without series stands at 0.
		for _, m := range sources[f] {
			if declared[m] || declared[m+nMetrics] {
				chosen[f] = m
				break
			}
		}
		gap = gap || chosen[f] < 0 && b.havePrev && b.prevHas[f]
	}
	if gap {
		b.info.CounterGaps++
	}
	// The sample's fields point into a block shared with other samples:
	// one allocation per block, not one per field.
	if len(b.slab) < nFields+1 {
		b.slab = make([]float64, 64*(nFields+1))
	}
	b.vals, b.slab = b.slab[:nFields+1:nFields+1], b.slab[nFields+1:]
	b.kvPool(present)
	if b.info.PrefixCaching == nil {
		for _, o := range b.obs {
			if o.prefixCaching != 0 {
				on := o.prefixCaching > 0
				b.info.PrefixCaching = &on
				break
			}
		}
	}
	b.fields(&es, chosen, sec, nsec)
	return es, nil
}

// kvPool sets Info.KVPoolTokens from the first time that gives it, summed
// over data-parallel replicas (each has its own pool).
func (b *Builder) kvPool(present [NumMetrics]bool) {
	if b.kvFound {
		return
	}
	m := -1
	for _, k := range [...]int{mVCacheConfig, mVCacheConfig + nMetrics, mSMaxTokens, mSMaxTokens + nMetrics} {
		if present[k] {
			m = k
			break
		}
	}
	var sum int64
	n := 0
	for _, o := range b.obs {
		if o.metric != m {
			continue
		}
		v := o.kvPool
		if base(m) == mSMaxTokens {
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

// fields sets, in one pass over the series of the chosen metrics, the
// gauges (running and waiting summed, KV usage averaged; null when a
// series is NaN, an unknown figure), the engine index (the replica's
// number, or -1 when several are aggregated) and the counter deltas
// against the previous recognised time, which this time then replaces.
// Series summed that differ in their scrape target are noted (servers).
func (b *Builder) fields(es *schema.EngineSample, chosen [nFields]int, sec, nsec int64) {
	var fieldsOf [NumMetrics]uint16 // a metric may feed two fields (SGLang's prompt tokens)
	for f, m := range chosen {
		if m >= 0 {
			fieldsOf[m] |= 1 << f
		}
	}
	b.cstamp++
	anyCreated := false
	curSet, prevSet := &b.sets[b.curSet], &b.sets[1-b.curSet]
	var curHas [nFields]bool
	for f := nGauges; f < nFields; f++ {
		if chosen[f] >= 0 {
			b.stamp++
			curSet[f].clear(b.stamp)
			curHas[f] = true
		}
	}
	var sum, delta [nFields]float64
	var n [nFields]int
	var firstSeen [nFields]bool // a series of an export seen for the first time
	// The scrape target of each field's first series, and whether another
	// series of the field had another: series of two servers summed.
	var instance, job [nFields]string
	var mixed [nFields]bool
	anyMixed := false
	replicas := b.replicas[:0]
	for k := range b.obs {
		o := &b.obs[k]
		for fs := fieldsOf[o.metric]; fs != 0; fs &= fs - 1 {
			f := bits.TrailingZeros16(fs)
			if n[f] == 0 {
				instance[f], job[f] = o.instance, o.job
			} else if o.instance != instance[f] || o.job != job[f] {
				mixed[f], anyMixed = true, true
			}
			n[f]++
			switch {
			case f < nGauges:
				sum[f] += o.value // a NaN makes the sum NaN: the field is null below
				if !slices.Contains(replicas, o.replica) {
					replicas = append(replicas, o.replica)
				}
			default:
				i := b.index(o)
				curSet[f].add(i, o.value)
				var inPrev bool
				if b.prevHas[f] {
					var pv float64
					pv, inPrev = prevSet[f].get(i)
					delta[f] += o.value - pv // a new series counts from zero
					firstSeen[f] = firstSeen[f] || !inPrev && b.fromExport
				}
				b.present(i, inPrev)
			}
		}
		anyCreated = anyCreated || counterOf(o.metric) >= 0
	}
	// A counter whose series began anew since the previous time (its
	// _created changed) was reset by a restart, even if it has since
	// passed its old value.
	recreated := anyCreated && b.recreated()
	b.replicas = replicas
	if anyMixed {
		b.noteServers(chosen, mixed)
	}
	for f := 0; f < nGauges; f++ {
		if chosen[f] < 0 || math.IsNaN(sum[f]) {
			// A NaN gauge is a figure the engine did not have; the sum
			// or mean of the replicas' is then unknown too, not the sum
			// of the others.
			continue
		}
		v := &b.vals[f]
		*v = sum[f]
		if f == fKV {
			*v = sum[f] / float64(n[f])
		}
		*sampleFields[f].Of(es) = v
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

	var has [nFields]bool
	reset := recreated
	for f := nGauges; f < nFields; f++ {
		has[f] = curHas[f] && b.havePrev && b.prevHas[f] && !firstSeen[f]
		if !has[f] {
			continue
		}
		cur, prev := &curSet[f], &prevSet[f]
		for _, i := range prev.in {
			if cv, ok := cur.get(i); !ok || cv < prev.val[i] {
				reset = true
			}
		}
	}
	if b.havePrev {
		iv := &b.vals[nFields]
		*iv = float64(sec-b.prevSec) + float64(nsec-b.prevNs)/1e9
		es.IntervalS = iv
	}
	if reset {
		es.CounterReset = true
		b.info.CounterResets++
	} else {
		for f := nGauges; f < nFields; f++ {
			if !has[f] {
				continue
			}
			d := &b.vals[f]
			*d = delta[f]
			*sampleFields[f].Of(es) = d
		}
	}
	b.havePrev, b.prevSec, b.prevNs = true, sec, nsec
	b.curSet = 1 - b.curSet
	b.prevHas = curHas
}
