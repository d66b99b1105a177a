package report

import (
	"errors"
	"fmt"
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

// Build computes the report of a dataset: the document rendered as
// index.html and tables, and the summary written as summary.json. The runs
// may come in any order; the result depends only on their content and opt.
func Build(runs []*schema.RunData, opt Options) (*model.Doc, *Summary, error) {
	b := newBuilder(opt)
	for _, rd := range runs {
		if err := b.add(rd); err != nil {
			return nil, nil, err
		}
	}
	return b.finish()
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

// Write builds the report of runs and writes dir/index.html,
// dir/summary.json and dir/tables/*.csv and *.md, each atomically. dir is
// created if needed. The files of an earlier report in dir that this one
// does not write are removed (render.OutDir); no other file is touched.
func Write(dir string, runs []*schema.RunData, opt Options) error {
	doc, sum, err := Build(runs, opt)
	if err != nil {
		return err
	}
	out, err := render.OpenOutDir(dir, render.ReportFiles(doc))
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := render.WriteTables(dir, doc); err != nil {
		return err
	}
	if err := render.WriteJSON(filepath.Join(dir, render.SummaryFile), sum); err != nil {
		return err
	}
	if err := render.WriteHTMLFile(filepath.Join(dir, render.IndexFile), doc); err != nil {
		return err
	}
	return out.Finish()
}
