package page

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/compare"
	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/schema"
)

// run is a one-hour paired-design run with a turn every 10 s whose hit
// ratio is hit.
func run(name, arm string, seed int64, hit float64) *schema.RunData {
	lambda := 0.035
	rd := &schema.RunData{Run: schema.Run{Run: name, Experiment: "paired-8b", Design: "paired", Arm: arm, Seed: &seed,
		DurationS: 3600, PrefixCaching: true, ArrivalRate: &lambda, ControlKind: "none", TriggerKind: "none",
		Labels: "{}", WorkloadExtra: "{}", TriggerExtra: "{}", ControlParams: "{}"}}
	rd.Sessions = []schema.Session{{Run: name, Session: "s", ArriveS: 0, Status: "open"}}
	for k := 1; k < 360; k++ {
		rd.Turns = append(rd.Turns, schema.Turn{Run: name, Session: "s", Turn: int32(k), DoneS: float64(k) * 10,
			PromptTokens: 1000, CachedTokens: int64(hit * 1000), Status: "ok"})
	}
	return rd
}

func TestDoc(t *testing.T) {
	a := compare.Column{Label: "old", Runs: []*schema.RunData{run("s1-burst", "burst", 1, 0.95), run("s1-no-burst", "no-burst", 1, 0.95)}}
	b := compare.Column{Label: "new", Runs: []*schema.RunData{run("s1-burst", "burst", 1, 0.9)}}
	res, err := compare.Compare([]compare.Column{a, b}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := Doc(res, []compare.Column{a, b}, nil)
	if err := document.Validate(d); err != nil {
		t.Fatal(err)
	}
	if d.Title != "outlast compare: old vs new" || d.Sections[0].ID != "comparison" {
		t.Errorf("title %q, first section %q", d.Title, d.Sections[0].ID)
	}
	// One table per comparison table, with a value and a "vs base" column
	// for new.
	tb, ok := d.Sections[0].Blocks[0].(*document.Table)
	if !ok || len(tb.Columns) != 4 || tb.Columns[3].Name != "vs base" || tb.Columns[3].Group != "new" {
		t.Fatalf("first block %#v", d.Sections[0].Blocks[0])
	}
	// The no-burst configuration is missing from new: a footnote marker.
	m := tb.Rows[1][2].Marker()
	note := strings.Trim(m, "[]")
	found := false
	for _, n := range tb.Notes {
		found = found || n == "["+note+"] configuration not in new"
	}
	if m == "" || !found {
		t.Errorf("missing cell marker %q, notes %q", m, tb.Notes)
	}
	var x, y bytes.Buffer
	if err := Write(&x, res, []compare.Column{a, b}, oneFigure); err != nil {
		t.Fatal(err)
	}
	if err := Write(&y, res, []compare.Column{a, b}, oneFigure); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x.Bytes(), y.Bytes()) {
		t.Error("two renderings differ")
	}
	if !strings.Contains(x.String(), "configuration not in new") {
		t.Error("the footnote is not in the HTML")
	}
}

// oneFigure stands for a column's report: one figure per column, titled
// by its run count, and a second only the baseline has.
func oneFigure(col compare.Column) ([]document.Figure, error) {
	figs := []document.Figure{&document.TimeSeries{ID: "hit", Title: fmt.Sprintf("%d runs", len(col.Runs)),
		Series: []document.Series{{Name: "hit", X: []float64{0, 1}, Y: []float64{0.9, 0.8}}}}}
	if col.Label == "old" {
		figs = append(figs, &document.Bar{ID: "only-old", Title: "bars", Categories: []string{"a"},
			Series: []document.BarSeries{{Name: "s", Values: []float64{1}}}})
	}
	return figs, nil
}

func TestSideBySide(t *testing.T) {
	a := compare.Column{Label: "old", Runs: []*schema.RunData{run("s1-burst", "burst", 1, 0.95), run("s1-no-burst", "no-burst", 1, 0.95)}}
	b := compare.Column{Label: "new", Runs: []*schema.RunData{run("s1-burst", "burst", 1, 0.9)}}
	broken := compare.Column{Label: "broken", Runs: b.Runs}
	cols := []compare.Column{a, b, broken}
	res, err := compare.Compare(cols, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := func(col compare.Column) ([]document.Figure, error) {
		if col.Label == "broken" {
			return nil, errors.New("no runs of a known design")
		}
		return oneFigure(col)
	}
	d := Doc(res, cols, src)
	if err := document.Validate(d); err != nil {
		t.Fatal(err)
	}
	if len(d.Sections) != 2 || d.Sections[1].ID != "figures" {
		t.Fatalf("sections %d, want the comparison and the figures", len(d.Sections))
	}
	var rows []*document.Grid
	var notes []string
	for _, bl := range d.Sections[1].Blocks {
		switch bl := bl.(type) {
		case *document.Grid:
			rows = append(rows, bl)
		case *document.Note:
			notes = append(notes, bl.Text)
		}
	}
	if len(notes) != 1 || notes[0] != "broken: no figures: no runs of a known design" {
		t.Errorf("notes %q, want the broken column's error", notes)
	}
	// One row per baseline figure; "hit" from old and new, "only-old" alone.
	if len(rows) != 2 || len(rows[0].Figures) != 2 || len(rows[1].Figures) != 1 {
		t.Fatalf("rows %+v", rows)
	}
	old, nw := rows[0].Figures[0].(*document.TimeSeries), rows[0].Figures[1].(*document.TimeSeries)
	if old.ID != "col1-hit" || old.Title != "old: 2 runs" || nw.ID != "col2-hit" || nw.Title != "new: 1 runs" {
		t.Errorf("relabelled %q %q, %q %q", old.ID, old.Title, nw.ID, nw.Title)
	}
	if d := Doc(res, cols, nil); len(d.Sections) != 1 {
		t.Errorf("without a figure source: %d sections, want the comparison only", len(d.Sections))
	}
}

// TestSideBySideSharesScales: panels set side by side read against one
// another, so they share their value scales: each y axis (and a scatter's
// x axis) spans the data of every panel of its row, from 0 when all of it
// is positive; an axis fixed alike in every panel (a hit ratio's [0, 1])
// stays as it is.
func TestSideBySideSharesScales(t *testing.T) {
	a := compare.Column{Label: "old", Runs: []*schema.RunData{run("s1-burst", "burst", 1, 0.95)}}
	b := compare.Column{Label: "new", Runs: []*schema.RunData{run("s1-burst", "burst", 1, 0.9)}}
	res, err := compare.Compare([]compare.Column{a, b}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	figs := func(col compare.Column) ([]document.Figure, error) {
		top := 10.0 // sessions: 10 in old, 140 in new
		if col.Label == "new" {
			top = 140
		}
		return []document.Figure{
			&document.TimeSeries{ID: "sessions", YAxes: []document.Axis{{Name: "sessions"}, {Name: "turns/s"}},
				Series: []document.Series{{Name: "n", X: []float64{0, 1}, Y: []float64{2, top}}, {Name: "tput", Axis: 1, X: []float64{0, 1}, Y: []float64{0.5, top / 100}}}},
			&document.TimeSeries{ID: "hit", YAxes: []document.Axis{{Name: "hit ratio", Min: 0, Max: 1}},
				Series: []document.Series{{Name: "hit", X: []float64{0, 1}, Y: []float64{0.9, 0.1}}}},
			&document.Scatter{ID: "map", Groups: []document.ScatterGroup{{Name: "runs", Points: [][2]float64{{top / 50, top / 20}}}}},
		}, nil
	}
	d := Doc(res, []compare.Column{a, b}, figs)
	if err := document.Validate(d); err != nil {
		t.Fatal(err)
	}
	var rows [][]document.Figure
	for _, blk := range d.Sections[len(d.Sections)-1].Blocks {
		if g, ok := blk.(*document.Grid); ok {
			rows = append(rows, g.Figures)
		}
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows of figures", len(rows))
	}
	for _, f := range rows[0] {
		ax := f.(*document.TimeSeries).YAxes
		if ax[0].Min != 0 || !(ax[0].Max >= 140) || ax[1].Min != 0 || !(ax[1].Max >= 1.4) {
			t.Errorf("%s: sessions axes %+v, want both from 0 past 140 and 1.4", f.FigureID(), ax)
		}
	}
	if rows[0][0].(*document.TimeSeries).YAxes[0] != rows[0][1].(*document.TimeSeries).YAxes[0] {
		t.Error("the sessions panels' y axes differ")
	}
	for _, f := range rows[1] {
		if ax := f.(*document.TimeSeries).YAxes[0]; ax.Min != 0 || ax.Max != 1 {
			t.Errorf("%s: hit axis %+v, want [0, 1] kept", f.FigureID(), ax)
		}
	}
	s0, s1 := rows[2][0].(*document.Scatter), rows[2][1].(*document.Scatter)
	if s0.XAxis != s1.XAxis || s0.YAxis != s1.YAxis || !(s0.XAxis.Max >= 2.8) || !(s0.YAxis.Max >= 7) {
		t.Errorf("scatter axes %+v %+v / %+v %+v", s0.XAxis, s0.YAxis, s1.XAxis, s1.YAxis)
	}
}
