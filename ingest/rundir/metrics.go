package rundir

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
	"github.com/outlast-dev/outlast/ingest/internal/promseries"
	"github.com/outlast-dev/outlast/ingest/promjson"
	"github.com/outlast-dev/outlast/ingest/promscrape"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/textpos"
)

// metricsReader reads one metrics format: the samples in order, then, in
// promseries.Info, what it saw (scrapes, counter resets, the KV pool, the
// span of the samples).
type metricsReader interface {
	Next() (schema.EngineSample, error)
	Info() promseries.Info
	Close()
}

// metricsFormat returns the format of the metrics at path: the manifest's
// files.metrics_format when it gives one, else told from the content. A
// directory holds query_range answers; a file starting with a JSON object
// is one; else promscrape.Sniff tells the exposition forms apart, and its
// error (a single dump, which has no time) stops the ingest.
func metricsFormat(path, override string, dir bool) (string, error) {
	if dir && override != "" && override != schema.MetricsQueryRange {
		return "", fmt.Errorf("%s is a directory: files.metrics_format %s reads a file (only %s reads a directory of answers)",
			filepath.Base(path), override, schema.MetricsQueryRange)
	}
	switch {
	case override != "":
		return override, nil
	case dir:
		return schema.MetricsQueryRange, nil
	}
	lr, err := openHead(path)
	if err != nil {
		return "", err
	}
	defer lr.Close()
	head, _, err := lr.NextChunk(nil, 64<<10)
	if err != nil && err != io.EOF {
		return "", err
	}
	if promjson.Looks(head) {
		return schema.MetricsQueryRange, nil
	}
	lr.Close()
	if lr, err = openHead(path); err != nil {
		return "", err
	}
	defer lr.Close()
	return promscrape.Sniff(lr)
}

// metricsFiles returns the query_range answers of directory dir, sorted by
// name: files named *.json, *.json.gz or *.json.zst. Other files are
// warned of and left out; hidden files are left out.
func (r *runReader) metricsFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range ents {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "."):
		case !e.Type().IsRegular():
			r.warnf("%s/%s: not a regular file: left out", filepath.Base(dir), name)
		case strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".json.gz") || strings.HasSuffix(name, ".json.zst"):
			files = append(files, filepath.Join(dir, name))
		default:
			r.warnf("%s/%s: not a .json query_range answer: left out", filepath.Base(dir), name)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no .json query_range answers in the directory", filepath.Base(dir))
	}
	slices.Sort(files)
	return files, nil
}

// metricsInput is the metrics of a run opened for reading: the reader of
// their format, and its inputs (one file, or a directory's answers).
type metricsInput struct {
	format string
	dir    bool // a directory of query_range answers
	rd     metricsReader
	inputs []*lineio.Reader
}

// close closes the reader, then its inputs: a reader's goroutines use them.
func (in *metricsInput) close() {
	if in.rd != nil {
		in.rd.Close()
	}
	for _, lr := range in.inputs {
		lr.Close()
	}
}

// openMetrics opens the metrics at path, a file or (query_range answers) a
// directory, in the manifest's format or the one its content shows, with
// run seconds counted from t0.
func (r *runReader) openMetrics(path, override string, t0 time.Time) (*metricsInput, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	in := &metricsInput{dir: st.IsDir()}
	in.format, err = metricsFormat(path, override, st.IsDir())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.dir, err)
	}
	files := []string{path}
	if st.IsDir() {
		if files, err = r.metricsFiles(path); err != nil {
			return nil, fmt.Errorf("%s: %w", r.dir, err)
		}
	}
	for _, f := range files {
		name := filepath.Base(f)
		if st.IsDir() {
			name = filepath.Base(path) + "/" + name
		}
		lr, err := lineio.Open(f, name)
		if err != nil {
			in.close()
			return nil, err
		}
		in.inputs = append(in.inputs, lr)
	}
	opt := promscrape.Options{T0: t0}
	switch in.format {
	case schema.MetricsScrapes:
		in.rd = promscrape.NewReader(in.inputs[0], opt)
	case schema.MetricsPrometheusText, schema.MetricsOpenMetrics:
		in.rd = promscrape.NewTimedReader(in.inputs[0], in.format, opt)
	case schema.MetricsQueryRange:
		in.rd = promjson.NewReader(in.inputs, promjson.Options{T0: t0})
	default:
		in.close()
		return nil, fmt.Errorf("%s: unknown metrics format %q", r.dir, in.format)
	}
	return in, nil
}

// readMetrics reads the metrics at path, a file or (query_range answers) a
// directory, in the manifest's format or the one its content shows.
func (r *runReader) readMetrics(path, override string) (span, error) {
	sp := newSpan()
	in, err := r.openMetrics(path, override, r.t0)
	if err != nil {
		return sp, err
	}
	defer in.close()
	format, rd, inputs := in.format, in.rd, in.inputs
	d := r.res.Data
	d.Run.MetricsFormat = format
	var samples span // the scrapes' span comes from Info below
	if err := r.collectSamples(rd.Next, &samples); err != nil {
		return sp, cutNote(err, inputs...)
	}
	for _, lr := range inputs {
		if err := lr.Err(); err != nil {
			return sp, err
		}
	}
	r.metricsWarnings(filepath.Base(path), format, rd.Info())
	info := rd.Info()
	if pool := info.KVPoolTokens; pool > 0 && d.Run.KVPoolTokens == nil {
		d.Run.KVPoolTokens, d.Run.KVPoolSource = &pool, "metrics"
	}
	r.metricsPrefixCaching = info.PrefixCaching
	if !math.IsNaN(info.FirstS) {
		sp = span{info.FirstS, info.LastS}
	}
	d.Run.MetricsSHA256, err = metricsSHA256(inputs, in.dir)
	for _, lr := range inputs {
		if cerr := r.checkCut(lr); cerr != nil && err == nil {
			err = cerr
		}
	}
	return sp, err
}

// metricsWarnings warns of what the reader saw that a researcher must
// know.
func (r *runReader) metricsWarnings(base, format string, info promseries.Info) {
	for _, n := range info.Notes {
		r.warnf("%s", n)
	}
	switch {
	case info.Scrapes == 0 && format == schema.MetricsQueryRange:
		r.warnf("%s: WARNING: no series recognised: none of the answers' series is one outlast reads; the metrics series is empty", base)
	case info.Scrapes == 0:
		r.warnf("%s: WARNING: no scrape recognised: the metrics series is empty", base)
	case info.Unrecognised > 0:
		r.warnf("%s: %d of %d scrapes had none of the known vLLM/SGLang metrics", base, info.Unrecognised, info.Scrapes)
	}
	if info.CounterResets > 0 {
		r.warnf("%s: %d counter resets (engine restarts): deltas across them are left null", base, info.CounterResets)
	}
	if info.CounterGaps > 0 {
		r.warnf("%s: %d time(s) without any series of a counter that the time before had (a partial scrape, or the engine restarting): the counter's deltas there and at the next time are left null", base, info.CounterGaps)
	}
	if info.Repeats > 0 {
		r.warnf("%s: %d points given twice at one time with one value (a poll that saw the same scrape again, or overlapping exports): kept once", base, info.Repeats)
	}
	if info.PidCopies > 0 {
		r.warnf("%s: %d series left out as another process's copy of a gauge (series that differ only in pid, as each API-server process of vLLM before #28792 exports them): the largest of each was used", base, info.PidCopies)
	}
	if info.RankRepeats > 0 {
		r.warnf("%s: %d series repeated an SGLang rank under another pid: the first of each was used", base, info.RankRepeats)
	}
}

// metricsSHA256 returns the sha256 of the metrics as stored: of the file,
// or, for a directory, of its sha256sum listing ("<hex>  <name>\n" for
// each answer, in name order).
func metricsSHA256(inputs []*lineio.Reader, dir bool) (string, error) {
	if !dir {
		return inputs[0].SHA256()
	}
	h := sha256.New()
	for _, lr := range inputs {
		sum, err := lr.SHA256()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s  %s\n", sum, filepath.Base(lr.Name()))
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

// ReadMetricsInfo reads the metrics at path (a file or a directory of
// query_range answers, in the format their content shows) for what
// outlast init can take from them: the engine, its KV pool and
// cache_config_info's prefix caching. Bad lines are passed over: ingest
// reports them.
func ReadMetricsInfo(path string) (promseries.Info, error) {
	r := &runReader{dir: filepath.Dir(path), res: &Result{}}
	in, err := r.openMetrics(path, "", time.Unix(0, 0).UTC())
	if err != nil {
		return promseries.Info{}, err
	}
	defer in.close()
	for {
		_, err := in.rd.Next()
		if err == io.EOF {
			break
		}
		var pe *textpos.ParseError
		if err != nil && !errors.As(err, &pe) {
			return promseries.Info{}, err
		}
	}
	for _, lr := range in.inputs {
		if err := lr.Err(); err != nil {
			return promseries.Info{}, err
		}
	}
	return in.rd.Info(), nil
}
