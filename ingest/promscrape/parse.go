package promscrape

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/common/expfmt"

	"github.com/outlast-dev/outlast/textpos"
)

// This file parses one scrape with expfmt and turns the series of the known
// metrics into observations, applying the rank rule (Parsing; Several
// engines and ranks), and locates the errors by input line.

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
