package rundir

import (
	"fmt"
	"strings"

	"github.com/outlast-dev/outlast/schema"
)

// An engine sample says what the engine did in the interval that ends at
// its stamp: a vLLM stats line the last 10 s (VLLM_LOG_STATS_INTERVAL),
// an SGLang batch line its batches since the last, a scrape's counters
// the time since the scrape before. So a sample stamped before the run's
// start tells of the time before it, and one stamped after its end may
// still tell of its last seconds. One engine log, or one set of scrapes,
// often spans several runs of a campaign (a sweep's cells one after the
// other on one server), and the engine table must not hold another run's
// load: the samples kept are those stamped from RunLeadS before the
// run's start (t=0, or its first request record if earlier) to RunTailS
// after its end (duration_s, or its last request record if later).
const (
	// RunLeadS allows for the engine's stamps being whole seconds (vLLM
	// and SGLang print no fraction), and a line written in the second
	// the run starts.
	RunLeadS = 1.0
	// RunTailS is half a vLLM stats interval (10 s): a line stamped
	// within it after the run's end counts more of the run's last
	// seconds than of what came after; a later one, more of the next
	// run (a sweep's next cell often starts within seconds).
	RunTailS = 5.0
)

// trimEngine leaves out the engine samples that lie outside the run
// (RunLeadS, RunTailS), and says how many on each side. When no sample
// lies within the run, none is left out: the clocks disagree (a wrong
// started_at or log_tz, warned of by checkSpan), and which samples are
// the run's is not known.
func (r *runReader) trimEngine(gw span) {
	d := r.res.Data
	lo, hi := 0.0, d.Run.DurationS
	if gw.ok() {
		lo, hi = min(lo, gw.first), max(hi, gw.last)
	}
	lo, hi = lo-RunLeadS, hi+RunTailS
	var before, after, within int
	first, last := 0.0, 0.0
	bySource := map[string]int{}
	for _, s := range d.Engine {
		switch {
		case s.TS < lo:
			if before == 0 || s.TS < first {
				first = s.TS
			}
			before++
			bySource[s.Source]++
		case s.TS > hi:
			if after == 0 || s.TS > last {
				last = s.TS
			}
			after++
			bySource[s.Source]++
		default:
			within++
		}
	}
	if before+after == 0 || within == 0 {
		return
	}
	kept := d.Engine[:0]
	for _, s := range d.Engine {
		if s.TS >= lo && s.TS <= hi {
			kept = append(kept, s)
		}
	}
	d.Engine = kept
	var sides []string
	if before > 0 {
		sides = append(sides, fmt.Sprintf("%d before it (from %.0f s)", before, first))
	}
	if after > 0 {
		sides = append(sides, fmt.Sprintf("%d after it (to %+.0f s)", after, last))
	}
	var from []string
	for _, src := range []string{schema.SourceLog, schema.SourceMetrics} {
		if n := bySource[src]; n > 0 {
			from = append(from, fmt.Sprintf("%d from the %s", n, map[string]string{schema.SourceLog: "engine log", schema.SourceMetrics: "metrics"}[src]))
		}
	}
	r.warnf("WARNING: %d engine samples lie outside the run (%.0f..%.0f s of run time: from %.0f s before its start to %.0f s after its end) and are left out, %s; %s: they are the engine's start-up, or other runs of the same engine, whose load is not this run's",
		before+after, lo, hi, RunLeadS, RunTailS, strings.Join(sides, " and "), strings.Join(from, ", "))
}

// cachingContradicted believes the turns when the run says prefix caching
// is off but its turns report cached prompt tokens: a cache that is off
// hits nothing, so the manifest or the log that says off describes
// another engine than the one that served the turns (the decode side of a
// disaggregated deployment, whose radix cache SGLang turns off, or a
// copied run.yaml), and counting the run as uncached would judge it as
// what it was not.
func (r *runReader) cachingContradicted() {
	run := &r.res.Data.Run
	if run.PrefixCaching || r.cachedTurns == 0 {
		return
	}
	run.PrefixCaching = true
	r.warnf("WARNING: prefix caching is off by run.yaml or the engine log's startup arguments, but %d turn(s) report cached prompt tokens: a cache that is off hits nothing, so the turns are believed and the run counts as cached (runs.prefix_caching true); check which engine's arguments were read (a prefill/decode deployment's decode server runs without a radix cache: give its logs by role, files.prefill_log and files.decode_log)", r.cachedTurns)
}
