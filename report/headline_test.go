package report

import (
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/report/document"
	"github.com/outlast-dev/outlast/schema"
)

// TestFirstSectionReadsFirst checks the page's order as a researcher reads
// it: a lead that says how to read the page and cites the paper; then the
// findings section, holding no table, where each experiment's headline
// figure (hit ratio and sessions of one seed's arms, the trigger shaded)
// comes before its findings, the experiments that test the claim first
// and the calibration last, warnings after each experiment's other
// findings (the negative intercept of c(L) with the calibration, not
// first); then the overview, compact.
func TestFirstSectionReadsFirst(t *testing.T) {
	runs := fixtureRuns()
	for i, r := range runs {
		if r.Run.Design == "nocache" {
			// c(L) = -0.5 s + 0.125 ms/token·L: a negative intercept.
			runs[i] = calibrationRunOf([3]calWindow{{20, 52000}, {30, 36000}, {60, 20000}})
		}
	}
	doc, _, err := Build(runs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	lead := strings.Join(doc.Lead, " ")
	// The lead says what each verdict means, in a few words, not only
	// where the overview's note defines them.
	for _, want := range []string{"How to read this page", "Bursts That Outlast Themselves: Persistent Degradation in Prefix-Cached Agent Serving", "arXiv:2611.13412",
		"never-degraded, none degraded", "recovered-alone, recovered-under-control, degraded, then back to 0.8", "persistent, degraded from the first degraded window to the end",
		"partial, ", "unknown, uncached, cache-unreported, no-turns: no verdict", "hit ratio below 0.5", "overview's note"} {
		if !strings.Contains(lead, want) {
			t.Errorf("the lead lacks %q: %s", want, lead)
		}
	}
	if doc.Sections[0].ID != "findings" || doc.Sections[1].ID != "overview" {
		t.Fatalf("sections begin %q, %q; want findings, overview", doc.Sections[0].ID, doc.Sections[1].ID)
	}
	var order []string
	var lists [][]document.ListItem
	for i, b := range doc.Sections[0].Blocks {
		switch b := b.(type) {
		case *document.Table:
			t.Errorf("block %d of the findings is a table", i)
		case *document.Grid:
			label, _, _ := strings.Cut(b.Caption, " (")
			order = append(order, label)
			if len(b.Figures) != 2 {
				t.Errorf("%s: %d panels, want hit ratio and sessions", label, len(b.Figures))
				continue
			}
			hit := b.Figures[0].(*document.TimeSeries)
			if len(hit.Series) == 0 || !strings.Contains(hit.Title, "hit ratio") || !strings.Contains(b.Figures[1].(*document.TimeSeries).Title, "sessions") {
				t.Errorf("%s: panels %q with %d series", label, hit.Title, len(hit.Series))
			}
			if strings.HasPrefix(label, "paired") && len(hit.Bands) == 0 {
				t.Errorf("%s: no trigger band", label)
			}
		case *document.List:
			if len(order) == 0 {
				t.Errorf("block %d: findings before any headline figure", i)
			}
			lists = append(lists, b.Items)
		}
	}
	want := []string{"paired-test", "recovery-test", "prevention-test", "mix-test", "drain-test", "observe-test", "cal-test"}
	if strings.Join(order, ",") != strings.Join(want, ",") {
		t.Errorf("headline figures of %v, want %v", order, want)
	}
	for _, items := range lists {
		for k := 1; k < len(items); k++ {
			if items[k-1].Warning && !items[k].Warning {
				t.Errorf("%s: a warning before a finding: %q", items[k].Label, items[k-1].Text)
			}
		}
	}
	last := lists[len(lists)-1]
	if w := last[len(last)-1]; !w.Warning || w.Label != "cal-test" || !strings.Contains(w.Text, "intercept a is negative") {
		t.Errorf("the last finding is %+v; want the calibration's negative intercept, with the calibration", w)
	}
	if lists[0][0].Warning || lists[0][0].Label != "paired-test" {
		t.Errorf("the first finding is %+v; want the paired experiment's", lists[0][0])
	}
	ov := findTable(t, doc, "overview")
	if !ov.Compact {
		t.Error("the overview is not compact")
	}
	// The outcome comes before the setup: on a laptop's screen the
	// verdict and end figures show beside the run's name, the trigger and
	// control (long, alike across an experiment) after them.
	col := map[string]int{}
	for i, c := range ov.Columns {
		col[c.Name] = i
	}
	for _, name := range []string{"Verdict", "Degraded", "End hit", "End sessions"} {
		if col[name] > col["Trigger"] || col[name] > col["Control"] || col[name] < col["Seed"] {
			t.Errorf("overview column %s at %d: want it after Seed (%d), before Trigger (%d) and Control (%d)", name, col[name], col["Seed"], col["Trigger"], col["Control"])
		}
	}
}

// TestShortName checks the overview's run names: the first part every
// run of the experiment shares is left out, the rest kept whole.
func TestShortName(t *testing.T) {
	exp := func(names ...string) *experiment {
		e := &experiment{}
		for _, n := range names {
			e.runs = append(e.runs, &runInfo{run: schema.Run{Run: n}})
		}
		return e
	}
	for _, tt := range []struct {
		e    *experiment
		want []string
	}{
		{exp("recovery-s501-aimd", "recovery-s501-none", "recovery-s502-aimd"), []string{"s501-aimd", "s501-none", "s502-aimd"}},
		{exp("s501-burst", "s501-no-burst", "s502-burst"), []string{"s501-burst", "s501-no-burst", "s502-burst"}},
		{exp("calibration-s501-lambda-0.0086", "calibration-s501-lambda-0.012"), []string{"s501-lambda-0.0086", "s501-lambda-0.012"}},
		{exp("trace-recovery-s501-budgeter"), []string{"trace-recovery-s501-budgeter"}},
		{exp("vllm-0.8", "vllm"), []string{"vllm-0.8", "vllm"}},
	} {
		for i, r := range tt.e.runs {
			if got := shortName(r, tt.e); got != tt.want[i] {
				t.Errorf("shortName(%q) = %q, want %q", r.name(), got, tt.want[i])
			}
		}
	}
}

// TestWriteFindingsInPageOrder: the findings printed on a terminal come
// in the page's order, the experiments that test the claim first and the
// calibration last, each experiment's warnings after its other findings;
// a make demo does not end its run with the calibration's caveat first.
func TestWriteFindingsInPageOrder(t *testing.T) {
	s := &Summary{Findings: []SummaryFinding{
		{Experiment: "cal", Design: schema.DesignCalibration, Warning: true, Text: "cal: caveat"},
		{Experiment: "cal", Design: schema.DesignCalibration, Text: "cal: fit"},
		{Experiment: "drain", Design: schema.DesignDrain, Text: "drain: bracket"},
		{Experiment: "paired", Design: schema.DesignPaired, Warning: true, Text: "paired: caveat"},
		{Experiment: "paired", Design: schema.DesignPaired, Text: "paired: test"},
		{Experiment: "paired", Design: schema.DesignPaired, Text: "paired: verdicts"},
	}}
	var b strings.Builder
	if err := WriteFindings(&b, s, false); err != nil {
		t.Fatal(err)
	}
	want := "paired: test\npaired: verdicts\nwarning: paired: caveat\ndrain: bracket\ncal: fit\nwarning: cal: caveat\n"
	if b.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", b.String(), want)
	}
	if s.Findings[0].Text != "cal: caveat" {
		t.Error("WriteFindings reordered the summary's findings")
	}
}
