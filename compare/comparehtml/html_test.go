package comparehtml

import (
	"bytes"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/compare"
	"github.com/outlast-dev/outlast/report"
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
	d := Doc(res, []compare.Column{a, b})
	if err := report.Validate(d); err != nil {
		t.Fatal(err)
	}
	if d.Title != "outlast compare: old vs new" || d.Sections[0].ID != "comparison" {
		t.Errorf("title %q, first section %q", d.Title, d.Sections[0].ID)
	}
	// One table per comparison table, with a value and a "vs base" column
	// for new.
	tb, ok := d.Sections[0].Blocks[0].(*report.Table)
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
	if err := Write(&x, res, []compare.Column{a, b}); err != nil {
		t.Fatal(err)
	}
	if err := Write(&y, res, []compare.Column{a, b}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x.Bytes(), y.Bytes()) {
		t.Error("two renderings differ")
	}
	if !strings.Contains(x.String(), "configuration not in new") {
		t.Error("the footnote is not in the HTML")
	}
}
