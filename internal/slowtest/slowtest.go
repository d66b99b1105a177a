// Package slowtest marks the tests that simulate and read whole
// experiments end to end. Under the race detector they cost minutes (it
// slows a single goroutine's work five to ten times) and check no
// concurrency that the packages' own race-checked tests do not already
// check, so they are skipped there; `make test` runs them in its second
// pass, without -race.
package slowtest

import "testing"

// SkipUnderRace skips t when the test binary was built with -race; why
// says what the test does that is slow.
func SkipUnderRace(t testing.TB, why string) {
	t.Helper()
	if Race {
		t.Skipf("%s: slow under -race; make test runs it without", why)
	}
}
