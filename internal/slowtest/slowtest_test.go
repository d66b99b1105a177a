package slowtest

import (
	"testing"
)

// recorder is a testing.TB that records a skip instead of ending the test.
type recorder struct {
	testing.TB
	skipped string
}

func (r *recorder) Helper()                  {}
func (r *recorder) Skipf(f string, a ...any) { r.skipped = f }

// TestLongRunsOnlyInTheMatrix checks that a Long test is skipped unless
// OUTLAST_TEST=all, and runs then (outside -short mode).
func TestLongRunsOnlyInTheMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("-short skips Long tests whatever the environment")
	}
	for _, tt := range []struct {
		env  string
		skip bool
	}{{"", true}, {"race", true}, {"all", false}} {
		t.Setenv(Env, tt.env)
		r := &recorder{TB: t}
		Long(r, "a sweep")
		if got := r.skipped != ""; got != tt.skip || All() == tt.skip {
			t.Errorf("%s=%q: skipped %t, All %t; want skipped %t", Env, tt.env, got, All(), tt.skip)
		}
	}
	r := &recorder{TB: t}
	SkipUnderRace(r, "a whole experiment")
	if got := r.skipped != ""; got != Race {
		t.Errorf("SkipUnderRace skipped %t under race=%t", got, Race)
	}
}
