package inferenceperf

import (
	"errors"
	"io"
	"math"

	"github.com/outlast-dev/outlast/ingest/internal/jsondoc"
	"github.com/outlast-dev/outlast/textpos"
)

// ErrNoAnchor is the kind (errors.Is) of the error of a file whose clock
// nothing anchors to Unix time: its requests read, but their times cannot
// be placed (outlast init counts them and asks for files.clock_offset_s).
var ErrNoAnchor = errors.New("no clock anchor")

// anchorClock finds the offset from the file's perf_counter clock to Unix
// time: from the manifest, else the per-session file, else the responses'
// "created" stamps.
func (r *Reader) anchorClock(recs []record, b bounds) error {
	if o := r.opt.ClockOffsetS; o != nil {
		r.anchor = Anchor{Method: AnchorManifest, OffsetS: *o}
		return nil
	}
	var found []Anchor
	if len(recs) > 0 {
		ps, err := r.perSessionBounds()
		if err != nil {
			return err
		}
		if ps != nil {
			lo, hi := ps[0]-b.minStart, ps[1]-b.maxEnd
			if lo <= hi {
				found = append(found, interval(AnchorPerSession, lo, hi))
			} else {
				r.warnf("%s: the sessions of %s do not bracket the requests (offset %.3f..%.3f s): not used as the clock anchor", r.name, PerSessionFile, lo, hi)
			}
		}
		if b.created > 0 {
			if b.lo <= b.hi {
				found = append(found, interval(AnchorCreated, b.lo, b.hi))
			} else {
				r.warnf("%s: the responses' \"created\" stamps disagree with the request times by %.3f s (server and client clocks apart?): not used as the clock anchor", r.name, b.lo-b.hi)
			}
		}
	}
	if len(found) == 0 {
		if len(recs) == 0 {
			r.anchor = Anchor{Method: AnchorManifest}
			return nil
		}
		return textpos.Reasonf(-1, ErrNoAnchor, "%s: its times are inference-perf's perf_counter (a monotonic clock, not Unix time) and nothing in the directory anchors them "+
			"(no %s, no \"created\" stamps in the responses): give the offset, Unix time minus perf_counter in seconds, as %s in run.yaml",
			r.name, PerSessionFile, OffsetKey)
	}
	r.anchor = found[0]
	if len(found) == 2 {
		a, c := found[0], found[1]
		if math.Abs(a.OffsetS-c.OffsetS) > *a.UncertaintyS+*c.UncertaintyS {
			r.warnf("%s: the clock anchors disagree: %s gives %.3f ± %.3f s, %s %.3f ± %.3f s (the first is used)",
				r.name, a.Method, a.OffsetS, *a.UncertaintyS, c.Method, c.OffsetS, *c.UncertaintyS)
		}
	}
	return nil
}

// interval is the anchor at the middle of [lo, hi].
func interval(method string, lo, hi float64) Anchor {
	half := (hi - lo) / 2
	return Anchor{Method: method, OffsetS: lo + half, UncertaintyS: &half}
}

// perSessionBounds returns the earliest session start and latest session
// end of the per-session file, nil without one.
func (r *Reader) perSessionBounds() (*[2]float64, error) {
	f, err := r.openPerSession()
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Close()
	doc := jsondoc.New(f, PerSessionFile)
	tok, err := doc.ReadToken()
	if err != nil {
		if err == io.EOF {
			return nil, doc.Errorf(0, nil, "the file is empty")
		}
		return nil, err
	}
	if tok.Kind() != '[' {
		return nil, doc.Errorf(0, nil, "want a JSON list of sessions")
	}
	out := [2]float64{math.Inf(1), math.Inf(-1)}
	var o jsondoc.Object
	n := 0
	for doc.PeekKind() != ']' {
		raw, start, err := doc.ReadValue()
		if err != nil {
			if err == io.EOF {
				return nil, doc.Errorf(doc.Offset(), nil, "the file ends inside the list: it was cut short")
			}
			return nil, err
		}
		if raw[0] != '{' {
			return nil, doc.Errorf(start, raw, "want a session (an object), got %s", jsondoc.Describe(raw))
		}
		o = jsondoc.Members(raw, 0, o[:0])
		for i, k := range []string{"start_time", "end_time"} {
			m, ok := o.Get(k)
			if !ok {
				return nil, doc.Errorf(start, raw, "missing required field %s", k)
			}
			v, e := m.Number(k)
			if e != nil {
				return nil, doc.Errorf(start+int64(e.Off), raw, "%s", e.Msg)
			}
			if v < 1e9 {
				return nil, doc.Errorf(start+int64(m.Off), raw, "%s: %s is not a Unix time", k, m.Val)
			}
			if i == 0 {
				out[0] = math.Min(out[0], v)
			} else {
				out[1] = math.Max(out[1], v)
			}
		}
		n++
	}
	if n == 0 {
		return nil, nil
	}
	return &out, nil
}
