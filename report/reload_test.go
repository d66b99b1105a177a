package report

import (
	"bytes"
	"errors"
	"testing"

	"github.com/outlast-dev/outlast/report/render"
	"github.com/outlast-dev/outlast/schema"
)

// TestReloadSameReport checks that a report which keeps no run's series and
// reads the figures' runs again (Options.Reload) writes the same bytes as
// one that keeps every run's series, and that it reads again only some of
// the runs: those its figures draw.
func TestReloadSameReport(t *testing.T) {
	for _, tc := range []struct {
		name string
		runs func(*testing.T) []*schema.RunData
	}{
		{"fixtures/real", realFixtures},
		{"handbuilt", func(*testing.T) []*schema.RunData { return fixtureRuns() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			build := func(opt Options) ([]byte, []byte) {
				t.Helper()
				doc, sum, err := BuildFrom(Slice(tc.runs(t)), opt)
				if err != nil {
					t.Fatal(err)
				}
				var h bytes.Buffer
				if err := render.WriteHTML(&h, doc); err != nil {
					t.Fatal(err)
				}
				j, err := render.JSON(sum)
				if err != nil {
					t.Fatal(err)
				}
				return h.Bytes(), j
			}
			opt := Options{Title: "t", Dataset: tc.name, Version: "test"}
			h1, j1 := build(opt)
			reloaded := map[string]int{}
			opt.Reload = func(run string) (*schema.RunData, error) {
				reloaded[run]++
				for _, rd := range tc.runs(t) { // a fresh copy: the report owns what it is given
					if rd.Run.Run == run {
						return rd, nil
					}
				}
				return nil, errors.New("no such run")
			}
			h2, j2 := build(opt)
			if !bytes.Equal(h1, h2) {
				t.Error("the HTML differs when the figures' runs are read again")
			}
			if !bytes.Equal(j1, j2) {
				t.Error("summary.json differs when the figures' runs are read again")
			}
			for run, n := range reloaded {
				if n != 1 {
					t.Errorf("run %s read again %d times, want once", run, n)
				}
			}
			if n := len(tc.runs(t)); len(reloaded) == 0 || tc.name == "handbuilt" && len(reloaded) >= n {
				t.Errorf("%d of %d runs read again", len(reloaded), n)
			}
		})
	}
}

// TestReloadError checks that a run the report cannot read again for its
// figures fails the report with that run's error.
func TestReloadError(t *testing.T) {
	bad := errors.New("gone")
	_, _, err := BuildFrom(Slice(fixtureRuns()), Options{Reload: func(string) (*schema.RunData, error) { return nil, bad }})
	if !errors.Is(err, bad) {
		t.Fatalf("err = %v, want the reload's error", err)
	}
}
