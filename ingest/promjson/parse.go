package promjson

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/outlast-dev/outlast/ingest/internal/promseries"
)

// This file reads one query_range answer: the envelope, the matrix, and
// the series of the known metrics into the Timeline.

// parser reads one document.
type parser struct {
	s    scanner
	r    *Reader
	file int // the document's number in the Timeline

	status, resultType     string
	statusAt, resultTypeAt int // offsets of their values, -1 when absent
	errorType, errorText   string
	notes                  []string
	// exportAt is the offset of a member that a VictoriaMetrics
	// /api/v1/export line has at the top and an answer has not ("metric",
	// "values", "timestamps"), -1 when none came.
	exportAt int
	// grafanaAt is the offset of a top-level member that Grafana's panel
	// exports have and an answer has not ("results", "series", "schema"),
	// -1 when none came.
	grafanaAt int

	ls  []promseries.Label
	pts []rawPoint // the points of the series being read
	bad []error    // their own errors (rawPoint.bad)
	// cur is the number of the series being read once its metric is
	// known, -1 to drop its points (a metric outlast does not read), -2
	// while unknown (its values may come first).
	cur   int
	lastN int // the number of points of the previous series
}

// rawPoint is a point held until the end of its series, with the offsets
// its errors need.
type rawPoint struct {
	t         int64 // Unix nanoseconds
	v         float64
	at, vAt   int32 // offsets of the point and its value
	end       int32 // offset just past the point
	bad       int32 // the point's own error: parser.bad[bad-1], at badAt; 0 for none
	badAt     int32
	timeKnown bool
}

// fault records the point's own error at offset at.
func (p *parser) fault(pt *rawPoint, err error, at int) {
	p.bad = append(p.bad, err)
	pt.bad, pt.badAt = int32(len(p.bad)), int32(at)
}

// document reads the whole input: one answer, or several one after the
// other (a loop of curl -s … >> file appends them), or promtool's bare
// matrix.
func (p *parser) document() error {
	s := &p.s
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '[' {
		return p.bare()
	}
	for {
		if err := p.answer(); err != nil {
			return err
		}
		s.ws()
		if s.i == len(s.b) {
			return nil
		}
		if s.b[s.i] != '{' {
			return s.fail("text after the JSON document")
		}
	}
}

// answer reads one answer, an object, from the current offset.
func (p *parser) answer() error {
	s := &p.s
	p.status, p.resultType, p.errorType, p.errorText = "", "", "", ""
	p.statusAt, p.resultTypeAt, p.exportAt, p.grafanaAt = -1, -1, -1, -1
	start := s.i
	err := s.object(func(k []byte) (err error) {
		switch string(k) {
		case "status":
			p.status, p.statusAt, err = p.text()
		case "errorType":
			p.errorType, _, err = p.text()
		case "error":
			p.errorText, _, err = p.text()
		case "warnings", "infos":
			err = p.strings(string(k))
		case "isPartial":
			err = p.partial()
		case "data":
			err = p.data()
		case "metric", "values", "timestamps":
			if p.exportAt < 0 {
				p.exportAt = s.i
			}
			err = s.skip(0)
		case "results", "series", "schema":
			if p.grafanaAt < 0 {
				p.grafanaAt = start
			}
			err = s.skip(0)
		default:
			err = s.skip(0)
		}
		return err
	})
	if err != nil {
		if p.statusAt < 0 && p.grafanaAt >= 0 {
			// A frame's data has no resultType: the form is the
			// error, not that.
			return s.errAt(p.grafanaAt, p.grafanaAt, p.grafanaAt+80, "%s", grafanaReason)
		}
		return err
	}
	if p.statusAt < 0 && p.grafanaAt >= 0 {
		return s.errAt(p.grafanaAt, p.grafanaAt, p.grafanaAt+80, "%s", grafanaReason)
	}
	if p.statusAt < 0 && p.exportAt >= 0 {
		// Said before the text that follows it, which for JSON lines is
		// the next series: the form is the error, not its second line.
		return s.errAt(start, start, start+80, "%s", errExport)
	}
	switch {
	case p.statusAt < 0:
		return s.errAt(start, start, start+40, `no "status": not an answer of the Prometheus HTTP API`)
	case p.status != "success":
		return s.errAt(p.statusAt, p.statusAt, p.statusAt+40, "Prometheus answered status %q: %s: %s", p.status, p.errorType, p.errorText)
	}
	return nil
}

// errExport is the reason of the error for VictoriaMetrics' export form.
var errExport = errors.New(`a VictoriaMetrics /api/v1/export answer (JSON lines, one series per line: ` +
	`{"metric":{…},"values":[…],"timestamps":[<ms>…]}), not a form outlast reads: ` +
	`export the series with /api/v1/query_range, which VictoriaMetrics answers as Prometheus does (docs/run-format.md, metrics)`)

// bare reads a matrix without the API's envelope, an array of series: what
// promtool query -o json range prints (prometheus/prometheus
// cmd/promtool/main.go, jsonPrinter.printValue: the client's model.Value
// through encoding/json, prometheus/common model.SampleStream, whose times
// are seconds with up to three decimals and whose values are strings). Its
// series are read as an answer's; an instant vector's samples (promtool
// query instant) and Grafana's frames are refused as series.
func (p *parser) bare() error {
	s := &p.s
	if err := s.array(p.series); err != nil {
		return err
	}
	s.ws()
	if s.i < len(s.b) {
		return s.fail("text after the JSON document")
	}
	return nil
}

// grafanaReason is the reason of the error for Grafana's JSON of a panel's
// data: its data source API's answer (/api/ds/query: {"results":{"A":
// {"frames":[…]}}}, grafana/grafana docs/sources/developers/http_api/
// data_source.md), the inspector's "Panel data" ({"state","series",
// "timeRange",…}, public/app/features/inspector) or one of its data
// frames ({"schema","data"}).
const grafanaReason = `Grafana's JSON of a panel's data (its data source API's answer, or Inspect > JSON > Panel data or DataFrame JSON), ` +
	`not a form outlast reads: a panel's frames are its query at Grafana's step, most often an expression, not the engine's series. ` +
	`Export the series themselves with /api/v1/query_range, which Grafana also proxies (docs/run-format.md, metrics)`

// partial reads VictoriaMetrics' isPartial, a boolean: true when some
// vmstorage nodes did not answer, so that series or points may be
// missing (VictoriaMetrics docs/victoriametrics/Cluster-VictoriaMetrics.md:
// "Every partial JSON response contains \"isPartial\": true"). It is a
// note, as Prometheus' warnings are, but a loud one: the samples read may
// lack figures with nothing else to show it.
func (p *parser) partial() error {
	s := &p.s
	s.ws()
	at := s.i
	switch {
	case bytes.HasPrefix(s.b[at:], []byte("true")):
		s.i += 4
		p.notes = append(p.notes, fmt.Sprintf(`%s: WARNING: VictoriaMetrics answered "isPartial": true: `+
			`some storage nodes did not answer, so series or points may be missing. `+
			`Query again when all are up, or with deny_partial_response=1 to get an error instead of a partial answer`, s.name))
	case bytes.HasPrefix(s.b[at:], []byte("false")):
		s.i += 5
	default:
		return s.errAt(at, at, at+40, "isPartial: want true or false, got %s", describe(s))
	}
	return nil
}

// text reads a string value with its offset.
func (p *parser) text() (string, int, error) {
	p.s.ws()
	at := p.s.i
	if k := p.s.kind(); k != "a string" {
		return "", at, p.s.errAt(at, at, at+40, "want a string, got %s", k)
	}
	b, err := p.s.str()
	return string(b), at, err
}

// strings reads Prometheus' warnings or infos, an array of strings, into
// the notes.
func (p *parser) strings(what string) error {
	kind := "warning"
	if what == "infos" {
		kind = "info"
	}
	return p.s.array(func() error {
		t, _, err := p.text()
		if err == nil {
			p.notes = append(p.notes, fmt.Sprintf("%s: Prometheus %s: %s", p.s.name, kind, t))
		}
		return err
	})
}

// data reads the data member: resultType and result.
func (p *parser) data() error {
	s := &p.s
	s.ws()
	at := s.i
	if at < len(s.b) && s.b[at] == '[' {
		// docs/querying/api.md: /api/v1/series, /labels and
		// /query_exemplars answer a list as their data.
		return s.errAt(at, at, at+40, `data is a list, as /api/v1/series, /api/v1/labels or /api/v1/query_exemplars answer: `+
			`not a query's result; export the series with /api/v1/query_range`)
	}
	err := s.object(func(k []byte) (err error) {
		switch string(k) {
		case "resultType":
			p.resultType, p.resultTypeAt, err = p.text()
		case "result":
			if p.resultTypeAt >= 0 && p.resultType != "matrix" {
				// A vector, scalar or string answer, refused by its
				// resultType below: a scalar's or string's result is
				// no array of series, and reading it as one would
				// report its syntax instead of its type.
				err = s.skip(0)
			} else {
				err = s.array(p.series)
			}
		default:
			err = s.skip(0)
		}
		return err
	})
	if err != nil {
		return err
	}
	switch {
	case p.resultTypeAt < 0:
		return s.errAt(at, at, at+40, `data has no "resultType"`)
	case p.resultType != "matrix":
		return s.errAt(p.resultTypeAt, p.resultTypeAt, p.resultTypeAt+40,
			`resultType %q: want "matrix", the answer of /api/v1/query_range (or of /api/v1/query with a range selector such as [1h])`, p.resultType)
	}
	return nil
}

// series reads one member of the result: its metric (labels) and its
// values, in either order, and adds the points of a known metric.
func (p *parser) series() error {
	s := &p.s
	s.ws()
	at := s.i
	p.ls, p.pts, p.bad, p.cur = p.ls[:0], p.pts[:0], p.bad[:0], -2
	metricAt, histAt, valueAt, frameAt := -1, -1, -1, -1
	hasValues := false
	err := s.object(func(k []byte) (err error) {
		switch string(k) {
		case "value": // an instant vector's sample
			s.ws()
			valueAt = s.i
			err = s.skip(0)
		case "schema": // a Grafana data frame
			s.ws()
			frameAt = s.i
			err = s.skip(0)
		case "metric":
			s.ws()
			metricAt = s.i
			var name string
			if name, err = p.metric(); err == nil {
				err = p.resolve(name, metricAt)
			}
		case "values":
			hasValues = true
			err = p.values()
		case "histograms":
			s.ws()
			histAt = s.i
			err = s.skip(0)
		default:
			err = s.skip(0)
		}
		return err
	})
	if err != nil {
		return err
	}
	switch {
	case frameAt >= 0 && metricAt < 0:
		return s.errAt(at, at, at+80, "%s", grafanaReason)
	case metricAt < 0:
		return s.errAt(at, at, s.i, `series has no "metric"`)
	case valueAt >= 0 && !hasValues:
		return s.errAt(valueAt, valueAt, valueAt+40, `an instant vector's sample ("value", as /api/v1/query or promtool query instant give): `+
			`want a range query's series ("values"), the answer of /api/v1/query_range or promtool query range`)
	}
	if histAt >= 0 && p.cur != -1 {
		return s.errAt(histAt, histAt, histAt+40, "%s has native histogram points: want float values", promseries.Name(p.r.tl.Metric(p.cur)))
	}
	if p.cur >= 0 { // the points that came before the metric
		for i := range p.pts {
			p.add(p.cur, &p.pts[i])
		}
	}
	return nil
}

// resolve sets p.cur for the series of metric name and labels p.ls,
// whose metric object is at offset at.
func (p *parser) resolve(name string, at int) error {
	s := &p.s
	if name == "" {
		return s.errAt(at, at, s.i, `series has no __name__: export the series itself (query=vllm:num_requests_running), not an expression such as rate() or sum()`)
	}
	p.cur = -1
	m := promseries.Lookup([]byte(name))
	if m < 0 {
		return nil
	}
	id, keep, kvErr := p.r.tl.Series(m, p.ls)
	if kvErr != nil && !p.r.b.KVFound() {
		p.r.errs = append(p.r.errs, s.errAt(at, at, s.i, "%v", kvErr))
	}
	if keep {
		p.cur = id
	}
	return nil
}

// add adds a point to series id, or its error.
func (p *parser) add(id int, pt *rawPoint) {
	var err error
	at := int(pt.badAt)
	if pt.bad > 0 {
		err = p.bad[pt.bad-1]
	}
	if err == nil {
		if err = p.r.tl.Check(id, pt.v); err != nil {
			at = int(pt.vAt)
		}
	}
	if err == nil {
		line, col := p.s.lineCol(int(pt.vAt))
		if err = p.r.tl.Add(id, pt.t, pt.v, false, p.file, line, col); err != nil {
			at = int(pt.vAt)
		}
	}
	if err != nil {
		p.r.errs = append(p.r.errs, p.s.errAt(at, int(pt.at), int(pt.end), "%v", err))
		if pt.timeKnown {
			p.r.tl.Poison(pt.t)
		}
	}
}

// metric reads the label set, returning the __name__ label's value.
func (p *parser) metric() (string, error) {
	s := &p.s
	name := ""
	err := s.object(func(k []byte) error {
		v, _, err := p.text()
		switch {
		case err != nil:
		case string(k) == "__name__":
			name = v
		default:
			p.ls = append(p.ls, promseries.Label{Name: string(k), Value: v})
		}
		return err
	})
	return name, err
}
