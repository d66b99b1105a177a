package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/report/render"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

// Options set what Build puts around the numbers; none of them changes a
// number but SLO, which judges goodput.
type Options struct {
	// Title is the report's title; empty means "outlast report".
	Title string
	// Dataset labels the dataset in the provenance, e.g. its directory
	// name. It should not be an absolute path, which would tie the output
	// to one machine.
	Dataset string
	// Version is the outlast version writing the report.
	Version string
	// Reload, when set, reads one run of the source again by name. The
	// report then keeps of each run only its rows and measures, not its
	// per-minute series, and reads again the few runs its figures draw:
	// its memory no longer grows with the series of every run.
	Reload func(run string) (*schema.RunData, error)
	// Seed, when set, picks the seed of the single-seed figures (Figure 1,
	// Figure 4, Figure 5) in every experiment that has it; otherwise each
	// experiment features its smallest seed.
	Seed *int64
	// SLO judges goodput, the share of completed turns meeting it; the
	// zero SLO means stats.DefaultSLO.
	SLO stats.SLO
}

// builder holds the state of one Build. It works in two steps: add
// measures one run as it is read (runInfo), on every core while the source
// reads the next runs, and finish aggregates the measured runs into
// experiments, fits and sections.
type builder struct {
	opt  Options
	seen map[string]bool
	// work takes runs to the measuring goroutines, which append to runs
	// under mu; wg waits for them.
	work chan *schema.RunData
	mu   sync.Mutex
	wg   sync.WaitGroup
	runs []*runInfo // by run name after finish begins
	exps []*experiment
	// fit is the c(L) used outside the calibration sections, nil when
	// there is none.
	fit     *stats.CostFit
	fitInfo *SummaryFit
	doc     *document.Doc
	sum     *Summary
	// findings are the findings section's items, in order.
	findings []document.ListItem
	// share is how many small multiples one experiment draws.
	share int
}

// newBuilder starts a builder with its measuring goroutines; wait stops
// them.
func newBuilder(opt Options) *builder {
	if opt.SLO.Empty() {
		opt.SLO = stats.DefaultSLO
	}
	b := &builder{opt: opt, seen: map[string]bool{}, work: make(chan *schema.RunData)}
	for range runtime.GOMAXPROCS(0) {
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			for rd := range b.work {
				r := measureRun(rd, opt.Reload == nil, opt.SLO)
				if opt.Reload != nil {
					name := rd.Run.Run
					r.reload = func() (*minuteSeries, error) { return reloadMinutes(opt.Reload, name) }
				}
				b.mu.Lock()
				b.runs = append(b.runs, r)
				b.mu.Unlock()
			}
		}()
	}
	return b
}

// add hands one run to be measured; the builder owns it from then on. The
// order of runs does not matter: finish sorts them by name.
func (b *builder) add(rd *schema.RunData) error {
	if rd == nil {
		return errors.New("report: nil run")
	}
	if b.seen[rd.Run.Run] {
		return fmt.Errorf("report: run %q appears twice", rd.Run.Run)
	}
	b.seen[rd.Run.Run] = true
	b.work <- rd
	return nil
}

// wait returns once every run added has been measured.
func (b *builder) wait() {
	close(b.work)
	b.wg.Wait()
}

// finish aggregates the runs added so far into the report.
func (b *builder) finish() (*document.Doc, *Summary, error) {
	if len(b.runs) == 0 {
		return nil, nil, errors.New("report: the dataset has no runs")
	}
	sort.Slice(b.runs, func(i, j int) bool { return b.runs[i].name() < b.runs[j].name() })
	b.groupExperiments()
	b.mechanisms()
	b.shareSmallMultiples()
	b.globalFit()

	title := b.opt.Title
	if title == "" {
		title = "outlast report"
	}
	b.doc = &document.Doc{Title: title}
	b.sum = &Summary{SchemaVersion: SummaryVersion, Title: title, Dataset: b.opt.Dataset, CostFit: b.fitInfo, Findings: []SummaryFinding{}, SLO: summarySLO(b.opt.SLO)}
	b.provenance()
	b.overview()
	for i, e := range b.exps {
		b.experimentSection(e)
		// Once the last section of an experiment is done, what holds
		// across its sections (engines).
		if i == len(b.exps)-1 || b.exps[i+1].name != e.name || b.exps[i+1].design != e.design {
			var secs []*experiment
			for _, s := range b.exps {
				if s.name == e.name && s.design == e.design {
					secs = append(secs, s)
				}
			}
			b.experimentFindings(secs)
		}
	}
	b.regimeMap()
	b.provenanceSection()
	b.findingsSection()
	b.doc.Subtitle = b.subtitle()
	for _, r := range b.runs {
		if r.reloadErr != nil {
			return nil, nil, r.reloadErr
		}
	}
	return b.doc, b.sum, nil
}

// Source gives a report its runs one at a time: it calls fn with each run,
// in any order, and stops at fn's first error, which it returns. The report
// owns a run once fn has it (the source must not change it afterwards) and
// keeps nothing of its tables once it has measured it, so a source that
// reads a dataset run by run holds a few runs in memory at a time (the one
// being read and one being measured per core), however many runs the
// dataset has.
type Source func(fn func(*schema.RunData) error) error

// Slice is the Source of runs already in memory.
func Slice(runs []*schema.RunData) Source {
	return func(fn func(*schema.RunData) error) error {
		for _, rd := range runs {
			if err := fn(rd); err != nil {
				return err
			}
		}
		return nil
	}
}

// BuildFrom computes the report of the runs src gives: the document
// rendered as index.html and tables, and the summary written as
// summary.json. The result depends only on the runs' content and opt, not
// on their order. The document is validated where it is rendered
// (render.WriteReport, WriteHTML), once.
func BuildFrom(src Source, opt Options) (*document.Doc, *Summary, error) {
	b := newBuilder(opt)
	err := src(b.add)
	b.wait()
	if err != nil {
		return nil, nil, err
	}
	return b.finish()
}

// Build is BuildFrom of runs in memory.
func Build(runs []*schema.RunData, opt Options) (*document.Doc, *Summary, error) {
	return BuildFrom(Slice(runs), opt)
}

// Figures returns the figures of the report of runs in document order, for
// pages that set reports side by side (compare --format html).
func Figures(runs []*schema.RunData, opt Options) ([]document.Figure, error) {
	doc, _, err := Build(runs, opt)
	if err != nil {
		return nil, err
	}
	return document.Figures(doc), nil
}

// Write builds the report of the runs src gives and writes dir/index.html,
// dir/summary.json and dir/tables/*.csv and *.md, each atomically. dir is
// created if needed. The files of an earlier report in dir that this one
// does not write are removed (render.OutDir); no other file is touched. It
// returns the summary written, whose findings a command can print.
func Write(dir string, src Source, opt Options) (*Summary, error) {
	doc, sum, err := BuildFrom(src, opt)
	if err != nil {
		return nil, err
	}
	if err := render.WriteReport(dir, doc, sum); err != nil {
		return nil, err
	}
	return sum, nil
}

// WriteFindings prints the findings of s, one per line, warnings marked
// "warning:", for a terminal or a CI log; only the warnings when
// onlyWarnings is set.
func WriteFindings(w io.Writer, s *Summary, onlyWarnings bool) error {
	bw := bufio.NewWriter(w)
	for _, f := range s.Findings {
		if onlyWarnings && !f.Warning {
			continue
		}
		if f.Warning {
			bw.WriteString("warning: ")
		}
		bw.WriteString(f.Text)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
