package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/outlast-dev/outlast/report/model"
	"github.com/outlast-dev/outlast/report/render"
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

// builder holds the state of one Build. It works in two steps: add
// measures one run as it is read (runInfo), and finish aggregates the
// measured runs into experiments, fits and sections.
type builder struct {
	opt  Options
	runs []*runInfo // by run name after finish begins
	seen map[string]bool
	exps []*experiment
	// fit is the c(L) used outside the calibration sections, nil when
	// there is none.
	fit     *stats.CostFit
	fitInfo *SummaryFit
	doc     *model.Doc
	sum     *Summary
}

func newBuilder(opt Options) *builder {
	return &builder{opt: opt, seen: map[string]bool{}}
}

// add measures one run.
func (b *builder) add(rd *schema.RunData) error {
	if rd == nil {
		return errors.New("report: nil run")
	}
	if b.seen[rd.Run.Run] {
		return fmt.Errorf("report: run %q appears twice", rd.Run.Run)
	}
	b.seen[rd.Run.Run] = true
	b.runs = append(b.runs, measureRun(rd))
	return nil
}

// finish aggregates the runs added so far into the report.
func (b *builder) finish() (*model.Doc, *Summary, error) {
	if len(b.runs) == 0 {
		return nil, nil, errors.New("report: the dataset has no runs")
	}
	sort.Slice(b.runs, func(i, j int) bool { return b.runs[i].name() < b.runs[j].name() })
	b.groupExperiments()
	b.globalFit()

	title := b.opt.Title
	if title == "" {
		title = "outlast report"
	}
	b.doc = &model.Doc{Title: title}
	b.sum = &Summary{SchemaVersion: SummaryVersion, Title: title, Dataset: b.opt.Dataset, CostFit: b.fitInfo}
	b.provenance()
	b.overview()
	for _, e := range b.exps {
		b.experimentSection(e)
	}
	b.regimeMap()
	b.provenanceSection()
	b.doc.Subtitle = b.subtitle()
	if err := model.Validate(b.doc); err != nil {
		return nil, nil, err
	}
	return b.doc, b.sum, nil
}

// Source gives a report its runs one at a time: it calls fn with each run,
// in any order, and stops at fn's first error, which it returns. The report
// keeps nothing of a run's tables once fn returns, so a source that reads a
// dataset run by run holds one run in memory at a time, however many runs
// the dataset has.
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
// on their order.
func BuildFrom(src Source, opt Options) (*model.Doc, *Summary, error) {
	b := newBuilder(opt)
	if err := src(b.add); err != nil {
		return nil, nil, err
	}
	return b.finish()
}

// Build is BuildFrom of runs in memory.
func Build(runs []*schema.RunData, opt Options) (*model.Doc, *Summary, error) {
	return BuildFrom(Slice(runs), opt)
}

// Figures returns the figures of the report of runs in document order, for
// pages that set reports side by side (compare --format html).
func Figures(runs []*schema.RunData, opt Options) ([]model.Figure, error) {
	doc, _, err := Build(runs, opt)
	if err != nil {
		return nil, err
	}
	return model.Figures(doc), nil
}

// Write builds the report of the runs src gives and writes dir/index.html,
// dir/summary.json and dir/tables/*.csv and *.md, each atomically. dir is
// created if needed.
func Write(dir string, src Source, opt Options) error {
	doc, sum, err := BuildFrom(src, opt)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := render.WriteTables(dir, doc); err != nil {
		return err
	}
	if err := render.WriteJSON(filepath.Join(dir, "summary.json"), sum); err != nil {
		return err
	}
	return render.WriteHTMLFile(filepath.Join(dir, "index.html"), doc)
}
