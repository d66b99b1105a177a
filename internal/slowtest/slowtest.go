// Package slowtest sorts the tests that make test cannot afford into the
// two ways they are run (see the Makefile and scripts/test.sh):
//
//   - SkipUnderRace: a test that simulates and reads whole experiments.
//     Under the race detector it costs minutes (it slows one goroutine's
//     work five to ten times) and checks no concurrency that the packages'
//     own race-checked tests do not, so it is skipped there. make test runs
//     the packages holding such tests without -race; make test-all runs
//     every package under -race, then these packages again without it.
//   - Long: a test too long for make test at any speed (a scale test, a
//     parameter sweep). It runs only when the whole matrix is asked for,
//     OUTLAST_TEST=all, as make test-all (and so CI) asks.
//
// Both are also skipped in -short mode, for a quick go test while editing.
package slowtest

import (
	"os"
	"testing"
)

// Env is the environment variable that selects the whole test matrix:
// OUTLAST_TEST=all runs the Long tests too.
const Env = "OUTLAST_TEST"

// All reports whether the whole test matrix was asked for (OUTLAST_TEST=all),
// for a test that does more then (a sweep over more parameters).
func All() bool { return os.Getenv(Env) == "all" }

// SkipUnderRace skips t when the test binary was built with -race, or in
// -short mode; why says what the test does that is slow.
func SkipUnderRace(t testing.TB, why string) {
	t.Helper()
	switch {
	case Race:
		t.Skipf("%s: slow under -race; make test runs this package without it", why)
	case testing.Short():
		t.Skipf("%s: skipped in -short mode", why)
	}
}

// Long skips t unless the whole test matrix was asked for (All); why says
// what makes it long. make test-all runs it.
func Long(t testing.TB, why string) {
	t.Helper()
	switch {
	case testing.Short():
		t.Skipf("%s: skipped in -short mode", why)
	case !All():
		t.Skipf("%s: make test-all runs it (%s=all)", why, Env)
	}
}
