package alerts_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/outlast-dev/outlast/alerts"
	"github.com/outlast-dev/outlast/internal/promtest"
	"github.com/outlast-dev/outlast/internal/slowtest"
	"github.com/outlast-dev/outlast/schema"
)

// serverSpecs are the runs of the server test, per engine: the paired
// design (persistent and never-degraded runs, cold starts), SGLang also at
// the paper's λ = 0.04, the recovery design (controlled runs, recovered or
// not), the drain design (runs that recover alone once the load falls),
// cache flushes, and an idle server.
func serverSpecs() []simSpec {
	var specs []simSpec
	for _, e := range alerts.Engines {
		specs = append(specs,
			simSpec{design: schema.DesignPaired, engine: e, seed: 501, seeds: 12},
			simSpec{design: schema.DesignRecovery, engine: e, seed: 501, seeds: 4},
			simSpec{design: schema.DesignDrain, engine: e, seed: 501, seeds: 1},
			simSpec{design: schema.DesignDrain, engine: e, seed: 503, seeds: 1},
			simSpec{design: schema.DesignFlush, engine: e, seed: 501, seeds: 3},
			simSpec{design: schema.DesignPaired, engine: e, seed: 501, seeds: 1, lambda: 0.001, duration: 1800, arms: []string{schema.ArmNoBurst}, class: classIdle},
		)
	}
	specs = append(specs, simSpec{design: schema.DesignPaired, engine: schema.EngineSGLang, seed: 501, seeds: 4, lambda: 0.04})
	return specs
}

// TestServerAgreesWithVerdicts backfills simulated runs' metrics into a
// real Prometheus server (promtool tsdb create-blocks-from openmetrics),
// records the rules over them (create-blocks-from rules), evaluates the
// alerts' expressions through its HTTP API every minute, and holds them to
// expectations(): the batch verdicts at every run's end, no alert on a run
// that never degraded, an alert within 15 minutes of a persistent run's
// onset. It logs the agreement per engine and class (docs/alerts.md).
func TestServerAgreesWithVerdicts(t *testing.T) {
	promtest.Tool(t, "promtool")
	promtest.Tool(t, "prometheus")
	slowtest.SkipUnderRace(t, "simulating and ingesting 100 runs")
	if testing.Short() {
		t.Skip("the Prometheus server test simulates 100 runs: skipped in -short mode")
	}
	t0 := time.Now()
	step := func(what string) { t.Logf("%6.1f s: %s", time.Since(t0).Seconds(), what) }
	runs := simulate(t, serverSpecs())
	step(fmt.Sprintf("simulated and ingested %d runs", len(runs)))
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	om := filepath.Join(dir, "runs.om")
	start, end := writeOpenMetrics(t, om, runs)
	step("wrote OpenMetrics")
	promtest.CreateBlocksFromOpenMetrics(t, om, data)
	step("backfilled")
	srv := promtest.Start(t, data)
	step("server started")
	var files []string
	rules := map[string][]alertRule{}
	for _, e := range alerts.Engines {
		p, b := writeRules(t, dir, e, alerts.Paper())
		files = append(files, p)
		rules[e] = ruleFile(t, b)
	}
	promtest.CreateBlocksFromRules(t, srv.URL, start, end, alerts.EvalInterval, data, files...)
	step("recorded the rules")
	srv.Restart(t)
	step("server restarted")

	// Prometheus evaluates a rule group at a fixed offset within its
	// interval, a hash of the group's file and name (the backfill too):
	// the alerts are evaluated where their group recorded, as a live
	// server would, each right after the recording rules it reads.
	// fired[alert][instance] holds the evaluation times (Unix seconds) at
	// which the alert's expression gave a value; offset[engine] is the
	// group's offset.
	fired := map[string]map[string]map[int64]bool{}
	offset := map[string]int64{}
	for _, e := range alerts.Engines {
		names, _ := alerts.SeriesNames(e)
		res, err := srv.QueryRange("timestamp("+names.HitRatio5m+")", start, end, 3600)
		if err != nil || len(res) == 0 {
			t.Fatalf("%s: the recorded hit ratio is missing from the server (%v)", e, err)
		}
		offset[e] = int64(res[0].Points[0].V) % 60
		for _, r := range rules[e] {
			if r.Alert == "" {
				continue
			}
			res, err := srv.QueryRange(r.Expr, start+offset[e], end, 60)
			if err != nil {
				t.Fatal(err)
			}
			if fired[r.Alert] == nil {
				fired[r.Alert] = map[string]map[int64]bool{}
			}
			for _, s := range res {
				inst := s.Labels["instance"]
				if fired[r.Alert][inst] == nil {
					fired[r.Alert][inst] = map[int64]bool{}
				}
				for _, p := range s.Points {
					fired[r.Alert][inst][int64(p.T)] = true
				}
			}
		}
	}
	t.Logf("the rule groups' evaluation offsets: %v s", offset)
	if len(fired[alerts.AlertPersistent]) == 0 {
		t.Fatal("the persistent alert never fired on any run: the rules read nothing of the backfilled series")
	}
	step("evaluated the alerts")
	tally := newTally()
	for _, r := range runs {
		// The group's last evaluation at or before the run's minute s.
		at := func(alert string, s float64) bool {
			return fired[alert][r.Name][r.T0+int64(s)-(60-offset[r.Engine])%60]
		}
		for _, x := range expectations(r) {
			if got := at(x.Alert, x.AtS); got != x.Fires {
				t.Errorf("%s (%s, verdict %s): %s at minute %.0f: fires %v, want %v (%s)", r.Name, r.Engine, r.Verdict, x.Alert, x.AtS/60, got, x.Fires, x.Why)
			}
		}
		tally.add(r, at)
	}
	t.Log("agreement with the batch verdicts:\n" + tally.String())
	checkDashboardQueries(t, srv, runs)
}

// writeOpenMetrics writes every run's series, with the run's target
// labels, as one OpenMetrics file (a family's series together, each in
// time order) and returns the span of the runs in Unix seconds, widened to
// whole hours.
func writeOpenMetrics(t testing.TB, path string, runs []*simRun) (start, end int64) {
	t.Helper()
	type entry struct {
		r *simRun
		s series
	}
	families := map[string][]entry{}
	types := map[string]string{}
	start, end = math.MaxInt64, 0
	for _, r := range runs {
		start = min(start, r.T0)
		end = max(end, r.T0+int64(r.EndS))
		for _, s := range r.Series {
			fam := s.Name
			if s.Type == "counter" {
				fam = strings.TrimSuffix(fam, "_total")
			}
			families[fam] = append(families[fam], entry{r, s})
			types[fam] = s.Type
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	names := make([]string, 0, len(families))
	for n := range families {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, fam := range names {
		fmt.Fprintf(w, "# TYPE %s %s\n", fam, types[fam])
		for _, e := range families[fam] {
			sel := e.r.selector(e.s)
			for k, ts := range e.s.T {
				fmt.Fprintf(w, "%s %s %d\n", sel, strconv.FormatFloat(e.s.V[k], 'g', -1, 64), ts)
			}
		}
	}
	fmt.Fprintln(w, "# EOF")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return start / 3600 * 3600, (end/3600 + 1) * 3600
}

// tally counts, per engine and class, how the alerts agree with the
// verdicts.
type tally struct {
	rows map[string]*tallyRow
}

type tallyRow struct {
	runs, alertAtEnd, everPersistent, everOnset int
	delays                                      []float64 // minutes from the verdict's onset to the first persistent alert after it
	// fired names the runs not persistent that got the persistent alert,
	// with the minutes it fired in.
	fired []string
}

func newTally() *tally { return &tally{rows: map[string]*tallyRow{}} }

func (t *tally) add(r *simRun, at func(alert string, s float64) bool) {
	key := r.Engine + "\t" + r.Class
	row := t.rows[key]
	if row == nil {
		row = &tallyRow{}
		t.rows[key] = row
	}
	row.runs++
	end := endEval(r)
	if at(alerts.AlertPersistent, end) {
		row.alertAtEnd++
	}
	first, onset := math.NaN(), false
	for s := 60.0; s <= end; s += 60 {
		if at(alerts.AlertOnset, s) {
			onset = true
		}
		if at(alerts.AlertPersistent, s) && math.IsNaN(first) {
			first = s
		}
	}
	if !math.IsNaN(first) {
		row.everPersistent++
		if r.Class != classPersistent {
			last := first
			for s := first; s <= end; s += 60 {
				if at(alerts.AlertPersistent, s) {
					last = s
				}
			}
			row.fired = append(row.fired, fmt.Sprintf("%s %.0f–%.0f", r.Name, first/60, last/60))
		}
	}
	if onset {
		row.everOnset++
	}
	if r.Class == classPersistent {
		for s := r.DegradedFromS; s <= end; s += 60 {
			if at(alerts.AlertPersistent, s) {
				row.delays = append(row.delays, (s-r.DegradedFromS)/60)
				break
			}
		}
	}
}

func (t *tally) String() string {
	keys := make([]string, 0, len(t.rows))
	for k := range t.rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%-7s %-26s %5s %13s %15s %12s %s\n", "engine", "class", "runs", "alert at end", "persistent ever", "onset ever", "minutes onset→alert (min–max)")
	for _, k := range keys {
		row := t.rows[k]
		e, c, _ := strings.Cut(k, "\t")
		d := "–"
		if len(row.delays) > 0 {
			sort.Float64s(row.delays)
			d = fmt.Sprintf("%.0f–%.0f (%d of %d)", row.delays[0], row.delays[len(row.delays)-1], len(row.delays), row.runs)
		}
		fmt.Fprintf(&b, "%-7s %-26s %5d %13d %15d %12d %s\n", e, c, row.runs, row.alertAtEnd, row.everPersistent, row.everOnset, d)
		if len(row.fired) > 0 {
			fmt.Fprintf(&b, "        persistent alert in minutes: %s\n", strings.Join(row.fired, ", "))
		}
	}
	return b.String()
}

// checkDashboardQueries runs every query of each engine's dashboard on
// the server, its instance variable set to all: each must parse and,
// but the alerts' state (ALERTS, which a backfill does not write), draw
// something of the engine's runs.
func checkDashboardQueries(t *testing.T, srv *promtest.Server, runs []*simRun) {
	t.Helper()
	for _, e := range alerts.Engines {
		b, err := alerts.Dashboard(e, alerts.Paper())
		if err != nil {
			t.Fatal(err)
		}
		var d jsonObj
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		var r *simRun
		for _, x := range runs {
			if x.Engine == e && x.Class == classPersistent {
				r = x
				break
			}
		}
		for _, expr := range allExprs(d) {
			q := strings.ReplaceAll(expr, "$instance", ".*")
			res, err := srv.QueryRange(q, r.T0, r.T0+int64(r.EndS), 60)
			if err != nil {
				t.Errorf("%s dashboard: %v", e, err)
				continue
			}
			if len(res) == 0 && !strings.HasPrefix(q, "ALERTS") {
				t.Errorf("%s dashboard: %s draws nothing of %s", e, expr, r.Name)
			}
		}
	}
}
