// Package alerts writes the paper's detector of a persistently degraded
// prefix cache where operators look: a Prometheus rule file (recording
// rules per engine instance and two alerts, rules.go) and a Grafana
// dashboard (dashboard.go), for vLLM or SGLang, from the metric names
// outlast reads (engine.go) and thresholds that are the paper's or taken
// from a dataset's runs (thresholds.go). It does no I/O: cmd/outlast
// reads the dataset, hands it the runs' windows, and writes the files.
//
// The batch verdict (stats) judges a finished run: persistent when every
// 5-minute window from the first degraded one (hit ratio below 0.5) to the
// end is degraded. A live rule cannot see the end; it fires when the two
// latest 5-minute windows are degraded while the engine carries load, so
// that at a run's end it agrees with the verdict, a dip confined to one
// window does not fire, and a collapse fires 5 to 12 minutes after its
// onset. docs/alerts.md has the measured agreement.
package alerts
