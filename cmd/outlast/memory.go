package main

import (
	"os"
	"runtime/debug"
)

// ingestMemoryLimit is the soft limit of the Go heap during ingest: below
// the 256 MB peak ingest is held to (docs/performance.md), with room for
// stacks and buffers outside the heap.
const ingestMemoryLimit = 160 << 20

// collectNear makes garbage be collected only as the Go heap nears limit,
// unless GOMEMLIMIT or GOGC say otherwise, and returns the function that
// restores the collector's settings. Ingest's memory is bounded whatever
// its input, by design, well below the limit; a campaign of small runs
// allocates much and keeps little, and collecting each time the heap
// doubled took a tenth of its CPU (docs/performance.md). Commands that
// hold a whole run (reading a dataset) keep the default: a large run's
// heap may exceed any fixed limit, and the collector would then run
// without pause.
func collectNear(limit int64) (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	oldLimit := debug.SetMemoryLimit(limit)
	if os.Getenv("GOGC") != "" {
		return func() { debug.SetMemoryLimit(oldLimit) }
	}
	oldPercent := debug.SetGCPercent(-1)
	return func() { debug.SetGCPercent(oldPercent); debug.SetMemoryLimit(oldLimit) }
}

// reportMemoryLimit is the soft limit of the Go heap of report and
// compare, below the 300 MB peak they are held to on a campaign
// (docs/performance.md).
// A report keeps a few kilobytes per run (its rows, cohorts, the windows
// of the c(L) fit) besides the runs being read: 10,000 runs leave about
// 55 MB live, and writing the page and summary brings it to about 105 MB.
// Letting the heap double past that before each collection took 10,000
// runs to 328 MB; under a 200 MB limit to 202-218 MB, under this one to
// 171 MB in the same time.
const reportMemoryLimit = 150 << 20

// readingGCPercent is GOGC while a command reads a dataset's runs one
// after another (report, compare): the heap may grow to five times what
// is live before a collection, up to the soft limit, near which the
// collector runs more often. A campaign's runs are read and dropped, a
// few megabytes each, while what is kept is small; collecting each time
// the heap doubled took a third of a report's CPU on 1,000 SGLang runs
// (docs/performance.md). It changes nothing once the live heap nears the
// limit, where the limit decides.
const readingGCPercent = 400

// limitMemory sets a soft limit on the Go heap and readingGCPercent,
// unless GOMEMLIMIT or GOGC say otherwise, and returns the function that
// restores the old settings. Unlike collectNear it leaves the collector
// on: it still runs as the heap grows, and more often near the limit. A
// run whose own heap passes the limit (one very large gateway log) is
// then read with the collector running often, which the runtime caps at
// half the CPU: a report of a run of 71 MB of gateway log took 8% longer
// under a 100 MB limit, in 116 MB instead of 177 MB.
func limitMemory(limit int64) (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	oldLimit := debug.SetMemoryLimit(limit)
	if os.Getenv("GOGC") != "" {
		return func() { debug.SetMemoryLimit(oldLimit) }
	}
	oldPercent := debug.SetGCPercent(readingGCPercent)
	return func() { debug.SetGCPercent(oldPercent); debug.SetMemoryLimit(oldLimit) }
}
