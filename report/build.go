package report

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// Options set what Build puts around the numbers; none of them changes a
// number.
type Options struct {
	// Title is the report's title; empty means "outlast report".
	Title string
	// Dataset labels the dataset in the provenance, e.g. its directory
	// name. It should not be an absolute path, which would tie the output
	// to one machine.
	Dataset string
	// Version is the outlast version writing the report.
	Version string
	// Seed, when set, picks the seed of the single-seed figures (Figure 1,
	// Figure 4, Figure 5) in every experiment that has it; otherwise each
	// experiment features its smallest seed.
	Seed *int64
}

// Colours shared by every figure of a pair, as in the paper: the twin
// blue, the burst run red.
const (
	twinColor  = "#0072B2"
	burstColor = "#D55E00"
	boundColor = "#555555"
)

// runInfo is one run with its index and analysis, computed once.
type runInfo struct {
	rd  *schema.RunData
	x   *stats.RunIndex
	an  stats.RunAnalysis
	sum stats.RunSummary
}

// experiment is the runs sharing runs.experiment.
type experiment struct {
	name   string
	slug   string // for IDs: ASCII letters, digits and '-'
	design string
	runs   []*runInfo // by run name
}

// builder holds the state of one Build.
type builder struct {
	opt  Options
	runs []*runInfo // by run name
	exps []*experiment
	// fit is the c(L) used outside the calibration sections, nil when
	// there is none.
	fit     *stats.CostFit
	fitInfo *SummaryFit
	doc     *Doc
	sum     *Summary
}

// Build computes the report of a dataset: the document rendered as
// index.html and tables, and the summary written as summary.json. The runs
// may come in any order; the result depends only on their content and opt.
func Build(runs []*schema.RunData, opt Options) (*Doc, *Summary, error) {
	if len(runs) == 0 {
		return nil, nil, errors.New("report: the dataset has no runs")
	}
	b := &builder{opt: opt}
	seen := map[string]bool{}
	for _, rd := range runs {
		if rd == nil {
			return nil, nil, errors.New("report: nil run")
		}
		if seen[rd.Run.Run] {
			return nil, nil, fmt.Errorf("report: run %q appears twice", rd.Run.Run)
		}
		seen[rd.Run.Run] = true
		x := stats.NewRunIndex(rd)
		an := stats.Analyze(x)
		b.runs = append(b.runs, &runInfo{rd: rd, x: x, an: an, sum: cleanSummary(an.Summary)})
	}
	sort.Slice(b.runs, func(i, j int) bool { return b.runs[i].rd.Run.Run < b.runs[j].rd.Run.Run })
	b.groupExperiments()
	b.globalFit()

	title := opt.Title
	if title == "" {
		title = "outlast report"
	}
	b.doc = &Doc{Title: title}
	b.sum = &Summary{SchemaVersion: SummaryVersion, Title: title, Dataset: opt.Dataset, CostFit: b.fitInfo}
	b.provenance()
	b.overview()
	for _, e := range b.exps {
		b.experimentSection(e)
	}
	b.regimeMap()
	b.provenanceSection()
	b.doc.Subtitle = b.subtitle()
	if err := Validate(b.doc); err != nil {
		return nil, nil, err
	}
	return b.doc, b.sum, nil
}

// Write builds the report of runs and writes dir/index.html,
// dir/summary.json and dir/tables/*.csv and *.md, each atomically. dir is
// created if needed.
func Write(dir string, runs []*schema.RunData, opt Options) error {
	doc, sum, err := Build(runs, opt)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := WriteTables(dir, doc); err != nil {
		return err
	}
	if err := WriteJSON(filepath.Join(dir, "summary.json"), sum); err != nil {
		return err
	}
	return WriteHTMLFile(filepath.Join(dir, "index.html"), doc)
}

// cleanSummary drops the warning that no turn completed before a control
// that starts at t = 0: nothing can precede the start of a run.
func cleanSummary(s stats.RunSummary) stats.RunSummary {
	if s.ControlStartS > 0 || len(s.Warnings) == 0 {
		return s
	}
	var keep []string
	for _, w := range s.Warnings {
		if !strings.Contains(w, "before control began") {
			keep = append(keep, w)
		}
	}
	s.Warnings = keep
	return s
}

// normDesign maps runs.design to the design whose section it gets.
func normDesign(d string) string {
	switch d = strings.ToLower(strings.TrimSpace(d)); d {
	case schema.DesignPaired, schema.DesignRecovery, schema.DesignCalibration, schema.DesignDrain, schema.DesignMixShift, schema.DesignPrevention, schema.DesignFlush:
		return d
	case schema.DesignNoCache:
		return schema.DesignCalibration // caching off: the c(L) calibration
	case "mixshift", "mix_shift":
		return schema.DesignMixShift
	}
	return schema.DesignObserve
}

// groupExperiments groups runs by experiment name and design: runs of one
// experiment that disagree on the design get a section per design rather
// than one that fits only some of them.
func (b *builder) groupExperiments() {
	type key struct{ name, design string }
	by := map[key]*experiment{}
	var keys []key
	designs := map[string]int{}
	for _, r := range b.runs {
		k := key{r.rd.Run.Experiment, normDesign(r.rd.Run.Design)}
		e, ok := by[k]
		if !ok {
			e = &experiment{name: k.name, design: k.design}
			by[k] = e
			keys = append(keys, k)
			designs[k.name]++
		}
		e.runs = append(e.runs, r)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].name != keys[j].name {
			return keys[i].name < keys[j].name
		}
		return keys[i].design < keys[j].design
	})
	slugs := map[string]bool{}
	for _, k := range keys {
		e := by[k]
		e.slug = slugify(k.name)
		if designs[k.name] > 1 {
			e.slug = slugify(k.name + " " + k.design)
		}
		for base, n := e.slug, 2; slugs[e.slug]; n++ {
			e.slug = base + "-" + strconv.Itoa(n)
		}
		slugs[e.slug] = true
		b.exps = append(b.exps, e)
	}
}

// slugify keeps ASCII letters and digits of s and turns runs of anything
// else into one '-'.
func slugify(s string) string {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			if dash && sb.Len() > 0 {
				sb.WriteByte('-')
			}
			sb.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	if sb.Len() == 0 {
		return "x"
	}
	return sb.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// indexes returns the run indexes of runs.
func indexes(runs []*runInfo) []*stats.RunIndex {
	xs := make([]*stats.RunIndex, len(runs))
	for i, r := range runs {
		xs[i] = r.x
	}
	return xs
}

// calibrationRuns returns the caching-off runs of the calibration
// experiments.
func (b *builder) calibrationRuns() []*runInfo {
	var out []*runInfo
	for _, e := range b.exps {
		if e.design != schema.DesignCalibration {
			continue
		}
		for _, r := range e.runs {
			if !r.rd.Run.PrefixCaching {
				out = append(out, r)
			}
		}
	}
	return out
}

// globalFit fits c(L) on the calibration runs, else on the all-miss
// windows of degraded cache-on runs (§4's alternative fit), for 1/S on the
// regime map and in the drain sections.
func (b *builder) globalFit() {
	cal := b.calibrationRuns()
	source := "calibration"
	ws := stats.CalibrationWindows(indexes(cal), stats.ColdCostOptions{})
	if len(cal) == 0 {
		source = "all-miss"
		ws = stats.AllMissWindows(indexes(b.runs), stats.ColdCostOptions{})
	}
	fit, err := stats.FitColdCost(ws)
	if err != nil || !(fit.B > 0) {
		return
	}
	b.fit = &fit
	b.fitInfo = b.fitSummary(fit, ws, source)
}

// fitSummary describes fit, with S and 1/S for the shape of the runs it
// was fitted on (the most common one).
func (b *builder) fitSummary(fit stats.CostFit, ws []stats.CostWindow, source string) *SummaryFit {
	s := &SummaryFit{
		A: Float(fit.A), B: Float(fit.B), SEA: Float(fit.SEA), SEB: Float(fit.SEB), R2: Float(fit.R2), N: fit.N,
		S: Float(math.NaN()), DrainRate: Float(math.NaN()), Source: source, Runs: []string{},
	}
	seen := map[string]bool{}
	for _, w := range ws {
		if !seen[w.Run] {
			seen[w.Run] = true
			s.Runs = append(s.Runs, w.Run)
		}
	}
	sort.Strings(s.Runs)
	count := map[string]int{}
	shapes := map[string][]int64{}
	for _, r := range b.runs {
		if !seen[r.rd.Run.Run] {
			continue
		}
		if sh, ok := r.x.WorkloadShape(); ok {
			k := shapeLabel(sh)
			count[k]++
			shapes[k] = sh
		}
	}
	best := ""
	for _, k := range sortedKeys(count) {
		if count[k] > count[best] {
			best = k
		}
	}
	if best != "" {
		sc := fit.SessionCost(shapes[best])
		s.S, s.DrainRate, s.Shape = Float(sc), Float(stats.DrainBound(sc)), best
	}
	return s
}

// shapeLabel names a synthetic shape: first context, growth, turns.
func shapeLabel(shape []int64) string {
	if len(shape) == 0 {
		return ""
	}
	growth := int64(0)
	if len(shape) > 1 {
		growth = shape[1] - shape[0]
	}
	return fmt.Sprintf("%d+%d×k, %d turns", shape[0], growth, len(shape))
}

// sessionCost is S for a run's own workload shape under the global fit;
// NaN without fit or shape.
func (b *builder) sessionCost(r *runInfo) float64 {
	if b.fit == nil {
		return math.NaN()
	}
	sh, ok := r.x.WorkloadShape()
	if !ok {
		return math.NaN()
	}
	return b.fit.SessionCost(sh)
}

// provenance fills the provenance of the Doc and the Summary.
func (b *builder) provenance() {
	schemas, versions := map[string]bool{}, map[string]bool{}
	h := sha256.New()
	for _, r := range b.runs {
		run := &r.rd.Run
		schemas[orDash(run.SchemaVersion)] = true
		versions[orDash(run.OutlastVersion)] = true
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\n", run.Run, run.ManifestSHA256, run.GatewaySHA256, run.EngineLogSHA256, run.MetricsSHA256)
	}
	p := SummaryProvenance{
		DatasetSchemaVersions: sortedKeys(schemas), OutlastVersions: sortedKeys(versions),
		ReportVersion: b.opt.Version, InputsSHA256: hex.EncodeToString(h.Sum(nil)),
	}
	date, ok := SourceDate()
	if ok {
		p.Date = date
	}
	b.sum.Provenance = p
	pv := &b.doc.Provenance
	if b.opt.Dataset != "" {
		*pv = append(*pv, KV{"dataset", b.opt.Dataset})
	}
	*pv = append(*pv,
		KV{"runs", fmt.Sprintf("%d in %s", len(b.runs), plural(b.experimentCount(), "experiment"))},
		KV{"dataset schema", strings.Join(p.DatasetSchemaVersions, ", ")},
		KV{"ingested by outlast", strings.Join(p.OutlastVersions, ", ")},
		KV{"inputs sha256", p.InputsSHA256[:16] + "…"},
	)
	if b.opt.Version != "" {
		*pv = append(*pv, KV{"report by outlast", b.opt.Version})
	}
	if ok {
		*pv = append(*pv, KV{"date", date + " (SOURCE_DATE_EPOCH)"})
	}
	*pv = append(*pv, KV{"times", "minutes since each run's start; dates UTC"})
}

func (b *builder) subtitle() string {
	var parts []string
	for _, e := range b.exps {
		parts = append(parts, fmt.Sprintf("%s (%s, %s)", e.name, e.design, plural(len(e.runs), "run")))
	}
	return strings.Join(parts, " · ")
}

// experimentCount is the number of distinct experiment names (an
// experiment whose runs disagree on the design has several sections).
func (b *builder) experimentCount() int {
	names := map[string]bool{}
	for _, e := range b.exps {
		names[e.name] = true
	}
	return len(names)
}

// plural is "1 run", "2 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// experimentSection adds the section of one experiment, chosen by design.
func (b *builder) experimentSection(e *experiment) {
	se := SummaryExperiment{Experiment: e.name, Design: e.design}
	for _, r := range e.runs {
		se.Runs = append(se.Runs, r.rd.Run.Run)
	}
	sec := Section{ID: "exp-" + e.slug, Title: fmt.Sprintf("%s: %s", e.name, designTitle(e.design))}
	switch e.design {
	case schema.DesignPaired:
		b.pairedSection(e, &sec, &se)
	case schema.DesignRecovery:
		b.recoverySection(e, &sec, &se)
	case schema.DesignCalibration:
		b.calibrationSection(e, &sec, &se)
	case schema.DesignDrain:
		b.drainSection(e, &sec, &se)
	case schema.DesignMixShift:
		b.mixShiftSection(e, &sec, &se)
	case schema.DesignPrevention, schema.DesignFlush:
		b.countsSection(e, &sec, &se)
	default:
		sec.Intro = append(sec.Intro, "Runs of design observe, or of a design this report does not know: hit ratio and sessions in the system over time, per run.")
		sec.Blocks = append(sec.Blocks, b.perRunGrid(e))
	}
	b.doc.Sections = append(b.doc.Sections, sec)
	b.sum.Experiments = append(b.sum.Experiments, se)
}

func designTitle(d string) string {
	switch d {
	case schema.DesignPaired:
		return "paired burst and twin"
	case schema.DesignRecovery:
		return "recovery after collapse"
	case schema.DesignCalibration:
		return "cold-turn cost calibration (caching off)"
	case schema.DesignDrain:
		return "drain condition"
	case schema.DesignMixShift:
		return "session-mix shift"
	case schema.DesignPrevention:
		return "prevention"
	case schema.DesignFlush:
		return "cache-flush trigger"
	}
	return "observed runs"
}

// seeds returns the distinct seeds of runs, ascending.
func seeds(runs []*runInfo) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, r := range runs {
		if s := r.rd.Run.Seed; s != nil && !seen[*s] {
			seen[*s] = true
			out = append(out, *s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// featured picks the seed of the single-seed figures among candidates
// (ascending): Options.Seed when it is one of them, else the first.
func (b *builder) featured(candidates []int64) (int64, bool) {
	if len(candidates) == 0 {
		return 0, false
	}
	if b.opt.Seed != nil {
		for _, s := range candidates {
			if s == *b.opt.Seed {
				return s, true
			}
		}
	}
	return candidates[0], true
}

// minutes converts seconds to minutes.
func minutes(s float64) float64 { return s / 60 }

// mid returns the midpoints of windows in minutes: the x of a per-window
// value.
func mid(ws []stats.Window) []float64 {
	x := make([]float64, len(ws))
	for i, w := range ws {
		x[i] = minutes((w.Start + w.End) / 2)
	}
	return x
}

// pointWindows returns the windows of points.
func pointWindows(ps []stats.SeriesPoint) []stats.Window {
	ws := make([]stats.Window, len(ps))
	for i, p := range ps {
		ws[i] = p.TurnWindow.Window
	}
	return ws
}

// column extracts one measure of every point.
func column(ps []stats.SeriesPoint, f func(stats.SeriesPoint) float64) []float64 {
	y := make([]float64, len(ps))
	for i, p := range ps {
		y[i] = f(p)
	}
	return y
}

func hitOf(p stats.SeriesPoint) float64        { return p.HitRatio }
func sessionsOf(p stats.SeriesPoint) float64   { return p.Sessions }
func throughputOf(p stats.SeriesPoint) float64 { return p.TurnsPerS }
func demandOf(p stats.SeriesPoint) float64     { return p.DemandRatio }
func recomputeOf(p stats.SeriesPoint) float64  { return p.RecomputedTokensPerS }

// triggerBand is the run's trigger as a shaded band in minutes; ok is
// false without both times.
func triggerBand(r *schema.Run) (Band, bool) {
	if r.TriggerStartS == nil || r.TriggerEndS == nil || *r.TriggerEndS < *r.TriggerStartS {
		return Band{}, false
	}
	label := r.TriggerKind
	if label == "" || label == "none" {
		label = "trigger"
	}
	return Band{From: minutes(*r.TriggerStartS), To: minutes(*r.TriggerEndS), Label: label}, true
}

// hasControl reports whether a run has a controller.
func hasControl(r *schema.Run) bool {
	return r.ControlKind != "" && r.ControlKind != "none" && r.ControlStartS != nil
}

// controlMark is the start of the run's control as a mark; ok is false
// without control.
func controlMark(r *schema.Run) (Mark, bool) {
	if !hasControl(r) && !(r.Design == schema.DesignRecovery && r.ControlStartS != nil) {
		return Mark{}, false
	}
	return Mark{At: minutes(*r.ControlStartS), Label: "control starts"}, true
}

// annotate returns the bands and marks of runs, without duplicates.
func annotate(runs ...*runInfo) ([]Band, []Mark) {
	var bands []Band
	var marks []Mark
	for _, r := range runs {
		if r == nil {
			continue
		}
		if bd, ok := triggerBand(&r.rd.Run); ok && !containsBand(bands, bd) {
			bands = append(bands, bd)
		}
		if m, ok := controlMark(&r.rd.Run); ok && !containsMark(marks, m) {
			marks = append(marks, m)
		}
	}
	return bands, marks
}

func containsBand(bs []Band, b Band) bool {
	for _, x := range bs {
		if x.From == b.From && x.To == b.To {
			return true
		}
	}
	return false
}

func containsMark(ms []Mark, m Mark) bool {
	for _, x := range ms {
		if x.At == m.At {
			return true
		}
	}
	return false
}

// runSpan fixes f's x axis to [0, the longest run's end] in minutes, so
// that per-minute values plotted at window middles do not shift the axis.
func runSpan(f *TimeSeries, runs ...*runInfo) *TimeSeries {
	end := 0.0
	for _, r := range runs {
		if r != nil {
			end = max(end, minutes(r.x.End))
		}
	}
	if end > 0 {
		f.XMin, f.XMax = 0, end
	}
	return f
}

// runSeries is one measure of a run per minute, as a Series.
func runSeries(name string, r *runInfo, f func(stats.SeriesPoint) float64, color string) Series {
	return Series{Name: name, X: mid(pointWindows(r.an.Minutes)), Y: column(r.an.Minutes, f), Color: color}
}

// perRunGrid draws each run's hit ratio and sessions in the system.
func (b *builder) perRunGrid(e *experiment) *Grid {
	g := &Grid{Caption: "Per run: hit ratio per minute (left axis) and mean sessions in the system (right axis, dashed); trigger shaded, control start marked.", Columns: 2}
	for _, r := range e.runs {
		bands, marks := annotate(r)
		s := runSeries("sessions", r, sessionsOf, burstColor)
		s.Axis, s.Dash = 1, true
		g.Figures = append(g.Figures, runSpan(&TimeSeries{
			ID: "run-" + e.slug + "-" + r.rd.Run.Run, Title: r.rd.Run.Run,
			YAxes:  []Axis{{Name: "hit ratio", Min: 0, Max: 1}, {Name: "sessions"}},
			Series: []Series{runSeries("hit ratio", r, hitOf, twinColor), s},
			Bands:  bands, Marks: marks,
		}, r))
	}
	return g
}

// pCell shows a p-value to 3 significant digits (0.00391, 0.031, 1), as
// the paper prints them, or "<0.0001".
func pCell(p float64) Cell {
	if p < 0.0001 {
		return Text("<0.0001")
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(p, 'g', 3, 64), 64)
	return Num(r, -1)
}

// seedCell shows a seed, or missing.
func seedCell(s *int64) Cell {
	if s == nil {
		return Missing()
	}
	return Int(*s)
}

// floats converts to Float.
func floats(v []float64) []Float {
	out := make([]Float, len(v))
	for i, x := range v {
		out[i] = Float(x)
	}
	return out
}
