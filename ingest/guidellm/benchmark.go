package guidellm

import (
	"math"

	"github.com/outlast-dev/outlast/textpos"

	"github.com/outlast-dev/outlast/ingest/internal/jsondoc"
)

// Benchmark is one benchmark of a report: the header read before its
// requests, and, once its requests are read, what the reader saw of them.
type Benchmark struct {
	Index int
	// Strategy is the scheduling (config.strategy.type_: synchronous,
	// concurrent, throughput, constant, poisson, ...); Rate its target
	// requests/s and Concurrency its streams (1 for synchronous), nil when
	// it has none.
	Strategy    string
	Rate        *float64
	Concurrency *int64
	// StrategyAt is the member the strategy was read from:
	// config.strategy (v0.4+), args.strategy (v0.3).
	StrategyAt string
	Model      string // config.backend.model, else the report's
	// RequestFormat is the endpoint the backend sent the requests to
	// (config.backend.request_format, v0.7+: "/v1/chat/completions",
	// "/v1/embeddings", ...), else the report's; "" when not given.
	RequestFormat string
	// Start and End bound the benchmark's run (scheduler_metrics
	// start_time and end_time; v0.3 run_stats), Unix seconds; 0 when not
	// given.
	Start, End float64

	window      [2]float64 // the measured window
	windowHalf  uint8      // bit 0: window[0] read, bit 1: window[1]
	windowKnown bool
	// totals is metrics.request_totals per bucket, -1 when absent;
	// totalsRaw its text and totalsPos, totalsCol its position, for the
	// sampling error.
	totals    [3]int64
	totalsRaw []byte
	totalsPos textpos.Pos // where request_totals stands
	totalsCol int
	sampleCfg *int64 // config.sample_size or sample_requests

	// embeddingsOutput counts the embeddings requests in the window whose
	// output_tokens was a positive count, stored as 0; emptyOutput the
	// requests that did not complete, output empty, whose positive
	// output_tokens was stored as 0.
	embeddingsOutput, emptyOutput int64
	// streamedOutput counts the requests in the window that did not
	// complete, with output_tokens null and text streamed, stored as the
	// token chunks they received.
	streamedOutput int64

	// In is the number of requests read per bucket (successful, errored,
	// incomplete) inside the measured window; Excluded those outside it.
	In [3]int64
	// bad counts the requests of each list refused as bad (kept as
	// rejects with --lenient), which request_totals counts too.
	bad      [3]int64
	Excluded int64
}

// Buckets are the request lists of a benchmark, in the order of In.
var Buckets = [3]string{"successful", "errored", "incomplete"}

// read takes the header member key of a benchmark.
func (b *Benchmark) read(key string, raw []byte) *jsondoc.Err {
	m := jsondoc.Member{Key: []byte(key), Val: raw}
	var scratch [3]jsondoc.Object
	switch key {
	case "config", "args": // v0.4+ config; v0.3 args
		o, err := m.Object(key, scratch[0])
		if err != nil {
			return err
		}
		if s, ok := o.Get("strategy"); ok && !jsondoc.IsNull(s.Val) {
			if err := b.strategy(s, key+".strategy", scratch[1]); err != nil {
				return err
			}
		}
		for _, k := range []string{"sample_size", "sample_requests"} {
			if s, ok := o.Get(k); ok && !jsondoc.IsNull(s.Val) {
				n, err := s.Int(key + "." + k)
				if err != nil {
					return err
				}
				b.sampleCfg = &n
			}
		}
		if be, ok := o.Get("backend"); ok && !jsondoc.IsNull(be.Val) && be.Val[0] == '{' {
			bo, _ := be.Object(key+".backend", scratch[1])
			for _, f := range []struct {
				key string
				dst *string
			}{{"model", &b.Model}, {"request_format", &b.RequestFormat}} {
				if v, ok := bo.Get(f.key); ok && !jsondoc.IsNull(v.Val) {
					s, err := v.String(key + ".backend." + f.key)
					if err != nil {
						return err
					}
					if s != "" {
						*f.dst = s
					}
				}
			}
		}
	case "worker": // v0.3
		o, err := m.Object(key, scratch[0])
		if err != nil {
			return err
		}
		if md, ok := o.Get("backend_model"); ok && !jsondoc.IsNull(md.Val) {
			if b.Model, err = md.String("worker.backend_model"); err != nil {
				return err
			}
		}
	case "scheduler_metrics", "run_stats": // v0.4+; v0.3
		o, err := m.Object(key, scratch[0])
		if err != nil {
			return err
		}
		if key == "scheduler_metrics" {
			if err := b.windowFrom(o, key, "measure_start_time", "measure_end_time"); err != nil {
				return err
			}
		}
		if b.Start, err = optSeconds(o, key, "start_time"); err != nil {
			return err
		}
		if b.End, err = optSeconds(o, key, "end_time"); err != nil {
			return err
		}
	case "start_time", "end_time":
		// The benchmark's measured window: v0.3 writes it before the
		// requests; v0.4+ computes it from scheduler_metrics (read first)
		// and writes it after them.
		if b.windowKnown {
			return nil
		}
		v, err := m.Number(key)
		if err != nil {
			return err
		}
		i := 0
		if key == "end_time" {
			i = 1
		}
		b.window[i] = v
		b.windowHalf |= 1 << i
		b.windowKnown = b.windowHalf == 3
	case "metrics":
		o, err := m.Object(key, scratch[0])
		if err != nil {
			return err
		}
		if t, ok := o.Get("request_totals"); ok {
			return b.readTotals(t, "metrics.request_totals", scratch[1])
		}
	case "request_totals": // v0.3
		return b.readTotals(m, key, scratch[1])
	}
	return nil
}

func (b *Benchmark) windowFrom(o jsondoc.Object, sec, startKey, endKey string) *jsondoc.Err {
	s, ok1 := o.Get(startKey)
	e, ok2 := o.Get(endKey)
	if !ok1 || !ok2 || jsondoc.IsNull(s.Val) || jsondoc.IsNull(e.Val) {
		return nil
	}
	var err *jsondoc.Err
	if b.window[0], err = s.Number(sec + "." + startKey); err != nil {
		return err
	}
	if b.window[1], err = e.Number(sec + "." + endKey); err != nil {
		return err
	}
	b.windowKnown = true
	return nil
}

func optSeconds(o jsondoc.Object, sec, key string) (float64, *jsondoc.Err) {
	m, ok := o.Get(key)
	if !ok || jsondoc.IsNull(m.Val) {
		return 0, nil
	}
	v, err := m.Number(sec + "." + key)
	if err != nil || v < 0 {
		return 0, err
	}
	return v, nil
}

func (b *Benchmark) readTotals(m jsondoc.Member, name string, scratch jsondoc.Object) *jsondoc.Err {
	b.totals = [3]int64{-1, -1, -1}
	if jsondoc.IsNull(m.Val) {
		return nil
	}
	o, err := m.Object(name, scratch)
	if err != nil {
		return err
	}
	for i, k := range Buckets {
		if v, ok := o.Get(k); ok && !jsondoc.IsNull(v.Val) {
			if b.totals[i], err = v.Count(name + "." + k); err != nil {
				return err
			}
		}
	}
	b.totalsRaw = m.Val
	return nil
}

// strategy reads a scheduling strategy (scheduler/strategies.py).
func (b *Benchmark) strategy(m jsondoc.Member, name string, scratch jsondoc.Object) *jsondoc.Err {
	o, err := m.Object(name, scratch)
	if err != nil {
		return err
	}
	b.StrategyAt = name
	if t, ok := o.Get("type_"); ok && !jsondoc.IsNull(t.Val) {
		if b.Strategy, err = t.String(name + ".type_"); err != nil {
			return err
		}
	}
	if r, ok := o.Get("rate"); ok && !jsondoc.IsNull(r.Val) {
		v, err := r.Number(name + ".rate")
		if err != nil {
			return err
		}
		if v > 0 && !math.IsInf(v, 0) {
			b.Rate = &v
		}
	}
	if b.Strategy == "synchronous" {
		one := int64(1)
		b.Concurrency = &one
		return nil
	}
	// A concurrent strategy's streams; throughput's max_concurrency, the
	// requests it keeps in flight. A schedule's (constant, poisson, trace)
	// max_concurrency caps it and is no load: the load is its rate
	// (scheduler/strategies.py).
	keys := []string{"streams"}
	if b.Strategy == "throughput" {
		keys = append(keys, "max_concurrency")
	}
	for _, k := range keys {
		if s, ok := o.Get(k); ok && !jsondoc.IsNull(s.Val) {
			n, err := s.Count(name + "." + k)
			if err != nil {
				return err
			}
			b.Concurrency = &n
			return nil
		}
	}
	return nil
}

// readyKeys names, for each scheduling strategy, the timing that says
// when a request was ready: v0.4 and later's info.timings member, then
// v0.3's scheduler_info member (scheduler/strategies.py,
// scheduler/worker.py; v0.3.1 scheduler/strategy.py, worker.py).
//
// A strategy with a schedule (constant, poisson; trace from v0.7)
// computes each request's time before the worker takes it: that is
// targeted_start, and a request that waited for a free slot after it
// (max_concurrency) waited in the client.
//
// A closed loop (synchronous, concurrent, throughput) sends a request
// when a slot of the worker frees: the worker takes the next request from
// the queue then, and stamps it dequeued. targeted_start says nothing of
// it: in v0.3 it is the time the worker asked for the next one, right
// after sending the one before; from v0.4.0 to v0.7.0 the worker never
// told the strategy that a successful request completed
// (request_info cleared before strategy.request_completed), so
// synchronous and concurrent give every request the scheduler's start;
// throughput always gives the start.
var readyKeys = map[string][2]string{
	"synchronous": {"dequeued", "dequeued_time"},
	"concurrent":  {"dequeued", "dequeued_time"},
	"throughput":  {"dequeued", "dequeued_time"},
	"constant":    {"targeted_start", "targeted_start_time"},
	"poisson":     {"targeted_start", "targeted_start_time"},
	"trace":       {"targeted_start", "targeted_start_time"},
}

// readyKey returns the timing that gives the benchmark's requests' ready
// time, in the v0.3 layout when v03; "" when its strategy is not known.
func (b *Benchmark) readyKey(v03 bool) string {
	k := readyKeys[b.Strategy]
	if v03 {
		return k[1]
	}
	return k[0]
}

// EmbeddingsFormat is the request format of GuideLLM's embeddings
// endpoint (backends/openai/http.py, OpenAIHTTPBackendArgs.request_format).
const EmbeddingsFormat = "/v1/embeddings"

// Embeddings reports whether the benchmark's requests went to the
// embeddings endpoint, which generates no tokens: GuideLLM's
// EmbeddingsRequestHandler (backends/openai/request_handlers.py) leaves
// the response's output_metrics empty, so a request's output_tokens is
// null (schemas/request_stats.py), or the dataset's requested count when
// one was set (compile_stats in schemas/response.py merges the request's
// output_metrics in).
func (b *Benchmark) Embeddings() bool { return b.RequestFormat == EmbeddingsFormat }

// inWindow reports whether a request that started at start (NaN when not
// known) and ended at end lies in the measured window, as GuideLLM's
// get_within_range decides: it ends at or after the window's start and
// starts (else ends) at or before its end.
func (b *Benchmark) inWindow(start, end float64) bool {
	if !b.windowKnown {
		return true
	}
	if end < b.window[0] {
		return false
	}
	if !math.IsNaN(start) {
		return start <= b.window[1]
	}
	return end <= b.window[1]
}

// read takes a report-level member.
func (rep *Report) read(key string, raw []byte) *jsondoc.Err {
	m := jsondoc.Member{Key: []byte(key), Val: raw}
	var scratch [3]jsondoc.Object
	if len(raw) == 0 || raw[0] != '{' {
		if jsondoc.IsNull(raw) {
			return nil
		}
		return jsondoc.Errf(0, "%s: want an object, got %s", key, jsondoc.Describe(raw))
	}
	o, _ := m.Object(key, scratch[0])
	switch key {
	case "metadata":
		if v, ok := o.Get("version"); ok && !jsondoc.IsNull(v.Val) {
			n, err := v.Count("metadata.version")
			if err != nil {
				return err
			}
			rep.SchemaVersion = int(n)
		}
		if v, ok := o.Get("guidellm_version"); ok && !jsondoc.IsNull(v.Val) {
			var err *jsondoc.Err
			if rep.ToolVersion, err = v.String("metadata.guidellm_version"); err != nil {
				return err
			}
		}
	case "args": // v0.4-v0.6
		if err := rep.backend(o, "args", scratch[1]); err != nil {
			return err
		}
		if bk, ok := o.Get("backend_kwargs"); ok && !jsondoc.IsNull(bk.Val) && bk.Val[0] == '{' {
			bo, _ := bk.Object("args.backend_kwargs", scratch[1])
			return rep.backend(bo, "args.backend_kwargs", scratch[2])
		}
	case "config": // v0.7+
		if sp, ok := o.Get("spec"); ok && !jsondoc.IsNull(sp.Val) && sp.Val[0] == '{' {
			so, _ := sp.Object("config.spec", scratch[1])
			if be, ok := so.Get("backend"); ok && !jsondoc.IsNull(be.Val) && be.Val[0] == '{' {
				bo, _ := be.Object("config.spec.backend", scratch[2])
				return rep.backend(bo, "config.spec.backend", nil)
			}
		}
	}
	return nil
}

// backend takes the model, target and request format of an object that
// names them.
func (rep *Report) backend(o jsondoc.Object, name string, _ jsondoc.Object) *jsondoc.Err {
	for _, f := range []struct {
		key string
		dst *string
	}{{"model", &rep.Model}, {"target", &rep.Target}, {"request_format", &rep.RequestFormat}} {
		if v, ok := o.Get(f.key); ok && !jsondoc.IsNull(v.Val) && v.Val[0] == '"' {
			s, err := v.String(name + "." + f.key)
			if err != nil {
				return err
			}
			if s != "" {
				*f.dst = s
			}
		}
	}
	return nil
}
