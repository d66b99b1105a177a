package alerts_test

import (
	"math"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/alerts"
)

// What the alerts must say of a simulated run, at which times: the
// batch verdicts and the promises, one place for promtool's unit
// tests and the server test.

// expectation is whether an alert fires at a time (seconds from the
// run's t=0), and why.
type expectation struct {
	AtS   float64
	Alert string
	Fires bool
	Why   string
}

// expectations returns what the alerts must say of r:
//   - a persistent run: PrefixCachePersistentlyDegraded fires 15 minutes
//     after its first degraded window (the verdict's onset) and at its
//     end; a run degraded only in its last 15 minutes gets the onset
//     warning at its end;
//   - every run: neither alert before its first degraded window (cold
//     start, the healthy stretch before a trigger), the persistent one not
//     before that window has ended;
//   - a never-degraded or idle run: no persistent alert at any minute, no
//     onset warning from its reference time's first window on;
//   - a run that recovered, alone or under control: neither alert at its
//     end.
func expectations(r *simRun) []expectation {
	var out []expectation
	end := endEval(r)
	add := func(at float64, alert string, fires bool, why string) {
		out = append(out, expectation{at, alert, fires, why})
	}
	for at := 60.0; at <= end; at += 60 {
		if math.IsNaN(r.OnsetS) || at < r.OnsetS {
			add(at, alerts.AlertOnset, false, "before the first degraded window")
		}
		if math.IsNaN(r.OnsetS) || at < r.OnsetS+alerts.WindowS {
			add(at, alerts.AlertPersistent, false, "before the first degraded window ended")
		}
	}
	switch r.Class {
	case classPersistent:
		if at := r.DegradedFromS + promiseS; at <= end {
			add(end, alerts.AlertPersistent, true, "persistent: at the run's end")
			add(at, alerts.AlertPersistent, true, "persistent: 15 minutes after onset")
		} else {
			// Degraded only in its last 15 minutes: the live rule needs
			// two degraded 5-minute windows of the engine's ratio, which
			// lags the gateway's, so the promise at its end is the onset
			// warning.
			add(end, alerts.AlertOnset, true, "persistent, degraded only in its last 15 minutes: the onset warning at its end")
		}
	case classNeverDegraded, classIdle:
		for at := 60.0; at <= end; at += 60 {
			add(at, alerts.AlertPersistent, false, r.Class)
			if at >= r.ReferenceS+alerts.WindowS {
				add(at, alerts.AlertOnset, false, r.Class+": after the reference window")
			}
		}
	case classRecoveredAlone, classRecoveredControl:
		add(end, alerts.AlertPersistent, false, r.Class+": at the run's end")
		add(end, alerts.AlertOnset, false, r.Class+": at the run's end")
	}
	return dedupe(out)
}

// promiseS is the promise: the persistent alert within 15
// minutes of a persistent run's onset.
const promiseS = 15 * 60

// endEval is the last whole minute at or before the run's end: the last
// evaluation of a 1-minute rule group.
func endEval(r *simRun) float64 { return math.Floor(r.EndS/60) * 60 }

// dedupe keeps one expectation per time and alert (a firing one wins: a
// run's end can be both "the end" and "15 minutes after onset").
func dedupe(xs []expectation) []expectation {
	type key struct {
		at    float64
		alert string
	}
	seen := map[key]int{}
	var out []expectation
	for _, x := range xs {
		k := key{x.AtS, x.Alert}
		if i, ok := seen[k]; ok {
			if x.Fires != out[i].Fires {
				panic("contradicting expectations at " + x.Why + " and " + out[i].Why)
			}
			continue
		}
		seen[k] = len(out)
		out = append(out, x)
	}
	return out
}

// alertRule is an alert of a generated rule file.
type alertRule struct {
	Alert       string            `yaml:"alert"`
	Record      string            `yaml:"record"`
	Expr        string            `yaml:"expr"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// ruleFile reads a generated rule file's rules.
func ruleFile(t testing.TB, b []byte) []alertRule {
	t.Helper()
	var f struct {
		Groups []struct {
			Rules []alertRule `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var out []alertRule
	for _, g := range f.Groups {
		out = append(out, g.Rules...)
	}
	return out
}

// alertRules is the alerting rules of a rule file, by alert name.
func alertRules(t testing.TB, b []byte) map[string]alertRule {
	t.Helper()
	rules := map[string]alertRule{}
	for _, r := range ruleFile(t, b) {
		if r.Alert != "" {
			rules[r.Alert] = r
		}
	}
	return rules
}

// expectedAlert is the labels and annotations Prometheus gives alert a
// of run r: the rule's labels, the run's target labels, and the
// annotations' templates filled in with them.
func expectedAlert(a alertRule, r *simRun) (labels, annotations map[string]string) {
	labels = map[string]string{}
	for k, v := range a.Labels {
		labels[k] = v
	}
	for _, l := range r.targetLabels() {
		labels[l[0]] = l[1]
	}
	annotations = map[string]string{}
	for k, v := range a.Annotations {
		v = strings.ReplaceAll(v, "{{ $labels.instance }}", r.Name)
		v = strings.ReplaceAll(v, "{{ $labels.job }}", r.Engine)
		annotations[k] = v
	}
	return labels, annotations
}
