// Package report builds the report of an outlast dataset: the paper's
// tables and figures for each experiment, as a document (package
// report/model) and as numbers (Summary, written as summary.json).
//
// Build turns a dataset's runs into an overview, a section per experiment
// chosen by its design (paired, recovery, calibration, drain, mix-shift,
// prevention, flush, observe), a regime map and provenance, with every
// number also in the Summary. Write puts index.html, summary.json and
// tables/ in a directory through package report/render.
//
// Building has two steps. The per-run step (run.go) measures one run from
// that run alone, as it is read: its overview row, its per-minute series
// for figures (series.go) and the few windows the dataset-wide parts need
// (calibration and all-miss windows, a drain run's remaining-cold-work
// terms); the run's tables are then dropped, so a report of a dataset read
// through a Source holds one run's tables at a time. The aggregation
// (build.go and the sections_*.go files, one per design) groups the
// measured runs into experiments, fits the cold-turn cost c(L) over the
// dataset and lays out the sections. Printing a value for a reader (p-values, recovery times,
// trigger and control labels) is done here, in format.go: the stats
// package returns plain numbers.
//
// summary.json is the report's JSON model: the Summary types, with stable
// keys sorted by render.WriteJSON and floats as jsonnum.Float (rounded to
// 12 significant digits, so that a dataset gives the same bytes on any CPU;
// null when missing). SummaryVersion changes when a key changes meaning or
// disappears.
package report
