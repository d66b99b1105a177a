package promseries

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// This file says what a series' labels mean (its replica, rank and KV
// pool) and checks its values.

// Label is one label pair of a series.
type Label struct{ Name, Value string }

// Series is a series of a known metric as its labels describe it, worked
// out once per series; At gives its observation at one time.
type Series struct {
	obs Obs
}

// Obs is one series of a known metric observed at one time.
type Obs struct {
	metric  int
	value   float64
	key     string // counters: the series' identity, name and sorted labels; _created series: their counter's
	sid     int32  // a Timeline series' number + 1, 0 for others
	replica string // the engine or dp_rank label
	// The scrape target: Prometheus' instance and job labels, "" when
	// absent (Builder.noteServers).
	instance, job string
	kvPool        int64 // vllm:cache_config_info: pool tokens, -1 if not given
	// prefixCaching is vllm:cache_config_info's enable_prefix_caching: 1
	// "True", -1 "False", 0 not given.
	prefixCaching int8
	// The rank rule (rank.go): rank is the tp_rank label, group the series'
	// identity without its ranks within a replica.
	rank    string
	hasRank bool
	group   string
	// hasPid says the series carries the pid of the process that wrote
	// it (prometheus_client's multiprocess gauges).
	hasPid bool
}

// Metric returns the number of the series' metric.
func (s *Series) Metric() int { return s.obs.metric }

// Describe describes the series of known metric m with labels ls (which it
// sorts by name). keep is false for a series outlast ignores: a pipeline
// stage other than 0, which repeats stage 0's view of the batch, or one
// priority's part of SGLang's running or waiting count, beside its total. kvErr is a
// vllm:cache_config_info whose pool labels do not parse, an error only
// while the pool size is not known from elsewhere; the series then gives
// no pool size.
func Describe(m int, ls []Label) (s Series, keep bool, kvErr error) {
	o := Obs{metric: m, kvPool: -1}
	for _, l := range ls {
		switch l.Name {
		case "pp_rank":
			if l.Value != "0" {
				return s, false, nil
			}
		case "priority":
			// SGLang under --enable-priority-scheduling: the total under
			// priority="" (absent once a Prometheus server stores it, which
			// drops empty labels), and a series per priority beside it that
			// it already counts.
			if l.Value != "" && (base(m) == mSRunning || base(m) == mSWaiting) {
				return s, false, nil
			}
		case "tp_rank":
			o.rank, o.hasRank = l.Value, true
		case "pid":
			// prometheus_client's multiprocess mode keeps the pid on
			// gauges; counters it sums over processes itself.
			o.hasPid = isGauge(m)
		case "engine", "dp_rank":
			o.replica = l.Value
		case "instance":
			o.instance = l.Value
		case "job":
			o.job = l.Value
		}
	}
	slices.SortFunc(ls, func(a, b Label) int { return strings.Compare(a.Name, b.Name) })
	if isCounter(m) {
		o.key = seriesKey(Name(m), ls)
	} else if c := counterOf(m); c >= 0 {
		o.key = seriesKey(Name(c), ls) // its counter's key: the Builder pairs them
	}
	if o.hasRank || o.hasPid {
		o.group = groupKey(m, ls)
	}
	if base(m) == mVCacheConfig {
		n, err := cacheConfigPool(ls)
		if err != nil {
			return Series{obs: o}, true, err
		}
		o.kvPool = n
		for _, l := range ls {
			if l.Name == "enable_prefix_caching" {
				switch l.Value {
				case "True":
					o.prefixCaching = 1
				case "False":
					o.prefixCaching = -1
				}
			}
		}
	}
	return Series{obs: o}, true, nil
}

// At returns the series' observation of value v, or the reason v cannot
// be used: a counter must be finite and not negative, a gauge finite or
// NaN (an unknown figure, checkValue).
func (s *Series) At(v float64) (Obs, error) {
	o := s.obs
	o.value = v
	return o, checkValue(o.metric, v)
}

// checkValue returns why value v of metric m cannot be used, or nil. A
// NaN gauge is not an error: NaN is a legitimate sample value in
// Prometheus (the staleness marker, a NaN of its own, never reaches a
// scrape or the HTTP API), and an engine's gauge is NaN when it has no
// figure, so the Builder takes it for an unknown one, a null field. A
// counter that is NaN, infinite or negative has lost its meaning, and an
// infinite gauge is no count or fraction: those are errors.
func checkValue(m int, v float64) error {
	if isCounter(m) && (math.IsNaN(v) || math.IsInf(v, 0) || v < 0) {
		return fmt.Errorf("counter %s has value %v", Name(m), v)
	}
	if isGauge(m) && math.IsInf(v, 0) {
		return fmt.Errorf("gauge %s has value %v", Name(m), v)
	}
	return nil
}

// cacheConfigPool reads the KV pool size from vllm:cache_config_info labels:
// kv_cache_size_tokens (newest), else num_gpu_blocks*block_size; -1 if
// neither is given (num_gpu_blocks was "None" before vLLM 0.8.5).
func cacheConfigPool(ls []Label) (int64, error) {
	var tokens, blocks, size string
	for _, l := range ls {
		switch l.Name {
		case "kv_cache_size_tokens":
			tokens = l.Value
		case "num_gpu_blocks":
			blocks = l.Value
		case "block_size":
			size = l.Value
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

// seriesKey is the identity of a series: its name and its labels, sorted
// by name. The separators are bytes that valid UTF-8, which label values
// must be, never holds, so distinct series cannot share a key.
func seriesKey(name string, ls []Label) string {
	var sb strings.Builder
	sb.WriteString(name)
	for _, l := range ls {
		sb.WriteByte(0xff)
		sb.WriteString(l.Name)
		sb.WriteByte(0xfe)
		sb.WriteString(l.Value)
	}
	return sb.String()
}

// groupKey is the identity of a series of metric m without the labels
// that number its rank within a replica (tp_rank, moe_ep_rank) or the
// process that wrote it (pid): the series of one group describe one batch.
func groupKey(m int, ls []Label) string {
	var sb strings.Builder
	sb.WriteString(Name(m))
	for _, l := range ls {
		switch l.Name {
		case "tp_rank", "moe_ep_rank", "pid":
			continue
		}
		sb.WriteByte(0xff)
		sb.WriteString(l.Name)
		sb.WriteByte(0xfe)
		sb.WriteString(l.Value)
	}
	return sb.String()
}
