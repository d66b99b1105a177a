// Package cputime reads the CPU time the process has used, user and
// system, for benchmarks that report it beside the wall clock: on a
// machine shared with other work the wall clock measures the machine, the
// CPU time far less.
package cputime

import (
	"runtime"
	"testing"
	"time"
)

// Report reports, when the returned function is called, the process's CPU
// time since Report was called, per iteration of b, as the metric unit
// ("cpu-ms/op", or per what the caller counts, such as "cpu-ms/run", with
// per the iterations' count of it). It collects the garbage first, so that
// a benchmark's set-up (simulating its input, say) is not charged to it.
func Report(b *testing.B, unit string, per int) func() {
	runtime.GC()
	start := Process()
	return func() {
		if d := Process() - start; d >= 0 && b.N > 0 && per > 0 {
			b.ReportMetric(float64(d)/float64(time.Millisecond)/float64(b.N*per), unit)
		}
	}
}
