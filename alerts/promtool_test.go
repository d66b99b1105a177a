package alerts_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/alerts"
	"github.com/outlast-dev/outlast/internal/promtest"
	"github.com/outlast-dev/outlast/internal/slowtest"
	"github.com/outlast-dev/outlast/schema"
)

// writeRules writes the rule file of engine with th into dir.
func writeRules(t testing.TB, dir, engine string, th alerts.Thresholds) (string, []byte) {
	t.Helper()
	b, err := alerts.Rules(engine, th)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "rules-"+engine+".yml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, b
}

func TestPromtoolAcceptsRules(t *testing.T) {
	promtest.Tool(t, "promtool")
	dir := t.TempDir()
	from, err := alerts.FromRuns("ds", []alerts.RunWindows{
		{Run: "a", Class: alerts.ClassPersistent, Hits: []float64{0.1, 0.2}},
		{Run: "b", Class: alerts.ClassNeverDegraded, Hits: []float64{0.9, 0.7}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range alerts.Engines {
		for name, th := range map[string]alerts.Thresholds{"paper": alerts.Paper(), "from": from} {
			sub := filepath.Join(dir, name)
			os.MkdirAll(sub, 0o755)
			p, _ := writeRules(t, sub, e, th)
			files = append(files, p)
		}
	}
	promtest.CheckRules(t, files...)
}

// unitTestSpecs are one run of each class per engine: persistent,
// never degraded (its first minutes a cold start), recovered alone,
// controlled (recovered, and not), idle.
func unitTestSpecs() []simSpec {
	var specs []simSpec
	for _, e := range alerts.Engines {
		specs = append(specs,
			simSpec{design: schema.DesignPaired, engine: e, seed: 503, seeds: 1},
			simSpec{design: schema.DesignRecovery, engine: e, seed: 503, seeds: 1, arms: []string{schema.ControlBudgeter, schema.ControlAdmissionCap}},
			simSpec{design: schema.DesignDrain, engine: e, seed: 501, seeds: 1, arms: []string{"rate-0.006"}},
			simSpec{design: schema.DesignPaired, engine: e, seed: 501, seeds: 1, lambda: 0.001, duration: 1800, arms: []string{schema.ArmNoBurst}, class: classIdle},
		)
	}
	return specs
}

// TestPromtoolUnitTests runs promtool's rule unit tests whose input series
// are simulated runs' metrics, one run of each class per engine, with the
// expectations of expectations(): the rule manager's own evaluation, one
// evaluation a minute.
func TestPromtoolUnitTests(t *testing.T) {
	promtest.Tool(t, "promtool")
	slowtest.SkipUnderRace(t, "simulating and ingesting 12 runs")
	runs := simulate(t, unitTestSpecs())
	dir := t.TempDir()
	classes := map[string]int{}
	for _, e := range alerts.Engines {
		rulesPath, b := writeRules(t, dir, e, alerts.Paper())
		rules := alertRules(t, b)
		var tests []any
		for _, r := range runs {
			if r.Engine != e {
				continue
			}
			classes[e+" "+r.Class]++
			tests = append(tests, unitTest(r, rules))
		}
		doc := map[string]any{
			"rule_files":          []string{filepath.Base(rulesPath)},
			"evaluation_interval": alerts.EvalInterval,
			"tests":               tests,
		}
		b, err := yaml.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "test-"+e+".yml")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out, ok := promtest.TestRules(t, path)
		if !ok {
			if len(out) > 6000 {
				out = out[:6000] + "…"
			}
			t.Errorf("promtool test rules %s:\n%s", e, out)
		}
	}
	t.Logf("runs: %v", classes)
	for _, e := range alerts.Engines {
		for _, c := range []string{classPersistent, classNeverDegraded, classRecoveredAlone, classRecoveredControl, classIdle} {
			if classes[e+" "+c] == 0 {
				t.Errorf("no %s run of %s among the unit tests' runs: the simulator's outcomes changed; pick another seed", c, e)
			}
		}
	}
}

// unitTest is one promtool test group: r's series every scrapeS seconds
// from t=0, and an alert_rule_test per expectation.
func unitTest(r *simRun, rules map[string]alertRule) map[string]any {
	steps := int(r.EndS)/scrapeS + 1
	var input []any
	for _, s := range r.Series {
		vals := make([]string, steps)
		for i := range vals {
			vals[i] = "_"
		}
		for k, at := range s.T {
			if i := int(at-r.T0) / scrapeS; i < steps {
				vals[i] = strconv.FormatFloat(s.V[k], 'g', -1, 64)
			}
		}
		input = append(input, map[string]string{"series": r.selector(s), "values": strings.Join(vals, " ")})
	}
	var tests []any
	for _, x := range expectations(r) {
		var exp []any
		if x.Fires {
			labels, ann := expectedAlert(rules[x.Alert], r)
			delete(labels, "alertname")
			exp = append(exp, map[string]any{"exp_labels": labels, "exp_annotations": ann})
		}
		tests = append(tests, map[string]any{
			"eval_time": fmt.Sprintf("%ds", int(x.AtS)), "alertname": x.Alert, "exp_alerts": exp,
		})
	}
	return map[string]any{
		"name":            fmt.Sprintf("%s (%s)", r.Name, r.Class),
		"interval":        fmt.Sprintf("%ds", scrapeS),
		"input_series":    input,
		"alert_rule_test": tests,
	}
}

// TestPromtoolLowReuse holds the alerts to a server whose workload reuses
// little: its 5-minute hit ratio stays at 0.16 for two hours (a fresh
// document in every request, only the system prompt shared) under a load
// of 2 requests and no queue, nothing collapsed. Neither alert may fire:
// its ratio never was healthy, so the paper's thresholds do not judge it
// (the report's low-peak-hit finding). Beside it, a server of the same
// load whose ratio falls from 0.9 to 0.1 at minute 20 gets both.
func TestPromtoolLowReuse(t *testing.T) {
	promtest.Tool(t, "promtool")
	dir := t.TempDir()
	for _, e := range alerts.Engines {
		path, b := writeRules(t, dir, e, alerts.Paper())
		rules := alertRules(t, b)
		names, err := alerts.MetricNames(e)
		if err != nil {
			t.Fatal(err)
		}
		// One point a minute for 120 minutes: queries 60,000 tokens a
		// minute; hits 9,600 (0.16), or 54,000 (0.9) for 20 minutes and
		// 6,000 (0.1) after.
		server := func(name, hits string) []any {
			r := &simRun{Name: name, Engine: e}
			var in []any
			for _, s := range [][2]string{
				{names["queries"][0], "0+60000x120"}, {names["hits"][0], hits},
				{names["running"][0], "2x120"}, {names["waiting"][0], "0x120"},
			} {
				in = append(in, map[string]string{"series": r.selector(series{Name: s[0]}), "values": s[1]})
			}
			return in
		}
		var tests []any
		for _, at := range []int{20, 40, 60, 90, 119} {
			for _, a := range []string{alerts.AlertOnset, alerts.AlertPersistent} {
				tests = append(tests, map[string]any{"eval_time": fmt.Sprintf("%dm", at), "alertname": a, "exp_alerts": []any{}})
			}
		}
		collapsed := &simRun{Name: "collapsed", Engine: e}
		var fires []any
		for _, a := range []string{alerts.AlertOnset, alerts.AlertPersistent} {
			labels, ann := expectedAlert(rules[a], collapsed)
			delete(labels, "alertname")
			fires = append(fires, map[string]any{"eval_time": "60m", "alertname": a,
				"exp_alerts": []any{map[string]any{"exp_labels": labels, "exp_annotations": ann}}})
		}
		doc := map[string]any{
			"rule_files":          []string{filepath.Base(path)},
			"evaluation_interval": alerts.EvalInterval,
			"tests": []any{
				map[string]any{"name": "low reuse (" + e + ")", "interval": "1m", "input_series": server("low-reuse", "0+9600x120"), "alert_rule_test": tests},
				map[string]any{"name": "collapsed (" + e + ")", "interval": "1m", "input_series": server("collapsed", "0+54000x20 1080000+6000x100"), "alert_rule_test": fires},
			},
		}
		b, err = yaml.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		test := filepath.Join(dir, "lowreuse-"+e+".yml")
		if err := os.WriteFile(test, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, ok := promtest.TestRules(t, test); !ok {
			if len(out) > 4000 {
				out = out[:4000] + "…"
			}
			t.Errorf("promtool test rules %s:\n%s", e, out)
		}
	}
}
