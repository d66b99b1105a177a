package compare

import (
	"bytes"
	"slices"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// factsColumns summarizes the runs of cols, as a comparison that reads
// one run at a time does.
func factsColumns(cols []Column) []FactsColumn {
	out := make([]FactsColumn, len(cols))
	for j, c := range cols {
		out[j].Label = c.Label
		for _, rd := range c.Runs {
			out[j].Runs = append(out[j].Runs, FactsOf(rd))
		}
	}
	return out
}

// sameAsFacts checks that CompareFacts on the runs' facts gives the
// result Compare gives on their tables.
func sameAsFacts(t *testing.T, cols []Column, o Options) {
	t.Helper()
	want, err := Compare(cols, o)
	if err != nil {
		t.Fatal(err)
	}
	got, err := CompareFacts(factsColumns(cols), o)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := want.WriteJSON(&a); err != nil {
		t.Fatal(err)
	}
	if err := got.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("CompareFacts differs from Compare:\n%s\nwant\n%s", b.Bytes(), a.Bytes())
	}
}

// TestCompareFactsSameAsCompare compares simulated versions from their
// tables and from their facts, by dataset and split by a runs column.
func TestCompareFactsSameAsCompare(t *testing.T) {
	runs := simulated(t)
	sameAsFacts(t, []Column{{"v1", runs["v1"]}, {"v2", runs["v2"]}, {"v3", runs["v3"]}}, Options{Ignore: []string{"pool"}})
	both := append(append([]*schema.RunData(nil), runs["v2"]...), runs["v3"]...)
	cols, err := SplitBy(both, "kv_pool_tokens")
	if err != nil {
		t.Fatal(err)
	}
	var facts []*Facts
	for _, rd := range both {
		facts = append(facts, FactsOf(rd))
	}
	fcols, err := SplitFactsBy(facts, "kv_pool_tokens")
	if err != nil {
		t.Fatal(err)
	}
	if len(fcols) != len(cols) {
		t.Fatalf("SplitFactsBy: %d columns, SplitBy %d", len(fcols), len(cols))
	}
	for j := range cols {
		if fcols[j].Label != cols[j].Label || len(fcols[j].Runs) != len(cols[j].Runs) {
			t.Errorf("column %d: %s of %d runs, SplitBy %s of %d", j, fcols[j].Label, len(fcols[j].Runs), cols[j].Label, len(cols[j].Runs))
		}
	}
	sameAsFacts(t, cols, Options{By: "kv_pool_tokens"})
}

// TestSplitByEmptyValue splits runs by a column some of them leave empty:
// their column is labelled UnknownLabel, not "".
func TestSplitByEmptyValue(t *testing.T) {
	a := &schema.RunData{Run: schema.Run{Run: "a", EngineVersion: "0.28.0"}}
	b := &schema.RunData{Run: schema.Run{Run: "b"}}
	cols, err := SplitBy([]*schema.RunData{a, b}, "engine_version")
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, c := range cols {
		labels = append(labels, c.Label)
	}
	if len(labels) != 2 || !slices.Contains(labels, UnknownLabel) || !slices.Contains(labels, "0.28.0") {
		t.Errorf("labels %q, want %q and 0.28.0", labels, UnknownLabel)
	}
}
