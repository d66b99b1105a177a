package promscrape

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// This file builds a scrape's sample from its observations, in input
// order: the gauges, the counter deltas against the previous scrape
// (Counters) and the KV pool size.

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
			*sampleFields[f].Of(es) = &d
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
