package promseries

import (
	"slices"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/alerts"
)

// TestAlertRulesReadTheSameNames holds the Prometheus rules outlast writes
// (package alerts) to this table: each name a rule reads is a known metric
// feeding the field the rule means, and each metric feeding those fields
// is read by the rules, in both spellings, so that a name learnt here is
// not forgotten there.
func TestAlertRulesReadTheSameNames(t *testing.T) {
	fields := map[string]int{"running": fRunning, "waiting": fWaiting, "kv": fKV, "hits": fHits, "queries": fQueries, "preemptions": fPreempt}
	for _, engine := range alerts.Engines {
		groups, err := alerts.MetricNames(engine)
		if err != nil {
			t.Fatal(err)
		}
		for what, f := range fields {
			names := groups[what]
			for _, n := range names {
				m := Lookup([]byte(n))
				if m < 0 || !slices.Contains(sources[f], base(m)) {
					t.Errorf("%s %s: the rules read %s, which does not feed that field here", engine, what, n)
				}
			}
			for _, m := range sources[f] {
				for _, spelling := range []int{m, m + nMetrics} {
					if n := Name(spelling); strings.HasPrefix(n, engine) && !slices.Contains(names, n) {
						t.Errorf("%s %s: the rules do not read %s", engine, what, n)
					}
				}
			}
		}
	}
}
