package rundir

import (
	"math"
	"path/filepath"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/promscrape"
	"github.com/outlast-dev/outlast/schema"
)

// metricsReader reads one metrics format: the samples in order, then, in
// promscrape.Info, what it saw (scrapes, counter resets, the KV pool, the
// span of the samples).
type metricsReader interface {
	Next() (schema.EngineSample, error)
	Info() promscrape.Info
	Close()
}

// openMetrics returns the reader of a metrics file: scrapes of /metrics
// marked with "# scrape" lines, the one format read today.
func openMetrics(lr *lineio.Reader, t0 time.Time) metricsReader {
	return promscrape.NewReader(lr, promscrape.Options{T0: t0})
}

// readMetrics reads the metrics at path.
func (r *runReader) readMetrics(path string) (span, error) {
	sp := newSpan()
	lr, err := open(path)
	if err != nil {
		return sp, err
	}
	defer lr.Close()
	rd := openMetrics(lr, r.t0)
	defer rd.Close() // before lr.Close: the reader's goroutines use lr
	d := r.res.Data
	var samples span // the scrapes' span comes from Info below
	if err := r.collectSamples(rd.Next, &samples); err != nil {
		return sp, err
	}
	if err := lr.Err(); err != nil {
		return sp, err
	}
	info := rd.Info()
	base := filepath.Base(path)
	if info.Scrapes == 0 {
		r.warnf("%s: WARNING: no scrape recognised: the metrics series is empty", base)
	} else if info.Unrecognised > 0 {
		r.warnf("%s: %d of %d scrapes had none of the known vLLM/SGLang metrics", base, info.Unrecognised, info.Scrapes)
	}
	if info.CounterResets > 0 {
		r.warnf("%s: %d counter resets (engine restarts): deltas across them are left null", base, info.CounterResets)
	}
	if pool := info.KVPoolTokens; pool > 0 && d.Run.KVPoolTokens == nil {
		d.Run.KVPoolTokens, d.Run.KVPoolSource = &pool, "metrics"
	}
	if !math.IsNaN(info.FirstS) {
		sp = span{info.FirstS, info.LastS}
	}
	if d.Run.MetricsSHA256, err = lr.SHA256(); err != nil {
		return sp, err
	}
	return sp, nil
}
